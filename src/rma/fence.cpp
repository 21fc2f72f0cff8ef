// SPDX-License-Identifier: MIT
// MPI_Win_fence and the arrival of RMA messages (docs/rma.md, "Fence").
//
// Closing fence of epoch e at rank r:
//   1. post every queued message, in order per target; the last one to each
//      target carries bf_final and the number of counted messages sent
//      there; every other peer gets a bare final (counts piggybacked on the
//      data, one message per pair when there is data);
//   2. progress until every peer's final arrived and everything announced
//      was applied, every reply arrived and every message left;
//   3. e+1 starts; messages of e+1 that arrived early are applied now.
// No barrier: a rank leaves as soon as its own conditions hold. A peer
// that left already may send e+1 messages to a rank still in e; those wait
// in win::future. MPI_MODE_NOPRECEDE (nothing to close) skips all of it.
#include <mpi.h>

#include <atomic>
#include <cstring>

#include "device/comm.hpp"
#include "rma/progress.hpp"
#include "rma/queue.hpp"
#include "rma/rma.hpp"
#include "rma/target.hpp"
#include "rma/win_internal.hpp"
#include "rma/wire.hpp"
#include "util/log.hpp"

namespace ch4lite::rma {

namespace {

bool fence_done(const win& w) noexcept {
    return w.finals + 1 == static_cast<uint32_t>(w.nranks()) && w.received == w.expected &&
           w.pending_resp == 0 && w.inflight == 0;
}

status post_bare_final(win& w, int t) noexcept {
    out_msg* m = msg_alloc(&w, w.lpid(t), am_rma_batch);
    if (!m) return status::no_mem;
    const batch_hdr h{w.comm->context_id, w.epoch, 0, bf_final | bf_bare, 0, w.rank(), 0};
    std::memcpy(m->hdr, &h, sizeof h);
    m->hlen = sizeof h;
    return post(m);
}

// Step 1. Every peer gets exactly one final.
status issue(win& w) noexcept {
    status result = status::ok;
    const int me = w.rank();
    for (int t : w.active) {
        if (t == me) continue;
        status s = batch_cut(w, t);
        target_q& q = w.tq[static_cast<std::size_t>(t)];
        out_msg* last = nullptr;
        for (out_msg* m = q.msgs.front(); m; m = q.msgs.next(m)) last = m;
        if (last) {
            batch_hdr h;
            std::memcpy(&h, last->hdr, sizeof h);
            h.flags |= bf_final;
            h.total = q.counted;
            std::memcpy(last->hdr, &h, sizeof h);
        }
        while (out_msg* m = q.msgs.pop_front()) {
            const status ps = post(m);
            if (s == status::ok) s = ps;
        }
        if (s != status::ok && result == status::ok) result = s;
    }
    for (int t = 0; t < w.nranks(); ++t) {
        if (t == me) continue;
        const target_q& q = w.tq[static_cast<std::size_t>(t)];
        if (q.active && q.counted) continue;
        const status s = post_bare_final(w, t);
        if (s != status::ok && result == status::ok) result = s;
    }
    return result;
}

void handle_batch(win& w, int src_world, const batch_hdr& h, const void* payload,
                  std::size_t plen) noexcept;

// Step 3.
void advance(win& w) noexcept {
    ++w.epoch;
    w.received = w.expected = w.finals = 0;
    w.ops = 0;
    w.error = status::ok;
    w.error_text.clear();
    for (int t : w.active) {
        target_q& q = w.tq[static_cast<std::size_t>(t)];
        q.active = false;
        q.counted = 0;
        q.direct = false;
    }
    w.active.clear();
    // Node peers may access our memory directly from now on (their
    // operations of the new epoch).
    if (w.my_slot)
        std::atomic_ref<uint32_t>(w.my_slot->epoch).store(w.epoch, std::memory_order_release);
    if (w.future.empty()) return;
    std::vector<future_msg> early;
    early.swap(w.future);
    for (future_msg& f : early) {
        batch_hdr h;
        std::memcpy(&h, f.hdr.data(), sizeof h);
        handle_batch(w, f.src, h, f.payload.data(), f.payload.size());
    }
}

void handle_batch(win& w, int src_world, const batch_hdr& h, const void* payload,
                  std::size_t plen) noexcept {
    if (h.epoch != w.epoch) {
        if (static_cast<int32_t>(h.epoch - w.epoch) < 0) {
            util::warn("rma: dropping a message of a past epoch (%u, now %u)", h.epoch, w.epoch);
            return;
        }
        future_msg f{src_world, am_rma_batch, {}, {}};
        const auto* hb = reinterpret_cast<const std::byte*>(&h);
        f.hdr.assign(hb, hb + sizeof h);
        const auto* pb = static_cast<const std::byte*>(payload);
        f.payload.assign(pb, pb + plen);
        w.future.push_back(std::move(f));
        return;
    }
    if (h.src < 0 || h.src >= w.nranks()) {
        util::warn("rma: dropping a message from an unknown origin %d", h.src);
        return;
    }
    if (!(h.flags & bf_bare)) {
        if (!apply_batch(w, h.src, static_cast<const std::byte*>(payload), plen, h.nrec))
            util::warn("rma: malformed batch from rank %d", h.src);
        (void)replies_flush(w, h.src);
        ++w.received;
    }
    if (h.flags & bf_final) {
        ++w.finals;
        w.expected += h.total;
    }
}

template <class H>
bool load(H& h, const void* hdr, std::size_t hlen) noexcept {
    if (hlen < sizeof h) return false;
    std::memcpy(&h, hdr, sizeof h);
    return true;
}

}  // namespace

void wait_epoch(win& w, int t) noexcept {
    std::atomic_ref<uint32_t> e(w.slot_of[static_cast<std::size_t>(t)]->epoch);
    wait_until([&] { return e.load(std::memory_order_acquire) == w.epoch; });
}

status fence(win& w, int assert) noexcept {
    if (assert & MPI_MODE_NOPRECEDE) {
        // Nothing was issued anywhere in the epoch this fence closes (the
        // API checked our side): no counts to exchange.
        advance(w);
        w.access = !(assert & MPI_MODE_NOSUCCEED);
        return status::ok;
    }
    status s = issue(w);
    wait_until([&w] { return fence_done(w); });
    if (s == status::ok && w.error != status::ok) {
        s = w.error;
        w.report = w.error_text;
    }
    advance(w);
    w.access = !(assert & MPI_MODE_NOSUCCEED);
    return s;
}

void am_dispatch(int src, uint8_t handler, const void* hdr, std::size_t hlen, const void* payload,
                 std::size_t plen) noexcept {
    switch (handler) {
        case am_rma_batch: {
            batch_hdr h;
            if (!load(h, hdr, hlen)) break;
            win* w = by_context(h.ctx);
            if (!w) {
                util::warn("rma: message for an unknown window (context %u) from rank %d", h.ctx, src);
                return;
            }
            handle_batch(*w, src, h, payload, plen);
            return;
        }
        case am_rma_resp: {
            resp_hdr h;
            if (!load(h, hdr, hlen)) break;
            on_replies(static_cast<const std::byte*>(payload), plen, h.nrec);
            return;
        }
        case am_rma_resp_data: {
            resp_data_hdr h;
            if (!load(h, hdr, hlen)) break;
            on_reply_data(h, payload, plen);
            return;
        }
        default: break;
    }
    util::warn("rma: dropping active message %u from rank %d (%zu header bytes)", handler, src, hlen);
}

}  // namespace ch4lite::rma
