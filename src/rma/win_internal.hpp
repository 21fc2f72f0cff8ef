// SPDX-License-Identifier: MIT
// What the RMA files share among themselves (not the API layer).
#pragma once
#include <atomic>
#include <cstdint>

#include "rma/win.hpp"

namespace ch4lite::rma {

// The window whose communicator has context id `ctx` (wire lookup).
win* by_context(uint32_t ctx) noexcept;

// Places the window's node members in one shared segment (collective over
// w->comm) when shm is on: their slots (epoch, accumulate lock, fence words)
// and, with `memory` (Win_allocate), their window memory; sets w->seg,
// slot_of, node_peers, all_node, and with memory w->base, direct_base and
// `shm_off` (index in the node). False: this rank has no node segment.
// Its buffers are w->node_scratch (node_scratch_bytes(n) for n members,
// allocated with the window's other per-peer state before any collective,
// so that running out of memory cannot strand the other members in one);
// it frees them.
// Layout: slots only (Win_create, dynamic), each member's memory on its own
// pages (Win_allocate, shared with alloc_shared_noncontig), or packed (a
// shared window: member r's memory follows member r-1's; all on one node,
// else false on every member).
enum class seg_layout { slots, paged, packed };
bool node_segment(win* w, seg_layout layout, int32_t& shm_off) noexcept;
std::size_t node_scratch_bytes(int n) noexcept;
// After the exchange: publishes that this rank is in epoch 0; decides for
// which node peers of a Win_create window cross-memory attach is used.
void map_node_peers(win* w) noexcept;

// Win_create memory node peers access directly (win_remap.cpp).
// remap_credit: we moved `bytes` to node peer t by CMA or message.
// remap_request: in a closing fence, before our arrivals: asks t to remap
// when the credit says so; true: t will be asked in this fence (our
// arrivals then carry sync_sender). remap_fence: once everybody arrived:
// remaps if asked, maps what the node peers we asked remapped.
// unmap_remapped: at destruction: unmaps the views and moves our pages back
// onto private memory.
inline void remap_credit(win& w, int t, uint64_t bytes) noexcept {
    w.remap_credit[static_cast<std::size_t>(t)] += bytes;
}
bool remap_request(win& w, int t) noexcept;
// Outside fences (passive target, PSCW): an origin credits every CMA
// access to node peer t with its bytes and the system call's cost
// (cma_credit); in a flush or unlock, remap_step maps t's memory once t
// published it, or asks t (ctl_remap) once the credit says so; t then
// remaps at once (remap_now), holding off node peers' CMA accesses
// (cma_pass) while it copies.
constexpr uint64_t cma_call_credit = uint64_t{16} << 10;
inline void cma_credit(win& w, int t, uint64_t bytes) noexcept {
    remap_credit(w, t, bytes + cma_call_credit);
}
void remap_step(win& w, int t) noexcept;
// remap_step for each of `targets` (a flush, unlock or Win_complete), for
// a Win_create window with node peers.
template <class Range>
void remap_steps(win& w, const Range& targets) noexcept {
    if (w.fl != flavor::create || !w.my_slot) return;
    for (int t : targets) remap_step(w, t);
}
void remap_now(win& w) noexcept;
// A CMA access to node peer t's window memory: counted in t's slot while
// under way; waits while t holds its memory for a remap.
void cma_enter(node_slot* s) noexcept;
class cma_pass {
  public:
    cma_pass(win& w, int t, bool cma = true) noexcept
        : s_(cma ? w.slot_of[static_cast<std::size_t>(t)] : nullptr) {
        if (s_) cma_enter(s_);
    }
    ~cma_pass() {
        if (s_) std::atomic_ref<uint32_t>(s_->inflight).fetch_sub(1, std::memory_order_release);
    }
    cma_pass(const cma_pass&) = delete;
    cma_pass& operator=(const cma_pass&) = delete;

