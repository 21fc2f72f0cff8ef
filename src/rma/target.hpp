// SPDX-License-Identifier: MIT
// Target side: applying records to the window's memory, and the replies.
// Every record is checked against the window before it touches memory
// (range, segment sums, element sizes, op/type); a refused record is
// counted like any other, its reply (if any) carries zeros and an error
// flag, and the first refusal is reported by this rank's next fence.
#pragma once
#include <cstddef>
#include <cstdint>

#include "rma/win.hpp"
#include "rma/wire.hpp"
#include "util/status.hpp"

namespace ch4lite::rma {

// Applies `nrec` records from origin comm rank `src`; replies are gathered in
// w.replies[src]. False when the payload is malformed (what was applied
// before stays applied).
bool apply_batch(win& w, int src, const std::byte* p, std::size_t n, uint32_t nrec) noexcept;
// Sends the replies gathered for `src` (for ourselves: delivers them).
status replies_flush(win& w, int src) noexcept;

// Origin side: replies arrived.
void on_replies(const std::byte* p, std::size_t n, uint32_t nrec) noexcept;
void on_reply_data(const resp_data_hdr& h, const void* data, std::size_t len) noexcept;

// Reply slot ids on the wire (pool index + generation).
uint32_t op_id_of(const op* o) noexcept;
op* op_from_id(uint32_t id) noexcept;

}  // namespace ch4lite::rma
