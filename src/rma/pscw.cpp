// SPDX-License-Identifier: MIT
// General active-target synchronization (docs/rma-passive.md, "PSCW"):
// MPI_Win_post, start, complete, wait, test.
//
// Post sends each origin of its group a ctl_post (unless MPI_MODE_NOCHECK);
// start waits for one from each target of its group (unless NOCHECK), so
// an origin touches a target's memory only once the target posted. The
// operations of the access epoch go as in a passive-target epoch: at the
// call to node peers we reach, as bf_async records otherwise. Complete
// sends every target a message that ends the epoch (bf_complete, after the
// records, so it arrives after them), then waits until its own messages
// left and its gets' replies arrived. Wait (test) returns once every origin
// of the post group completed; a completion from an origin outside the
// group is MPI_ERR_RMA_SYNC there.
#include <algorithm>
#include <atomic>
#include <cstdio>

#include "rma/native.hpp"
#include "rma/progress.hpp"
#include "rma/queue.hpp"
#include "rma/rma.hpp"
#include "rma/sync.hpp"
#include "rma/win_internal.hpp"

namespace ch4lite::rma {

namespace {

// Every origin of the post group completed: consume one completion of
// each. A completion from an origin outside the group makes `bad`.
bool all_completed(win& w, status& s) noexcept {
    for (int o : w.post_group)
        if (w.from[static_cast<std::size_t>(o)].completes == 0) return false;
    for (int o : w.post_group) --w.from[static_cast<std::size_t>(o)].completes;
    w.exposed = false;
    s = status::ok;
    for (int o = 0; o < w.nranks(); ++o) {
        origin_sync& f = w.from[static_cast<std::size_t>(o)];
        if (f.completes == 0) continue;
        f.completes = 0;
        char text[160];
        std::snprintf(text, sizeof text,
                      "rank %d completed an access epoch to this process but is not in the group "
                      "of its MPI_Win_post", o);
        try {
            w.report = text;
        } catch (...) {
        }
        s = status::invalid;
    }
    if (s == status::ok && w.error != status::ok) {  // refusals in the exposure epoch
        s = w.error;
        w.report = w.error_text;
        w.error = status::ok;
        w.error_text.clear();
    }
    return true;
}

}  // namespace

status post(win& w, std::vector<int>&& group, int assert) noexcept {
    // Make our local stores visible before any origin may read them;
    // MPI_MODE_NOSTORE says there were none since the last synchronization.
    if (!(assert & MPI_MODE_NOSTORE)) std::atomic_thread_fence(std::memory_order_seq_cst);
    w.post_group = std::move(group);
    w.post_assert = assert;
    w.exposed = true;
    if (assert & MPI_MODE_NOCHECK) return status::ok;
    status result = status::ok;
    for (int o : w.post_group) {
        if (o == w.rank()) {
            ++w.tsync[static_cast<std::size_t>(o)].posts;
            continue;
        }
        const status s = send_ctl(w, o, ctl_post, 0);
        if (s != status::ok && result == status::ok) result = s;
    }
    return result;
}

status start(win& w, std::vector<int>&& group, int assert) noexcept {
    if (!w.async) {
        w.saved_access = w.access;
        w.saved_ops = w.ops;
        w.access = false;
    }
    w.async |= async_start;
    w.start_group = std::move(group);
    w.start_assert = assert;
    for (int t : w.start_group) {
        target_sync& s = w.tsync[static_cast<std::size_t>(t)];
        s.started = true;
        touch(w, t);
    }
    if (assert & MPI_MODE_NOCHECK) return status::ok;
    wait_until([&] {
        for (int t : w.start_group)
            if (w.tsync[static_cast<std::size_t>(t)].posts == 0) return false;
        return true;
    });
    for (int t : w.start_group) --w.tsync[static_cast<std::size_t>(t)].posts;
    return status::ok;
}

status complete(win& w) noexcept {
    status result = status::ok;
    if (w.nat_left) wait_until([&] { return native_step_async(w); });  // before the bf_complete
    for (int t : w.start_group) {
        if (t == w.rank()) {
            ++w.from[static_cast<std::size_t>(t)].completes;
            continue;
        }
        const status s = async_send(w, t, bf_complete);
        if (s != status::ok && result == status::ok) result = s;
    }
    wait_until([&] {
        if (w.inflight) return false;
        for (int t : w.start_group)
            if (w.tsync[static_cast<std::size_t>(t)].replies) return false;
        return true;
    });
    // Complete: a node peer's Win_create memory may go direct (win_remap.cpp).
    remap_steps(w, w.start_group);
    for (int t : w.start_group) {
        target_sync& s = w.tsync[static_cast<std::size_t>(t)];
        s.started = s.touched = s.sent = s.granted = false;
    }
    w.touched.clear();
    w.start_group.clear();
    w.async &= static_cast<uint8_t>(~async_start);
    if (!w.async) {
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
    if (result == status::ok && w.error != status::ok) {  // our gets' refused records
        result = w.error;
        w.report = w.error_text;
        w.error = status::ok;
        w.error_text.clear();
    }
    return result;
}

status wait(win& w) noexcept {
    status s = status::ok;
    (void)poll();  // what arrived counts, even with an empty group
    wait_until([&] { return all_completed(w, s); });
    return s;
}

bool test(win& w, status& s) noexcept {
    (void)poll();
    return all_completed(w, s);
}

}  // namespace ch4lite::rma
