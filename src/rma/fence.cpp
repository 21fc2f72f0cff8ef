// SPDX-License-Identifier: MIT
// MPI_Win_fence and the arrival of RMA messages (docs/rma.md, "Fence").
//
// Closing fence of epoch e at rank r:
//   1. post every queued message, in order per target; the last one to an
//      off-node target carries bf_final and the number of counted messages
//      sent there; every other off-node peer gets a bare final (counts
//      piggybacked on the data, one message per pair when there is data).
//      A node peer (same window segment) instead gets one atomic add to its
//      slot's fence word: arrival + counted messages (+ "I sent messages"),
//      after r's direct accesses and after r posted its messages to it;
//      A target of native puts / gets (native.hpp) gets a bare arrival
//      instead; they go once its own final or arrival is in, and its final
//      once they completed;
//   2. progress until every off-node peer's final and every node peer's
//      arrival is in, everything announced was applied, every reply arrived
//      and every message left;
//   3. e+1 starts; messages of e+1 that arrived early are applied now.
// No barrier: a rank leaves as soon as its own conditions hold. A peer
// that left already may send e+1 messages to a rank still in e; those wait
// in win::future. MPI_MODE_NOPRECEDE (nothing to close) skips all of it.
//
// Fence words are per parity of w.gen (synchronizing fences). A node peer
// adds to sync[g & 1] of my slot at fence g; I clear it when I leave fence
// g, before I add to anybody's word for fence g + 1; nobody can add for
// fence g + 2 before it has seen my arrival of fence g + 1. So a word
// never mixes two fences.
#include <mpi.h>

#include <atomic>
#include <cstring>
#include <new>

#include "device/comm.hpp"
#include "rma/native.hpp"
#include "rma/progress.hpp"
#include "rma/queue.hpp"
#include "rma/rma.hpp"
#include "rma/sync.hpp"
#include "rma/target.hpp"
#include "rma/win_internal.hpp"
#include "rma/wire.hpp"
#include "util/log.hpp"

