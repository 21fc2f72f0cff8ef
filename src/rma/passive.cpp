// SPDX-License-Identifier: MIT
// Origin side of passive-target epochs (docs/rma-passive.md): MPI_Win_lock,
// unlock, lock_all, unlock_all, flush (local, all), Win_sync.
//
// Locks. A target whose lock word we can reach (a node peer: its slot in
// the window's node segment; ourselves) is locked at the call with atomics
// on that word, and operations on it are done at the call, so it never has
// to act. Any other target is locked lazily: the request travels with our
// first message to it (bf_lock_*), the release with the last (bf_unlock);
// a lock epoch without operations to it sends nothing at all.
//
// Completion. Operations done at the call are complete when it returns. For
// the others, a flush or unlock sends what is queued with bf_ack (to every
// target of a flush_all first, then waits for all the answers) and waits
// for the answer and for the replies of that target's gets; the answer
// counts the records the target refused (MPI_ERR_RMA_RANGE here). The local
// flushes send the same messages without asking for an answer and wait
// only until the messages left and the gets' data arrived.
#include <atomic>
#include <cstdio>
#include <string>

#include "rma/native.hpp"
#include "rma/progress.hpp"
#include "rma/queue.hpp"
#include "rma/rma.hpp"
#include "rma/sync.hpp"
#include "rma/win_internal.hpp"

