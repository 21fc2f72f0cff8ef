// SPDX-License-Identifier: MIT
// The RMA layer's entry points (docs/rma.md). The API layer (src/api/win_*,
// rma_*) checks every argument it can — handles, ranks, ranges against the
// target's exchanged window size, datatypes, ops, epoch state — and calls
// these with valid input; they report only what happens at run time.
//
// Operations are queued: put and accumulate data is packed into the
// target's batch when the call is made (large contiguous puts are sent zero
// copy instead), gets reserve a reply slot, and everything leaves at the
// closing fence, aggregated per target. target == self is applied at once.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "device/op.hpp"
#include "rma/win.hpp"
#include "util/handle_table.hpp"
#include "util/status.hpp"

namespace ch4lite::dame {
class type;
}

namespace ch4lite::rma {

namespace detail {
extern util::handle_table<win, util::handle_kind::win> g_wins;  // win.cpp
}

// ---- windows (collective over c)
status win_create(void* base, uint64_t size, int64_t disp_unit, dev::comm& c, win*& out) noexcept;
status win_allocate(uint64_t size, int64_t disp_unit, dev::comm& c, void*& base,
                    win*& out) noexcept;
// Win_allocate_shared: every member on this node (else status::unsupported
// on every member); the members' memory contiguous in rank order, or each
// on its own pages with `noncontig`.
status win_allocate_shared(uint64_t size, int64_t disp_unit, bool noncontig, dev::comm& c,
                           void*& base, win*& out) noexcept;
status win_create_dynamic(dev::comm& c, win*& out) noexcept;
// Dynamic windows: status::invalid when the region overlaps an attached one
// (attach) or is not attached (detach).
status attach(win& w, void* base, uint64_t size) noexcept;
status detach(win& w, const void* base) noexcept;
// Waits for the window's traffic to drain, synchronizes the members, frees.
status win_free(win* w) noexcept;
// nullptr for MPI_WIN_NULL, freed and garbage handles.
inline win* lookup(uintptr_t handle) noexcept { return detail::g_wins.lookup(handle); }

// ---- fence. Errors: a peer accessed outside this window (status::range,
// w.target_error_text says who and where), or a transport failure.
status fence(win& w, int assert) noexcept;

// ---- passive target (passive.cpp; the API checked the epoch rules).
// type: lk_shared / lk_excl. Errors of flush and unlock: targets refused
// accesses (status::range, w.report), or a transport failure.
status lock(win& w, int type, int rank, int assert) noexcept;
status unlock(win& w, int rank) noexcept;
status lock_all(win& w, int assert) noexcept;
status unlock_all(win& w) noexcept;
status flush(win& w, int rank, bool local) noexcept;
status flush_all(win& w, bool local) noexcept;
void win_sync(win& w) noexcept;

// ---- PSCW (pscw.cpp): groups as ranks of the window's communicator.
// wait / test: status::invalid when an origin outside the post group
// completed an epoch to us (w.report says who).
status post(win& w, std::vector<int>&& group, int assert) noexcept;
status start(win& w, std::vector<int>&& group, int assert) noexcept;
status complete(win& w) noexcept;
status wait(win& w) noexcept;
bool test(win& w, status& s) noexcept;

// ---- request-based operations: the API sets w.req to the request around
// the operation's call (its parts complete it), then calls this, which
// sends the target's queued records now.
status request_issued(win& w, int rank) noexcept;

// Work that needs polling outside RMA calls (device progress calls it
// while dev::g_dev.rma_poll is set): queued messages, lock requests.
int hook() noexcept;

// ---- operations: (buf, count, type) on the origin; target rank in the
// window's communicator, byte displacement (disp * disp_unit), count, type.
struct target_spec {
    int rank;
    uint64_t disp;  // bytes from the target's base
    int64_t count;
    const dame::type* t;
    bool in_range = false;  // the caller checked that it lies inside t's window
};
struct buf_spec {
    const void* buf;
    int64_t count;
    const dame::type* t;
};

status put(win& w, const buf_spec& o, const target_spec& t) noexcept;
status get(win& w, const buf_spec& o, const target_spec& t) noexcept;
status accumulate(win& w, const buf_spec& o, const target_spec& t, dev::op_id op) noexcept;
// r: the result buffer; o is ignored for MPI_NO_OP.
status get_accumulate(win& w, const buf_spec& o, const buf_spec& r, const target_spec& t,
                      dev::op_id op) noexcept;
status compare_and_swap(win& w, const void* origin, const void* compare, void* result,
                        const dame::type* t, int rank, uint64_t disp) noexcept;

// Pool objects in use (tests, leak checks): reply slots and messages.
uint32_t ops_in_use() noexcept;
uint32_t msgs_in_use() noexcept;

// Upcall from dev::am_dispatch for handlers am_rma_first..am_rma_last.
void am_dispatch(int src, uint8_t handler, const void* hdr, std::size_t hlen,
                 const void* payload, std::size_t plen) noexcept;

}  // namespace ch4lite::rma