namespace ch4lite::rma {

namespace {

// The fence word of the current synchronizing fence in my slot.
std::atomic_ref<uint64_t> my_word(win& w) noexcept {
    return std::atomic_ref<uint64_t>(w.my_slot->sync[w.gen & 1]);
}

bool fence_done(win& w, uint64_t& word) noexcept {
    uint64_t node_msgs = 0;
    if (w.my_slot) {
        word = my_word(w).load(std::memory_order_acquire);
        if (word / sync_arrive != w.node_peers.size()) return false;
        node_msgs = word & sync_msgs_mask;
    }
    const auto offnode = static_cast<uint32_t>(w.nranks() - 1 - static_cast<int>(w.node_peers.size()));
    return w.finals == offnode && w.received == w.expected + node_msgs && w.pending_resp == 0 &&
           w.inflight == 0;
}

bool node_peer(const win& w, int t) noexcept {
    return w.my_slot && w.slot_of[static_cast<std::size_t>(t)];
}

// What a message to a node peer adds to its remap credit: its bytes, and
// 1 KiB per record (win_remap.cpp).
uint64_t msg_credit(const out_msg& m) noexcept {
    uint64_t c = 0;
    for (int k = 0; k < m.niov; ++k) c += m.iov[k].len;
    if (m.handler == am_rma_batch && m.hlen >= sizeof(batch_hdr)) {
        batch_hdr h;
        std::memcpy(&h, m.hdr, sizeof h);
        c += uint64_t{1024} * h.nrec;
    }
    return c;
}

// Step 1. Every off-node peer gets exactly one final, every node peer one
// add to its fence word. `sent`: this rank sent counted messages this epoch.
status issue(win& w, bool& sent) noexcept {
    status result = status::ok;
    const int me = w.rank();
    sent = false;
    for (int t : w.active) {
        if (t == me) continue;
        status s = batch_cut(w, t);
        target_q& q = w.tq[static_cast<std::size_t>(t)];
        out_msg* last = nullptr;
        for (out_msg* m = q.msgs.front(); m; m = q.msgs.next(m)) last = m;
        if (last && !node_peer(w, t) && !q.native) {  // else: the final after them
            batch_hdr h;
            std::memcpy(&h, last->hdr, sizeof h);
            h.flags |= bf_final;
            h.total = q.counted;
            std::memcpy(last->hdr, &h, sizeof h);
        }
        sent = sent || q.counted;
        const bool credit = w.fl == flavor::create && node_peer(w, t);
        while (out_msg* m = q.msgs.pop_front()) {
            if (credit) remap_credit(w, t, msg_credit(*m));
            const status ps = post(m);
            if (s == status::ok) s = ps;
        }
        if (q.native && s == status::ok) s = post_bare(w, t, false, 0);
        if (s != status::ok && result == status::ok) result = s;
    }
    for (int t = 0; t < w.nranks(); ++t) {
        if (t == me || node_peer(w, t)) continue;
        const target_q& q = w.tq[static_cast<std::size_t>(t)];
        if (q.active && (q.counted || q.native)) continue;
        const status s = post_bare(w, t, true, 0);
        if (s != status::ok && result == status::ok) result = s;
    }
    // Remap requests (win_remap.cpp) before any arrival: a node peer that
    // sees one of our arrivals must see all of them. While one is pending
    // nobody may skip waiting for the target to publish the next epoch, so
    // they count as a message sent (no win::ready anywhere).
    if (w.fl == flavor::create)
        for (int t : w.node_peers) sent = remap_request(w, t) || sent;
    // Release: my direct accesses and the posting of my messages come first.
    // A target counts messages that are still in the back-pressure FIFO as
    // expected and waits for them.
    const uint64_t mine = sync_arrive + (sent ? sync_sender : 0);
    for (int t : w.node_peers) {
        const target_q& q = w.tq[static_cast<std::size_t>(t)];
        std::atomic_ref<uint64_t>(w.slot_of[static_cast<std::size_t>(t)]->sync[w.gen & 1])
            .fetch_add(mine + (q.active ? q.counted : 0), std::memory_order_release);
    }
    return result;
}

void handle_batch(win& w, int src_world, const batch_hdr& h, const void* payload,
                  std::size_t plen) noexcept;

// Step 3. `ready`: every node peer has applied everything of the epoch
// that ends (see win::ready).
void advance(win& w, bool ready) noexcept {
    ++w.epoch;
    w.ready = ready ? w.epoch : ~0u;
    w.received = w.expected = w.finals = 0;
    w.ops = 0;
    w.nat.clear();
    w.error = status::ok;
    w.error_text.clear();
    for (int t : w.active) {
        target_q& q = w.tq[static_cast<std::size_t>(t)];
        q.active = false;
        q.counted = 0;
        q.direct = false;
        q.native = 0;
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
    // A passive-target message of an older epoch comes from an origin that
    // has not yet passed a MPI_MODE_NOPRECEDE fence we passed (nothing of
    // that epoch is left to order it against): applied now.
    if (h.epoch != w.epoch && !((h.flags & bf_async) && static_cast<int32_t>(h.epoch - w.epoch) < 0)) {
        if (static_cast<int32_t>(h.epoch - w.epoch) < 0) {
            util::warn("rma: dropping a message of a past epoch (%u, now %u)", h.epoch, w.epoch);
            return;
        }
        // An arriving message cannot be refused: without memory to keep it
        // the job ends, as for an unexpected point-to-point message.
        try {
            future_msg f{src_world, am_rma_batch, {}, {}};
            const auto* hb = reinterpret_cast<const std::byte*>(&h);
            f.hdr.assign(hb, hb + sizeof h);
            const auto* pb = static_cast<const std::byte*>(payload);
            f.payload.assign(pb, pb + plen);
            w.future.push_back(std::move(f));
        } catch (const std::bad_alloc&) {
            util::fatal("rma: out of memory keeping a %zu-byte message of the next epoch", plen);
        }
        return;
    }
    if (h.src < 0 || h.src >= w.nranks()) {
        util::warn("rma: dropping a message from an unknown origin %d", h.src);
        return;
    }
    if (h.flags & bf_async) {  // passive target or PSCW (passive_target.cpp)
        handle_async(w, src_world, h, payload, plen);
        return;
    }
    if (!(h.flags & bf_bare)) {
        if (!apply_batch(w, h.src, static_cast<const std::byte*>(payload), plen, h.nrec))
            util::warn("rma: malformed batch from rank %d", h.src);
        (void)replies_flush(w, h.src);
        ++w.received;
    }
    if (h.flags & (bf_final | bf_arrive)) w.entered[static_cast<std::size_t>(h.src)] = w.epoch;
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

status post_bare(win& w, int t, bool final, uint32_t total) noexcept {
    out_msg* m = msg_alloc(&w, w.lpid(t), am_rma_batch);
    if (!m) return status::no_mem;
    const auto flags = static_cast<uint16_t>(bf_bare | (final ? bf_final : bf_arrive));
    const batch_hdr h{w.comm->context_id, w.epoch, total, flags, 0, w.rank(), 0};
    std::memcpy(m->hdr, &h, sizeof h);
    m->hlen = sizeof h;
    return post(m);
}

void wait_epoch(win& w, int t) noexcept {
    // Until t reached our epoch. It may be further (a MPI_MODE_NOPRECEDE
    // fence it passed before our passive-target access to it): then it has
    // nothing of our epoch left to apply either.
    std::atomic_ref<uint32_t> e(w.slot_of[static_cast<std::size_t>(t)]->epoch);
    wait_until([&] { return static_cast<int32_t>(e.load(std::memory_order_acquire) - w.epoch) >= 0; });
}

status fence(win& w, int assert) noexcept {
    if (assert & MPI_MODE_NOPRECEDE) {
        // Nothing was issued anywhere in the epoch this fence closes (the
        // API checked our side): no counts to exchange. Peers may have
        // stored into their windows since the last fence, so direct
        // accesses wait for them to publish this epoch (w.ready cleared).
        advance(w, false);
        w.access = !(assert & MPI_MODE_NOSUCCEED);
        w.fence_assert = assert;
        return status::ok;
    }
    w.report.clear();
    // Split puts (origin.cpp): their targets must have read their halves, or
    // we must have written them, before we announce our arrival: a target
    // leaves the fence once every arrival is in.
    if (w.pulls) wait_until([&] { return w.pulls == 0; });
    bool sent = false;
    status s = issue(w, sent);
    uint64_t word = 0;
    // Native puts and gets go once their target entered this fence; the
    // finals they hold back follow their completion (native.hpp).
    wait_until([&] { return (w.nat_left == 0 || native_step(w)) && fence_done(w, word); });
    if (s == status::ok && w.error != status::ok) {
        s = w.error;
        w.report = w.error_text;
    }
    // Nobody accesses our memory until we publish the next epoch (node
    // peers do not skip that wait in a fence with a remap request): remap
    // it if asked, map what the node peers we asked remapped.
    if (w.fl == flavor::create && w.my_slot) remap_fence(w);
    // Every node peer arrived; if the window is all on this node and nobody
    // sent a message, every member has nothing left to apply of this epoch.
    const bool ready = w.all_node && !sent && !(word & sync_senders_mask);
    if (w.my_slot) my_word(w).store(0, std::memory_order_relaxed);
    ++w.gen;
    advance(w, ready);
    w.access = !(assert & MPI_MODE_NOSUCCEED);
    w.fence_assert = assert;
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
        case am_rma_ctl: {
            ctl_hdr h;
            if (!load(h, hdr, hlen)) break;
            on_ctl(src, h);
            return;
        }
        default: break;
    }
    util::warn("rma: dropping active message %u from rank %d (%zu header bytes)", handler, src, hlen);
}

}  // namespace ch4lite::rma