namespace ch4lite::rma {

namespace {

void mark(win& w, int t) noexcept {
    target_sync& s = w.tsync[static_cast<std::size_t>(t)];
    if (!s.touched) {
        s.touched = true;
        w.touched.push_back(t);  // capacity reserved at creation: no allocation
    }
}

// Spins (with progress: a node peer we wait for may need nothing from us,
// but off-node origins' requests to us are served meanwhile) until our lock
// on t's word is taken.
void acquire(win& w, int t, uint8_t type) noexcept {
    uint64_t* lw = lock_word(w, t);
    if (!lock_try(lw, type)) wait_until([&] { return lock_try(lw, type); });
}

enum close_kind { ck_flush, ck_flush_local, ck_unlock };

// The report of refusals the targets answered, and of our gets' refused
// records (win::error), since the last report.
status report(win& w) noexcept {
    if (w.async_error == 0 && w.error == status::ok) return status::ok;
    const status s = w.error != status::ok ? w.error : status::range;
    char text[160];
    if (w.async_error)
        std::snprintf(text, sizeof text, "targets refused %u accesses outside their window%s%s",
                      w.async_error, w.error_text.empty() ? "" : "; ", w.error_text.c_str());
    try {
        w.report = w.async_error ? text : w.error_text;
    } catch (...) {
    }
    w.async_error = 0;
    w.error = status::ok;
    w.error_text.clear();
    return s;
}

// Completes everything issued to `targets` (each at most once).
template <class Range>
status close(win& w, const Range& targets, close_kind k) noexcept {
    status result = status::ok;
    // Native puts and gets to them: an unlock waits for them first (it must
    // not overtake them); a flush waits for them below, with the answers
    // to its messages.
    auto natives_done = [&] {
        (void)native_step_async(w);
        for (int t : targets)
            if (w.tq[static_cast<std::size_t>(t)].native) return false;
        return true;
    };
    if (w.nat_left && k == ck_unlock) wait_until(natives_done);
    for (int t : targets) {  // first send to all, then wait for all
        if (t == w.rank()) continue;  // applied at the call
        target_sync& s = w.tsync[static_cast<std::size_t>(t)];
        s.lone = s.window_ops <= 1;  // native_small (origin_async.cpp)
        s.window_ops = 0;
        const bool queued = !w.tq[static_cast<std::size_t>(t)].cur.empty();
        // Only records without a reply (puts, accumulates) need the target's
        // acknowledgement; gets, fetches and CAS are complete with their
        // reply, direct and CMA operations at the call, native ones when
        // their completion came.
        uint16_t extra = k != ck_flush_local && s.need_ack ? bf_ack : 0;
        // A lock we asked for by message is given back by message (no
        // answer needed: later requests to it travel behind it).
        // (The request may ride on this very message: queued records.)
        if (k == ck_unlock && s.lock != lk_none && !s.nocheck && !s.held && (s.lock_sent || queued))
            extra |= bf_unlock;
        if (!queued && !extra) continue;
        if (extra & bf_ack) s.need_ack = false;
        // A flush asks for the lock's grant with its message (the target
        // answers once it holds our lock): later lone small puts and gets
        // to it may then go by native RMA (origin_async.cpp, native_small).
        if (k != ck_unlock && s.lock != lk_none && !s.nocheck && !s.held && !s.granted && !s.grant_asked &&
            w.peers[static_cast<std::size_t>(t)].native) {
            s.grant_asked = true;
            extra |= bf_grant;
        }
        const status st = async_send(w, t, extra);
        if (st != status::ok && result == status::ok) result = st;
    }
    wait_until([&] {
        if (w.nat_left && !natives_done()) return false;
        if (k == ck_flush_local && w.inflight) return false;
        for (int t : targets) {
            const target_sync& s = w.tsync[static_cast<std::size_t>(t)];
            if (s.acks || s.replies) return false;
        }
        return true;
    });
    // Our direct stores are visible to whoever takes the lock after us
    // (the release below), or synchronizes with us otherwise.
    std::atomic_thread_fence(std::memory_order_seq_cst);
    // Everything to them is complete: a node peer's Win_create memory may
    // go from CMA to direct access here (win_remap.cpp).
    remap_steps(w, targets);
    if (k == ck_unlock)
        for (int t : targets) {
            target_sync& s = w.tsync[static_cast<std::size_t>(t)];
            if (s.held) lock_release(lock_word(w, t), s.lock);
            s.lock = lk_none;
            s.nocheck = s.held = s.lock_sent = s.granted = s.grant_asked = s.sent = s.need_ack = false;
        }
    // Always one poll, even when nothing was left to wait for, and after
    // our locks are given back: a process that spins on lock / op / unlock
    // of its own memory (done at the call) must still serve the other
    // origins' messages to it (MPICH rma/linked_list_fop: rank 2 polls its
    // own list element for the pointer rank 1's queued MPI_Fetch_and_op
    // writes), and a lock request waiting for our own exclusive lock must
    // get its chance before our next MPI_Win_lock takes the word again
    // (rma/linked_list with shm off starved rank 1 that way).
    (void)poll();
    const status r = report(w);
    return result != status::ok ? result : r;
}

void begin(win& w, uint8_t kind) noexcept {
    if (!w.async) {
        w.saved_access = w.access;
        w.saved_ops = w.ops;
        w.access = false;
    }
    w.async |= kind;
}

// The last async epoch closed: the fence state comes back, and no target
// stays marked (so the next fence epoch starts clean).
void end(win& w, uint8_t kind) noexcept {
    w.async &= static_cast<uint8_t>(~kind);
    if (w.async) return;
    for (int t : w.touched) w.tsync[static_cast<std::size_t>(t)].touched = false;
    w.touched.clear();
    for (int t : w.active) {
        target_q& q = w.tq[static_cast<std::size_t>(t)];
        q.active = false;
        q.counted = 0;
        q.native = 0;
    }
    w.active.clear();
    w.nat.clear();
    w.nat_left = 0;
    w.access = w.saved_access;
    w.ops = w.saved_ops;
}

// Removes t from win::touched (its epoch ended; lock_all keeps the others).
void untouch(win& w, int t) noexcept {
    target_sync& s = w.tsync[static_cast<std::size_t>(t)];
    if (!s.touched) return;
    s.touched = false;
    for (std::size_t i = 0; i < w.touched.size(); ++i)
        if (w.touched[i] == t) {
            w.touched[i] = w.touched.back();
            w.touched.pop_back();
            break;
        }
}

}  // namespace

void touch(win& w, int t) noexcept {
    target_sync& s = w.tsync[static_cast<std::size_t>(t)];
    if (s.touched) return;
    if (w.lock_all && s.lock == lk_none) {
        s.lock = w.lock_all_type;
        s.nocheck = w.lock_all_nocheck;
        s.lock_sent = s.nocheck;
    }
    mark(w, t);
}

uint16_t async_flags(win& w, int t) noexcept {
    uint16_t f = bf_async;
    target_sync& s = w.tsync[static_cast<std::size_t>(t)];
    if (s.lock != lk_none && !s.lock_sent) {
        f |= s.lock == lk_excl ? bf_lock_ex : bf_lock_sh;
        s.lock_sent = true;
    }
    return f;
}

status lock(win& w, int type, int t, int assert) noexcept {
    begin(w, async_lock);
    target_sync& s = w.tsync[static_cast<std::size_t>(t)];
    s.lock = static_cast<uint8_t>(type);
    s.nocheck = (assert & MPI_MODE_NOCHECK) != 0;
    s.lock_sent = s.nocheck;
    ++w.nlocked;
    mark(w, t);
    if (!s.nocheck && lock_word(w, t)) {
        acquire(w, t, s.lock);
        s.held = true;
        s.lock_sent = true;
    }
    return status::ok;
}

status unlock(win& w, int t) noexcept {
    const int one[1] = {t};
    const status s = close(w, one, ck_unlock);
    untouch(w, t);
    --w.nlocked;
    if (w.nlocked == 0 && !w.lock_all) end(w, async_lock);
    return s;
}

status lock_all(win& w, int assert) noexcept {
    begin(w, async_lock);
    w.lock_all = true;
    w.lock_all_type = lk_shared;
    w.lock_all_nocheck = (assert & MPI_MODE_NOCHECK) != 0;
    // Targets whose lock word we reach are locked now: their operations go
    // at the call without touch(). The others with their first message.
    auto now = [&](int t) {
        target_sync& s = w.tsync[static_cast<std::size_t>(t)];
        s.lock = lk_shared;
        s.nocheck = w.lock_all_nocheck;
        s.lock_sent = true;
        mark(w, t);
        if (s.nocheck) return;
        acquire(w, t, lk_shared);
        s.held = true;
    };
    now(w.rank());
    for (int t : w.node_peers) now(t);
    return status::ok;
}

status unlock_all(win& w) noexcept {
    const std::vector<int> all(w.touched);
    const status s = close(w, all, ck_unlock);
    for (int t : all) untouch(w, t);
    w.lock_all = false;
    if (w.nlocked == 0) end(w, async_lock);
    return s;
}

status flush(win& w, int t, bool local) noexcept {
    const int one[1] = {t};
    return close(w, one, local ? ck_flush_local : ck_flush);
}

status flush_all(win& w, bool local) noexcept {
    return close(w, w.touched, local ? ck_flush_local : ck_flush);
}

void win_sync(win& w) noexcept {
    // The unified model: our stores are visible, peers' stores become
    // visible to our loads. One poll serves requests that wait on us.
    std::atomic_thread_fence(std::memory_order_seq_cst);
    (void)w;
    (void)poll();
}

status request_issued(win& w, int t) noexcept {
    // The request's records leave now: its completion must not wait for a
    // flush (MPI_Wait on an MPI_Rget needs the reply).
    status s = status::ok;
    if (t != w.rank() && !w.tq[static_cast<std::size_t>(t)].cur.empty()) s = batch_cut(w, t);
    return s;
}

}  // namespace ch4lite::rma