  private:
    node_slot* s_;
};
void remap_fence(win& w) noexcept;
void unmap_remapped(win* w) noexcept;

// Target side of passive target: forget the lock requests of a window
// being freed (passive_target.cpp).
void forget_waiting(win* w) noexcept;

// Waits (with progress) until node peer t has left the previous fence.
void wait_epoch(win& w, int t) noexcept;

// Posts a bare message to off-node peer t: the final of this epoch with
// `total` counted messages (final), or the arrival without it (native.hpp).
status post_bare(win& w, int t, bool final, uint32_t total) noexcept;

// Fence words (node_slot::sync): every node peer adds, once per
// synchronizing fence, sync_arrive + the number of counted messages it sent
// to the slot's owner this epoch (+ sync_sender when it sent a counted
// message to anybody). Fields: messages in bits 0..39, senders 40..51,
// arrivals 52..63 (so at most sync_max_local members per node).
inline constexpr uint64_t sync_msgs_mask = (uint64_t{1} << 40) - 1;
inline constexpr uint64_t sync_sender = uint64_t{1} << 40;
inline constexpr uint64_t sync_arrive = uint64_t{1} << 52;
inline constexpr uint64_t sync_senders_mask = sync_arrive - sync_sender;
inline constexpr std::size_t sync_max_local = 4095;

// t may be accessed directly (or by CMA) in this epoch: it has applied
// everything of the previous one. Either the last fence told us so for
// every node peer (w.ready), or t published this epoch in its slot (it
// leaves a fence without our help: everything it needs from us was sent
// or counted before we left, so waiting for it cannot deadlock).
inline void reach_target(win& w, int t) noexcept {
    if (w.ready == w.epoch) return;
    const uint32_t e = std::atomic_ref<uint32_t>(w.slot_of[static_cast<std::size_t>(t)]->epoch)
                           .load(std::memory_order_acquire);
    if (__builtin_expect(e != w.epoch, 0)) wait_epoch(w, t);
}

// Direct access (node segment): t's memory for an operation of this epoch,
// or null when t is not in our segment or already has queued operations
// this epoch (order per target).
inline std::byte* direct_target(win& w, int t) noexcept {
    std::byte* b = w.direct_base[static_cast<std::size_t>(t)];
    if (!b || w.tq[static_cast<std::size_t>(t)].active) return nullptr;
    reach_target(w, t);
    return b;
}

// Split puts (docs/rma.md, "Split single copy") gain nothing between two
// ranks that put to each other in one epoch: both cores copy anyway, and
// each pull costs a round trip. A rank that sees, in one epoch, both its
// own split put to a peer and that peer's pull request stops splitting to
// it for the next split_hold epochs (the peer sees the same and does
// likewise; a shorter hold would make the two alternate).
inline constexpr uint32_t split_hold = 256;

// Records a split put to `peer` (ours) or its pull request (!ours) in this epoch.
inline void split_seen(win& w, int peer, bool ours) noexcept {
    win::split_state& s = w.splits[static_cast<std::size_t>(peer)];
    const uint32_t e = w.epoch + 1;
    (ours ? s.split : s.pulled) = e;
    if (s.split == e && s.pulled == e) s.hold_until = w.epoch + split_hold;
}

// We may split a put to `peer` in this epoch.
inline bool split_ok(const win& w, int peer) noexcept {
    return static_cast<int32_t>(w.epoch - w.splits[static_cast<std::size_t>(peer)].hold_until) >= 0;
}

// Accumulate lock of a node member's memory (null slot: private memory, no lock).
class slot_lock {
  public:
    explicit slot_lock(node_slot* s) noexcept : s_(s) {
        if (!s_) return;
        std::atomic_ref<uint32_t> l(s_->lock);
        while (l.exchange(1, std::memory_order_acquire))
            while (l.load(std::memory_order_relaxed)) __builtin_ia32_pause();
    }
    ~slot_lock() {
        if (s_) std::atomic_ref<uint32_t>(s_->lock).store(0, std::memory_order_release);
    }
    slot_lock(const slot_lock&) = delete;
    slot_lock& operator=(const slot_lock&) = delete;

  private:
    node_slot* s_;
};

}  // namespace ch4lite::rma
