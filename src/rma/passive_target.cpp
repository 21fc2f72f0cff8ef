// SPDX-License-Identifier: MIT
// Target side of passive-target and PSCW epochs (docs/rma-passive.md,
// "Target side"): async batches, our lock on behalf of origins that reach
// us by message, control messages, and the progress hook.
//
// An origin that reaches us by message asks for our lock with its first
// message (bf_lock_sh / bf_lock_ex). We take our lock word for it as node
// peers take it for themselves (atomics on the same word); if it is busy,
// that origin's messages wait in win::from[origin].stash, in order, until
// the word is free: a remote holder's unlock retries at once, a node peer's
// release is noticed by the progress hook (device progress polls
// rma::hook while a request waits). Records are applied as in a fence;
// bf_unlock releases the word after them, bf_ack answers ctl_ack (with the
// number of records refused since the last one), bf_complete counts a PSCW
// access epoch that ended.
#include <algorithm>
#include <cstring>
#include <new>

#include "device/comm.hpp"
#include "device/device.hpp"
#include "rma/queue.hpp"
#include "rma/sync.hpp"
#include "rma/target.hpp"
#include "rma/win_internal.hpp"
#include "util/log.hpp"

namespace ch4lite::rma {

namespace {

// Windows with lock requests waiting (the progress hook's list).
std::vector<win*> g_waiting;

void note_waiting(win& w) noexcept {
    if (w.lock_waiters.empty()) {
        g_waiting.erase(std::remove(g_waiting.begin(), g_waiting.end(), &w), g_waiting.end());
    } else if (std::find(g_waiting.begin(), g_waiting.end(), &w) == g_waiting.end()) {
        try {
            g_waiting.push_back(&w);
        } catch (const std::bad_alloc&) {
            util::fatal("rma: out of memory queueing a lock request");
        }
    }
    if (g_waiting.empty())
        dev::g_dev.rma_poll &= ~poll_waiters;
    else
        dev::g_dev.rma_poll |= poll_waiters;
}

void stash(win& w, int src_world, const batch_hdr& h, const void* payload, std::size_t plen) noexcept {
    try {
        future_msg f{src_world, am_rma_batch, {}, {}};
        const auto* hb = reinterpret_cast<const std::byte*>(&h);
        f.hdr.assign(hb, hb + sizeof h);
        const auto* pb = static_cast<const std::byte*>(payload);
        f.payload.assign(pb, pb + plen);
        w.from[static_cast<std::size_t>(h.src)].stash.push_back(std::move(f));
    } catch (const std::bad_alloc&) {
        util::fatal("rma: out of memory keeping a %zu-byte message until its lock is free", plen);
    }
}

uint8_t lock_of(uint16_t flags) noexcept {
    return (flags & bf_lock_ex) ? lk_excl : (flags & bf_lock_sh) ? lk_shared : lk_none;
}

}  // namespace

status send_ctl(win& w, int t, uint8_t kind, uint32_t refused) noexcept {
    out_msg* m = msg_alloc(&w, w.lpid(t), am_rma_ctl);
    if (!m) return status::no_mem;
    const ctl_hdr h{w.comm->context_id, w.rank(), kind, {0, 0, 0}, refused};
    std::memcpy(m->hdr, &h, sizeof h);
    m->hlen = sizeof h;
    return post(m);
}

void handle_async(win& w, int src_world, const batch_hdr& h, const void* payload,
                  std::size_t plen) noexcept {
    origin_sync& o = w.from[static_cast<std::size_t>(h.src)];
    if (o.waiting) {  // behind its lock request, in order
        stash(w, src_world, h, payload, plen);
        return;
    }
    if (lock_of(h.flags) != lk_none && o.lock != lk_none)  // its previous epoch never released
        util::warn("rma: rank %d asks for a lock it still holds", h.src);
    if (const uint8_t want = lock_of(h.flags); want != lk_none && o.lock == lk_none) {
        if (!lock_try(my_lock_word(w), want)) {
            o.waiting = true;
            stash(w, src_world, h, payload, plen);
            try {
                w.lock_waiters.push_back(h.src);
            } catch (const std::bad_alloc&) {
                util::fatal("rma: out of memory queueing a lock request");
            }
            note_waiting(w);
            return;
        }
        o.lock = want;
    }
    if (h.flags & bf_grant) (void)send_ctl(w, h.src, ctl_grant, 0);
    if (!(h.flags & bf_bare)) {
        // Refusals of a passive-target access are answered to its origin
        // (ctl_ack); in a PSCW exposure epoch our Win_wait reports them too.
        const status err = w.error;
        const uint32_t before = w.refused;
        std::string text;
        if (!w.exposed) text.swap(w.error_text);
        if (!apply_batch(w, h.src, static_cast<const std::byte*>(payload), plen, h.nrec))
            util::warn("rma: malformed batch from rank %d", h.src);
        (void)replies_flush(w, h.src);
        o.refused += w.refused - before;
        if (!w.exposed) {
            w.error = err;
            w.error_text.swap(text);
        }
    }
    if ((h.flags & bf_unlock) && o.lock != lk_none) {
        lock_release(my_lock_word(w), o.lock);
        o.lock = lk_none;
        if (!w.lock_waiters.empty()) (void)retry_waiters(w);
    }
    if (h.flags & bf_complete) ++o.completes;
    if (h.flags & bf_ack) {
        (void)send_ctl(w, h.src, ctl_ack, o.refused);
        o.refused = 0;
    }
}

int retry_waiters(win& w) noexcept {
    int n = 0;
    while (!w.lock_waiters.empty()) {
        const int src = w.lock_waiters.front();
        origin_sync& o = w.from[static_cast<std::size_t>(src)];
        batch_hdr h;
        std::memcpy(&h, o.stash.front().hdr.data(), sizeof h);
        const uint8_t want = lock_of(h.flags);
        if (!lock_try(my_lock_word(w), want)) break;  // first come, first served
        o.lock = want;
        o.waiting = false;
        w.lock_waiters.erase(w.lock_waiters.begin());
        std::vector<future_msg> msgs;
        msgs.swap(o.stash);
        for (future_msg& f : msgs) {
            std::memcpy(&h, f.hdr.data(), sizeof h);
            handle_async(w, f.src, h, f.payload.data(), f.payload.size());
        }
        ++n;
    }
    note_waiting(w);
    return n;
}

void on_ctl(int src_world, const ctl_hdr& h) noexcept {
    win* w = by_context(h.ctx);
    if (!w || h.src < 0 || h.src >= w->nranks()) {
        util::warn("rma: control message %u for an unknown window or rank from rank %d", h.kind, src_world);
        return;
    }
    target_sync& t = w->tsync[static_cast<std::size_t>(h.src)];
    switch (h.kind) {
        case ctl_ack:
            if (t.acks) --t.acks;
            w->async_error += h.refused;
            return;
        case ctl_grant: t.granted = true; return;
        case ctl_post: ++t.posts; return;
        case ctl_remap: remap_now(*w); return;
        default: util::warn("rma: unknown control message %u from rank %d", h.kind, src_world);
    }
}

int hook() noexcept {
    static bool inside = false;  // no recursion through a send's progress
    if (inside) return 0;
    inside = true;
    int n = pump();
    if (!g_waiting.empty()) {
        win* ws[8];
        const std::size_t k = std::min<std::size_t>(g_waiting.size(), 8);  // the rest next time
        std::copy_n(g_waiting.begin(), k, ws);
        for (std::size_t i = 0; i < k; ++i) n += retry_waiters(*ws[i]);
    }
    inside = false;
    return n;
}

void forget_waiting(win* w) noexcept {
    w->lock_waiters.clear();
    note_waiting(*w);
}

}  // namespace ch4lite::rma
