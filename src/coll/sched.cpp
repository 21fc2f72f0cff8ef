// SPDX-License-Identifier: MIT
#include "coll/sched.hpp"

#include <algorithm>
#include <cstring>
#include <new>

#include "coll/p2p.hpp"
#include "dame/dame.hpp"
#include "device/device.hpp"
#include "device/p2p.hpp"
#include "device/progress.hpp"

namespace ch4lite::coll {

using namespace ch4lite::dev;

namespace {
// Running schedules, oldest first.
sched* g_head = nullptr;
sched* g_tail = nullptr;
// A poll is under way: a user op (reduce step) that calls MPI must not
// re-enter it.
bool g_polling = false;
}  // namespace

int next_tag(comm& c) noexcept {
    constexpr uint32_t span = static_cast<uint32_t>(dev::tag_ub) + 1 - sched_tag_min;
    return sched_tag_min + static_cast<int>(c.sched_seq++ % span);
}

// ---- recycled memory

struct sched::store {
    // Scratch up to chunk_bytes comes from chunks that stay with the store;
    // larger blocks are the schedule's own and freed with it.
    static constexpr std::size_t chunk_bytes = 16 * 1024;
    std::vector<rec> steps;
    std::vector<step> deps;
    std::vector<std::unique_ptr<std::byte[]>> chunks;
    std::size_t chunk = 0, used = 0;  // next free scratch byte: chunks[chunk] + used
    std::vector<std::unique_ptr<std::byte[]>> big;
    store* next = nullptr;
    void clear() noexcept {
        steps.clear();
        deps.clear();
        chunk = 0;
        used = 0;
        big.clear();
    }
};

namespace {
// Free lists (single-threaded device, MPI_THREAD_SERIALIZED at most).
constexpr int max_cached = 8;
sched::store* g_stores = nullptr;
int g_nstores = 0;
void* g_blocks = nullptr;  // free sched-sized blocks, linked through their first word
int g_nblocks = 0;
// For a schedule whose store could not be allocated: never touched (oom_).
sched::store g_no_store;
}  // namespace

void* sched::operator new(std::size_t n, const std::nothrow_t&) noexcept {
    if (g_blocks && n <= sizeof(sched)) {
        void* p = g_blocks;
        g_blocks = *static_cast<void**>(p);
        --g_nblocks;
        return p;
    }
    return ::operator new(n < sizeof(void*) ? sizeof(void*) : n, std::nothrow);
}

void sched::operator delete(void* p) noexcept {
    if (!p) return;
    if (g_nblocks < max_cached) {
        *static_cast<void**>(p) = g_blocks;
        g_blocks = p;
        ++g_nblocks;
        return;
    }
    ::operator delete(p);
}

namespace {
sched::store* take_store() noexcept {
    if (sched::store* s = g_stores) {
        g_stores = s->next;
        --g_nstores;
        return s;
    }
    auto* s = new (std::nothrow) sched::store;
    if (!s) return nullptr;
    try {
        // Most schedules fit: one allocation each instead of a doubling series.
        s->steps.reserve(16);
        s->deps.reserve(16);
    } catch (const std::bad_alloc&) {
        delete s;
        return nullptr;
    }
    return s;
}
}  // namespace

sched::sched(comm& c, int tag) noexcept
    : c_(c), cur_(&c), tag_(tag), st_(take_store()), steps_((st_ ? st_ : &g_no_store)->steps),
      deps_((st_ ? st_ : &g_no_store)->deps) {
    if (!st_) oom_ = true;
}

sched::~sched() {
    for (const rec& s : steps_)
        if ((s.k == kind::pack || s.k == kind::unpack) && s.t) s.t->release();
    if (op_.t) op_.t->release();
    if (!st_) return;
    st_->clear();
    if (g_nstores < max_cached) {
        st_->next = g_stores;
        g_stores = st_;
        ++g_nstores;
    } else {
        delete st_;
    }
}

step sched::add(kind k, const void* src, void* dst, int64_t n, int peer, const dame::type* t,
                deps d) noexcept {
    if (oom_) return -1;
    if (committed_) {  // a builder bug: never silently run half a schedule
        oom_ = true;
        return -1;
    }
    const auto id = static_cast<step>(steps_.size());
    try {
        const auto dep0 = static_cast<int32_t>(deps_.size());
        for (const step x : d)
            if (x >= 0 && x < id && x != fence_) deps_.push_back(x);
        steps_.push_back(rec{k, waiting, static_cast<uint16_t>(deps_.size() - static_cast<std::size_t>(dep0)),
                             dep0, fence_, cur_, src, dst, n, peer,
                             k == kind::recv ? lazy_ring(*cur_, peer, static_cast<std::size_t>(n)) : -1, t,
                             nullptr, nullptr});
    } catch (const std::bad_alloc&) {
        oom_ = true;
        return -1;
    }
    if (t && (k == kind::pack || k == kind::unpack)) t->retain();
    return id;
}

step sched::send(const void* buf, std::size_t n, int peer, deps d) noexcept {
    return add(kind::send, buf, nullptr, static_cast<int64_t>(n), peer, nullptr, d);
}
step sched::recv(void* buf, std::size_t n, int peer, deps d) noexcept {
    return add(kind::recv, nullptr, buf, static_cast<int64_t>(n), peer, nullptr, d);
}
step sched::reduce(const void* in, void* inout, int64_t count, deps d) noexcept {
    return add(kind::reduce, in, inout, count, 0, nullptr, d);
}
step sched::copy(const void* src, void* dst, std::size_t n, deps d) noexcept {
    return add(kind::copy, src, dst, static_cast<int64_t>(n), 0, nullptr, d);
}
step sched::pack(const void* user, int64_t count, const dame::type& t, void* stream, deps d) noexcept {
    return add(kind::pack, user, stream, count, 0, &t, d);
}
step sched::unpack(const void* stream, void* user, int64_t count, const dame::type& t, deps d) noexcept {
    return add(kind::unpack, stream, user, count, 0, &t, d);
}
step sched::nop(deps d) noexcept { return add(kind::nop, nullptr, nullptr, 0, 0, nullptr, d); }

step sched::call(call_fn fn, void* arg, deps d) noexcept {
    const step id = add(kind::call, nullptr, arg, 0, 0, nullptr, d);
    if (id >= 0) steps_[static_cast<std::size_t>(id)].fn = fn;
    return id;
}

step sched::watch(call_fn fn, void* arg, deps d) noexcept {
    const step id = add(kind::watch, nullptr, arg, 0, 0, nullptr, d);
    if (id >= 0) steps_[static_cast<std::size_t>(id)].fn = fn;
    return id;
}

void sched::skip(step first, step last) noexcept {
    bool ok = in_call_ >= 0 && first >= 0 && first <= last && last <= static_cast<step>(steps_.size());
    for (step i = first; ok && i < last; ++i) ok = steps_[static_cast<std::size_t>(i)].state == waiting;
    if (!ok) {  // a builder bug
        if (result_ == status::ok) result_ = status::intern;
        stop_ = true;
        return;
    }
    for (step i = first; i < last; ++i) steps_[static_cast<std::size_t>(i)].state = done;
}

bool sched::call_again(rec& s) noexcept {
    in_call_ = static_cast<step>(&s - steps_.data());
    const status st = s.fn(*this, s.dst);
    in_call_ = -1;
    if (st == status::again) return false;
    if (st != status::ok) {
        if (result_ == status::ok) result_ = st;
        stop_ = true;
    }
    s.state = done;
    return true;
}

void sched::rewind(step first) noexcept {
    if (in_call_ < 0 || first < 0 || first > in_call_) {  // not from a call step: a bug
        if (result_ == status::ok) result_ = status::intern;
        stop_ = true;
        return;
    }
    for (step i = first; i < in_call_; ++i)
        if (steps_[static_cast<std::size_t>(i)].state != done) {  // still in flight: cannot repeat
            if (result_ == status::ok) result_ = status::intern;
            stop_ = true;
            return;
        }
    for (step i = first; i <= in_call_; ++i) steps_[static_cast<std::size_t>(i)].state = waiting;
    lo_ = std::min(lo_, static_cast<std::size_t>(first));
    rewound_ = true;
    rewind_of_ = in_call_;
}

step sched::fence() noexcept {
    if (oom_) return -1;
    // A fence right after a fence (or at the start) adds nothing.
    if (since_ == static_cast<step>(steps_.size())) return fence_;
    try {
        const auto dep0 = static_cast<int32_t>(deps_.size());
        // The steps since the last fence (each waits for that fence).
        for (step x = since_; x < static_cast<step>(steps_.size()); ++x) deps_.push_back(x);
        const auto id = static_cast<step>(steps_.size());
        steps_.push_back(rec{kind::fence, waiting,
                             static_cast<uint16_t>(deps_.size() - static_cast<std::size_t>(dep0)), dep0,
                             -1, cur_, nullptr, nullptr, 0, 0, -1, nullptr, nullptr, nullptr});
        fence_ = id;
        since_ = id + 1;
        return id;
    } catch (const std::bad_alloc&) {
        oom_ = true;
        return -1;
    }
}

void sched::set_op(const reduction& op) noexcept {
    if (op_.t) op_.t->release();
    op_ = op;
    if (op.user) {
        uop_ = *op.user;
        op_.user = &uop_;
    }
    if (op_.t) op_.t->retain();
}

std::byte* sched::scratch(std::size_t n) noexcept {
    if (oom_) return nullptr;
    n = (n + 15) & ~std::size_t{15};  // every block 16-byte aligned
    if (n == 0) n = 16;
    store& st = *st_;
    try {
        if (n > store::chunk_bytes) {
            st.big.emplace_back(new std::byte[n]);
            return st.big.back().get();
        }
        if (st.chunk < st.chunks.size() && st.used + n > store::chunk_bytes) {
            ++st.chunk;
            st.used = 0;
        }
        if (st.chunk == st.chunks.size()) st.chunks.emplace_back(new std::byte[store::chunk_bytes]);
        std::byte* p = st.chunks[st.chunk].get() + st.used;
        st.used += n;
        return p;
    } catch (const std::bad_alloc&) {
        oom_ = true;
        return nullptr;
    }
}

std::byte* sched::user_stream(const void* buf, int64_t count, const dame::type& t, bool load) noexcept {
    const auto n = static_cast<std::size_t>(count * t.size());
    if (t.contiguous() || n == 0)
        return const_cast<std::byte*>(static_cast<const std::byte*>(buf)) + (n ? t.true_lb() : 0);
    std::byte* p = scratch(n);
    if (p && load) pack(buf, count, t, p);
    return p;
}

void sched::user_store(const std::byte* stream, void* buf, int64_t count, const dame::type& t) noexcept {
    const auto n = static_cast<std::size_t>(count * t.size());
    if (t.contiguous() || n == 0) return;
    fence();
    unpack(stream, buf, count, t);
}

status sched::commit() noexcept {
    if (oom_) return status::no_mem;
    committed_ = true;
    return status::ok;
}

// ---- running

bool sched::issue(rec& s) noexcept {
    if ((s.k == kind::send || s.k == kind::recv) && s.peer == MPI_PROC_NULL) {
        s.state = done;  // no message (intercommunicator roots, topologies' edges)
        return true;
    }
    switch (s.k) {
        case kind::send: {
            comm& c = *s.c;
            const auto n = static_cast<std::size_t>(s.n);
            // An eager-sized message to a local peer goes out at once.
            if (send_direct(c.ctx_coll(), s.src, n, c, s.peer, tag_)) {
                s.state = done;
                return true;
            }
            request* r = nullptr;
            const status st = isend_on(c.ctx_coll(), s.src, n, c, s.peer, tag_, false, r);
            if (st != status::ok) break;
            s.req = r;
            s.state = running_;
            if (r->cc == 0) finish(s);
            return true;
        }
        case kind::recv: {
            comm& c = *s.c;
            if (s.ring >= 0) {
                s.state = polling;
                take(s);
                return true;
            }
            request* r = nullptr;
            const status st = irecv_on(c.ctx_coll(), s.dst, static_cast<std::size_t>(s.n), c, s.peer, tag_, r);
            if (st != status::ok) break;
            s.req = r;
            s.state = running_;
            if (r->cc == 0) finish(s);
            return true;
        }
        case kind::reduce: {
            const status st = op_.apply(s.src, s.dst, s.n);
            if (st != status::ok) {
                if (result_ == status::ok) result_ = st;
                stop_ = true;
            }
            s.state = done;
            return true;
        }
        case kind::copy:
            if (s.n && s.src != s.dst) std::memmove(s.dst, s.src, static_cast<std::size_t>(s.n));
            s.state = done;
            return true;
        case kind::pack:
            if (s.n) dame::pack(*s.t, s.src, s.n, s.dst);
            s.state = done;
            return true;
        case kind::unpack:
            if (s.n) dame::unpack(*s.t, s.dst, s.n, s.src);
            s.state = done;
            return true;
        case kind::nop:
        case kind::fence: s.state = done; return true;
        case kind::call: {
            in_call_ = static_cast<step>(&s - steps_.data());
            const status st = s.fn(*this, s.dst);
            const bool again = rewind_of_ == in_call_;  // this call rewound
            in_call_ = -1;
            rewind_of_ = -1;
            if (st != status::ok) {
                if (result_ == status::ok) result_ = st;
                stop_ = true;
            }
            if (!again) s.state = done;
            return true;
        }
        case kind::watch:
            s.state = calling;
            (void)call_again(s);
            return true;
    }
    // Posting failed (no request, no memory): nothing more is issued.
    if (result_ == status::ok) result_ = status::no_mem;
    stop_ = true;
    return false;
}

// Small receives from peers on this node are not posted: the message is
// taken from the unexpected queue (where progress puts it: no receive
// matches) when a poll finds it there, the way a blocking receive takes it
// (dev::recv_direct). No request, no posted-queue entry: a persistent
// Allreduce of a few bytes then costs about what the blocking one does.
// Only on the device-matching path (the netmod matches otherwise) and up
// to the unexpected queue's inline payload (a larger one would be copied
// to the heap first). Order is kept: the tag is the schedule's, and two
// receives of one schedule from one peer are ordered (sched.hpp), so the
// first matching message is this step's.
int32_t sched::lazy_ring(const comm& c, int peer, std::size_t n) noexcept {
    if constexpr (native_tagged) {
        if (!g_dev.device_matching) return -1;
    }
    if (n > unexpected_msg::inline_bytes || peer < 0) return -1;
    const int lpid = c.lpid(peer);
    if (!g_dev.shm.local(lpid)) return -1;
    return static_cast<int32_t>(g_dev.shm.local_index(lpid));
}

bool sched::take(rec& s) noexcept {
    comm& c = *s.c;
    const auto n = static_cast<std::size_t>(s.n);
    direct_recv got;
    const direct_take k = queues().unexpected_empty(c.ctx_coll())
                              ? direct_take::none
                              : am_take_unexpected_eager(c.ctx_coll(), s.peer, tag_, s.dst, n, got);
    switch (k) {
        case direct_take::taken:
            if (got.bytes != n) mismatch_ = true;
            s.state = done;
            return true;
        case direct_take::none:
            // Not arrived before: maybe at the head of the peer's ring now
            // (coll::wait polls schedules before the transports dispatch).
            if (!take_ring_head(static_cast<uint32_t>(s.ring), c.ctx_coll(), s.dst, n, s.peer, tag_, got))
                return false;
            if (got.bytes != n) mismatch_ = true;
            s.state = done;
            return true;
        case direct_take::other: break;  // a rendezvous or too long: the request path
    }
    request* r = nullptr;
    if (irecv_on(c.ctx_coll(), s.dst, n, c, s.peer, tag_, r) != status::ok) {
        if (result_ == status::ok) result_ = status::no_mem;
        stop_ = true;
        s.state = done;
        return true;
    }
    s.req = r;
    s.state = running_;
    if (r->cc == 0) finish(s);
    return true;
}

void sched::finish(rec& s) noexcept {
    request* r = s.req;
    const status st = r->result;
    if (s.k == kind::recv &&
        (st == status::truncated || (st == status::ok && r->bytes != static_cast<std::size_t>(s.n))))
        mismatch_ = true;
    else if (st != status::ok && result_ == status::ok)
        result_ = st;
    request_release(r);
    s.req = nullptr;
    s.state = done;
}

int sched::poll(bool issue) noexcept {
    int changed = 0;
    // The steps in flight lie in [lo_, hi_): a cheap look at them first
    // (this is what a waiting loop repeats); the full pass, which issues,
    // only when one of them finished (or when asked: at the start).
    for (std::size_t i = lo_; i < hi_; ++i) {
        rec& s = steps_[i];
        if (s.state == running_) {
            if (s.req->cc == 0) {
                finish(s);
                ++changed;
            }
        } else if (s.state == polling) {
            if (take(s)) ++changed;
        } else if (s.state == calling) {
            if (call_again(s)) ++changed;
        }
    }
    if (changed == 0 && !issue && !rewound_) return 0;
    rewound_ = false;
    const std::size_t n = steps_.size();
    bool prefix = true;  // every step before i is done
    for (std::size_t i = lo_; i < n; ++i) {
        rec& s = steps_[i];
        if (s.state == running_) {
            if (s.req->cc == 0) {
                finish(s);
                ++changed;
            }
        } else if (s.state == polling) {
            if (take(s)) ++changed;
        } else if (s.state == calling) {
            if (call_again(s)) ++changed;
        } else if (s.state == waiting && !stop_) {
            // Every step before it done (the common case: a schedule runs
            // in order): ready without looking at its dependencies.
            bool ready = prefix || s.after < 0 || steps_[static_cast<std::size_t>(s.after)].state == done;
            for (uint16_t k = 0; !prefix && ready && k < s.ndeps; ++k)
                if (steps_[static_cast<std::size_t>(deps_[static_cast<std::size_t>(s.dep0) + k])].state != done) {
                    ready = false;
                    break;
                }
            if (ready) {
                hi_ = std::max(hi_, i + 1);
                this->issue(s);
                ++changed;
            }
        }
        if (prefix && s.state == done)
            lo_ = i + 1;
        else
            prefix = false;
        // Every step after a fence waits for it: while it is not done,
        // nothing further can be ready, and nothing further was issued
        // (hi_: unless a rewind reset it).
        if (s.k == kind::fence && s.state != done && i + 1 >= hi_) break;
    }
    return changed;
}

bool sched::over() const noexcept {
    if (lo_ == steps_.size()) return true;
    if (!stop_) return false;
    // A failure: over once nothing is in flight.
    for (std::size_t i = lo_; i < steps_.size(); ++i)
        if (steps_[i].state == running_ || steps_[i].state == polling || steps_[i].state == calling)
            return false;
    return true;
}

void sched::complete() noexcept {
    if (end_fn_) (void)end_fn_(*this, end_arg_);
    request* r = req_;
    req_ = nullptr;
    status st = result_;
    if (st == status::ok && mismatch_) st = status::truncated;
    // Ready for the next start now, not in MPI_Start: there the first
    // sends should leave as early as they can.
    reset();
    r->result = st;
    request_complete(r);  // may delete this (a nonblocking request owned it)
}

void sched::reset() noexcept {
    for (rec& s : steps_) {
        s.state = waiting;
        s.req = nullptr;
    }
    lo_ = 0;
    hi_ = 0;
    result_ = status::ok;
    mismatch_ = false;
    stop_ = false;
}

void sched::start(request* r) noexcept {
    // Every step is waiting: since building, or reset by complete().
    req_ = r;
    r->src_rank = MPI_ANY_SOURCE;
    r->tag = MPI_ANY_TAG;
    r->bytes = 0;
    const bool nested = g_polling;
    g_polling = true;
    if (start_fn_) (void)start_fn_(*this, start_arg_);
    poll(true);
    g_polling = nested;
    if (over()) {
        complete();
        return;
    }
    prev_ = g_tail;
    next_ = nullptr;
    (g_tail ? g_tail->next_ : g_head) = this;
    g_tail = this;
    ++g_dev.sched_active;
}

int sched_progress() noexcept {
    if (g_polling) return 0;
    g_polling = true;
    int changed = 0;
    for (sched* s = g_head; s;) {
        sched* next = s->next_;
        changed += s->poll(false);
        if (s->over()) {
            (s->prev_ ? s->prev_->next_ : g_head) = s->next_;
            (s->next_ ? s->next_->prev_ : g_tail) = s->prev_;
            --g_dev.sched_active;
            s->complete();  // may delete s (the request owned it and was released)
        }
        s = next;
    }
    g_polling = false;
    return changed;
}

void wait(request* r) noexcept {
    const auto cw = crowd(r->c ? r->c->size : 1);
    unsigned idle = 0, k = 0;
    while (r->cc != 0) {
        // Schedules first: a small message of theirs at the head of a ring
        // is then taken from there (sched::take), before the transports'
        // poll queues it as unexpected. And four schedule polls per
        // transport poll: the schedule's own receives are found sooner.
        // Only a poll that reached the transports and found nothing counts
        // as idle: counting the schedule-only ones made a crowded wait
        // (crowd_wait) yield its core three times per transport poll,
        // which tripled a 4-rank MPI_Iallreduce of 512 KiB on 2 cores.
        int n = g_dev.sched_active ? sched_progress() : 0;
        if (r->cc == 0) break;
        const bool transports = (++k & 3) == 0 || (n == 0 && g_dev.sched_active == 0);
        if (transports) n += progress_transports();
        if (n != 0)
            idle = 0;
        else if (transports)
            idle_step(idle);
    }
}

request* coll_request(comm& c) noexcept {
    request* r = request_alloc(req_kind::coll, 1);
    if (r) r->c = &c;
    return r;
}

status launch(std::unique_ptr<sched> s, request*& out) noexcept {
    if (const status st = s->commit(); st != status::ok) return st;
    request* r = coll_request(s->owner());
    if (!r) return status::no_mem;
    sched* p = s.release();
    r->ext = p;
    out = r;
    p->start(r);
    return status::ok;
}

status run(sched& s) noexcept {
    if (const status st = s.commit(); st != status::ok) return st;
    request* r = coll_request(s.owner());
    if (!r) return status::no_mem;
    s.start(r);
    coll::wait(r);
    const status st = r->result;
    request_release(r);
    return st;
}

}  // namespace ch4lite::coll
