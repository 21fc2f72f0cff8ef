// SPDX-License-Identifier: MIT
// What the RMA files share among themselves (not the API layer).
#pragma once
#include <atomic>
#include <cstdint>

#include "rma/win.hpp"

namespace ch4lite::rma {

// The window whose communicator has context id `ctx` (wire lookup).
win* by_context(uint32_t ctx) noexcept;

// Win_allocate: places this rank's memory in a shared segment of its node
// (collective over w->comm) when shm is on; sets w->base/w->seg and
// `shm_off` (page index in the node segment). False: use private memory.
bool alloc_node_memory(win* w, int32_t& shm_off) noexcept;
// After the exchange: publishes that this rank is in epoch 0.
void map_node_peers(win* w) noexcept;

// Waits (with progress) until node peer t has left the previous fence.
void wait_epoch(win& w, int t) noexcept;

// Direct access (node segment): t's memory for an operation of this epoch,
// or null when t is not in our segment or already has queued operations
// this epoch (order per target). t must have finished the previous epoch
// (applied everything of it) before we touch its memory: it publishes its
// epoch when it leaves a fence, and it leaves without our help (everything
// it needs from us was sent before we left), so waiting for it is safe.
inline std::byte* direct_target(win& w, int t) noexcept {
    std::byte* b = w.direct_base[static_cast<std::size_t>(t)];
    if (!b || w.tq[static_cast<std::size_t>(t)].active) return nullptr;
    const uint32_t e = std::atomic_ref<uint32_t>(w.slot_of[static_cast<std::size_t>(t)]->epoch)
                           .load(std::memory_order_acquire);
    if (__builtin_expect(e != w.epoch, 0)) wait_epoch(w, t);
    return b;
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
