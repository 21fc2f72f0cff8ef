// SPDX-License-Identifier: MIT
// What origin.cpp shares with the async-epoch operations (origin_async.cpp):
// range checks, the single copy by CMA, reply slots, and the record path.
#pragma once
#include <cstdint>

#include "rma/rma.hpp"
#include "rma/win.hpp"

namespace ch4lite::rma {

// The target range lies inside t's window (the API's check, or our own).
bool in_target_window(const win& w, const target_spec& ts) noexcept;

// One copy by cross-memory attach between o and ts in t's process; false
// when the kernel refuses (CMA is then off for t).
bool cma_copy(win& w, const buf_spec& o, const target_spec& ts, bool write, uint64_t total) noexcept;

// Bytes [off, off + n) of o's packed stream into dst.
void pack_origin(const buf_spec& o, uint64_t off, uint64_t n, std::byte* dst) noexcept;

// A reply slot for `expect` result bytes from `target` into r (counted in
// win::pending_resp and tsync[target].replies; completes win::req if set).
op* new_slot(win& w, const buf_spec& r, uint64_t expect, int target) noexcept;

struct rec_desc {
    uint8_t kind, flags, opv, basic;
    const buf_spec* data;  // origin data carried by the record, or null
    op* slot;              // reply slot, or null
    uint64_t esize;        // pieces end at multiples of it
};

// Appends the records covering target-stream bytes [start, total) of ts.
status encode(win& w, const rec_desc& d, const target_spec& ts, uint64_t total,
              uint64_t start = 0) noexcept;

// The message (record) path of each operation: what the target applies.
status put_msg(win& w, const buf_spec& o, const target_spec& ts, uint64_t total) noexcept;
status get_msg(win& w, const buf_spec& o, const target_spec& ts, uint64_t total) noexcept;
status cas_msg(win& w, const void* origin, const void* compare, void* result,
               const dame::type* t, int rank, uint64_t disp) noexcept;

}  // namespace ch4lite::rma
