// SPDX-License-Identifier: MIT
// Origin-side batches: the records of the current epoch for one target are
// appended to its `cur` buffer; when the next record would not fit in one
// active message, `cur` is cut into an out_msg (kept in order in the
// target's queue) and a fresh buffer starts. The fence posts the messages
// (zero to many counted messages per target; the last carries the final).
#pragma once
#include <cstddef>
#include <cstdint>

#include "rma/win.hpp"
#include "util/status.hpp"

namespace ch4lite::rma {

// The payload room of one message to comm rank t (target_q::limit, which
// set_batch_limits fills in when the window is created).
inline std::size_t batch_limit(const win& w, int t) noexcept {
    return w.tq[static_cast<std::size_t>(t)].limit;
}
void set_batch_limits(win& w) noexcept;

// `need` bytes at the end of t's current batch (cutting it first when they
// do not fit); nullptr when out of memory. Lists t as active.
std::byte* batch_room(win& w, int t, std::size_t need) noexcept;
// The common small record: `need` bytes at the end of t's current batch
// when t is already active this epoch and they fit; else nullptr, and the
// caller goes batch_room's way (which may cut the batch first).
[[gnu::always_inline]] inline std::byte* batch_room_open(win& w, int t, std::size_t need) noexcept {
    target_q& q = w.tq[static_cast<std::size_t>(t)];
    if (!q.active || q.cur.size() + need > q.limit) return nullptr;
    std::byte* p = q.cur.grow(need);
    if (p) ++q.nrec;
    return p;
}
// Bytes still free in t's current batch (after cutting an empty-enough one
// if `at_least` does not fit).
std::size_t batch_free(win& w, int t, std::size_t at_least) noexcept;
// Turns t's current records into a counted message at the end of its queue.
status batch_cut(win& w, int t) noexcept;
// Appends an already built message (a zero-copy piece) after t's records.
status batch_append(win& w, int t, out_msg* m) noexcept;
// Sends m (one record) to t now, counted in this epoch, ahead of the
// closing fence; only while nothing is queued for t (!tq[t].active).
status batch_send_now(win& w, int t, out_msg* m) noexcept;

// Self target: applies what was queued for ourselves (accumulates and the
// like go through the same record code as remote ones).
status self_flush(win& w) noexcept;

}  // namespace ch4lite::rma
