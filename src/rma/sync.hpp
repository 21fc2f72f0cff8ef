// SPDX-License-Identifier: MIT
// Passive-target and PSCW epochs inside the RMA layer (docs/rma-passive.md):
// what origin.cpp, queue.cpp, fence.cpp and target.cpp need of them.
//
// In such an "async" epoch an operation on a node peer is done at the call
// (its memory mapped, or by cross-memory attach, accumulates under its
// accumulate lock), so the target never has to act. Anything else (peers
// the netmod reaches, dynamic windows, a node without CMA) becomes records
// in the target's batch as in a fence epoch, but a batch leaves as soon as
// it is full (or at a flush, unlock, complete, or for a request-based
// operation at once), marked bf_async so no fence counts it; the first
// one to a target carries the lock request, the last one the unlock and
// the request for an acknowledgement.
#pragma once
#include <atomic>
#include <cstdint>

#include "rma/rma.hpp"
#include "rma/win.hpp"
#include "rma/wire.hpp"

namespace ch4lite::rma {

// Bits of win::async.
inline constexpr uint8_t async_lock = 1u << 0;   // Win_lock / Win_lock_all
inline constexpr uint8_t async_start = 1u << 1;  // Win_start

// ---- lock words (node_slot::lockw, or win::local_lockw)

// The lock word of target t that this process may take itself: a node
// peer's (its slot) or our own; nullptr when t is reached by message.
inline uint64_t* lock_word(win& w, int t) noexcept {
    if (node_slot* s = w.slot_of[static_cast<std::size_t>(t)]) return &s->lockw;
    return t == w.rank() ? &w.local_lockw : nullptr;
}
inline uint64_t* my_lock_word(win& w) noexcept {
    return w.my_slot ? &w.my_slot->lockw : &w.local_lockw;
}

inline bool lock_try(uint64_t* word, uint8_t type) noexcept {
    std::atomic_ref<uint64_t> a(*word);
    if (type == lk_excl) {
        uint64_t zero = 0;
        return a.compare_exchange_strong(zero, lock_excl, std::memory_order_acquire,
                                         std::memory_order_relaxed);
    }
    if (a.load(std::memory_order_relaxed) & lock_excl) return false;
    if (!(a.fetch_add(1, std::memory_order_acquire) & lock_excl)) return true;
    a.fetch_sub(1, std::memory_order_relaxed);
    return false;
}

inline void lock_release(uint64_t* word, uint8_t type) noexcept {
    std::atomic_ref<uint64_t> a(*word);
    if (type == lk_excl)
        a.fetch_and(~lock_excl, std::memory_order_release);
    else
        a.fetch_sub(1, std::memory_order_release);
}

// ---- origin side

// The first message-path operation to t in this async epoch: records the
// target (win::touched) and, under lock_all, its lock.
void touch(win& w, int t) noexcept;

// Header flags of the next message to t in an async epoch: bf_async, and
// the lock request with the first one.
uint16_t async_flags(win& w, int t) noexcept;

// Sends what is queued for t now, the last message carrying `extra`
// (bf_ack, bf_unlock, bf_complete); with nothing queued and extra set, a
// bare message. Counts a bf_ack in tsync[t].acks.
status async_send(win& w, int t, uint16_t extra) noexcept;

// Async-epoch operations that the direct fast paths did not take
// (origin_async.cpp): self, node peers by mapping or CMA, or records.
status async_put(win& w, const buf_spec& o, const target_spec& ts, uint64_t total) noexcept;
status async_get(win& w, const buf_spec& o, const target_spec& ts, uint64_t total) noexcept;
status async_acc(win& w, const buf_spec& o, const target_spec& ts, dev::op_id op,
                 uint64_t total) noexcept;
status async_getacc(win& w, const buf_spec& o, const buf_spec& r, const target_spec& ts,
                    dev::op_id op, uint64_t total) noexcept;
status async_cas(win& w, const void* origin, const void* compare, void* result,
                 const dame::type* t, int rank, uint64_t disp) noexcept;

// Node peer t's memory can be reached without it: mapped, or by CMA.
inline bool node_reach(const win& w, int t) noexcept {
    const auto i = static_cast<std::size_t>(t);
    return w.direct_base[i] || w.cma_ok[i];
}

// Accumulate / get_accumulate (r: result, or null; o ignored for NO_OP) and
// compare-and-swap on a node peer's memory (node_ops.cpp), under its
// accumulate lock. status::again: CMA refused before anything changed
// (the caller sends records instead).
status node_acc(win& w, const buf_spec* o, const buf_spec* r, const target_spec& ts,
                dev::op_id op) noexcept;
status node_cas(win& w, const void* origin, const void* compare, void* result,
                const dame::type* t, int rank, uint64_t disp) noexcept;

// ---- target side (passive_target.cpp)

// An async batch from origin rank h.src of this epoch.
void handle_async(win& w, int src_world, const batch_hdr& h, const void* payload,
                  std::size_t plen) noexcept;
// An am_rma_ctl message.
void on_ctl(int src_world, const ctl_hdr& h) noexcept;
// Sends a control message to rank t of w.
status send_ctl(win& w, int t, uint8_t kind, uint32_t refused) noexcept;
// Lock requests of off-node origins waiting for our lock word: try again.
int retry_waiters(win& w) noexcept;

}  // namespace ch4lite::rma
