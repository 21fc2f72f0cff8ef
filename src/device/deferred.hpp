// SPDX-License-Identifier: MIT
// Back-pressure: when a netmod answers `again`, the operation is queued here
// (FIFO, so later operations never overtake it) and retried by progress().
// Nothing is dropped and nothing blocks inside a netmod call.
#pragma once
#include <cstddef>
#include <cstdint>

#include "device/request.hpp"

namespace ch4lite::dev {

enum deferred_op : uint8_t {
    dop_none = 0,
    dop_native_isend,  // r: send request (native tagged)
    dop_native_irecv,  // r: receive request (native tagged)
    dop_am_eager,      // r: send request, eager AM
    dop_am_rts,        // r: send request, rendezvous RTS
    dop_am_data,       // r: child request of a rendezvous send
    dop_am_ctrl,       // r: internal request holding a small header (ctrl_hdr)
    dop_native_rts,    // r: send request, native tagged RTS (device/typed.hpp)
    dop_native_tdata,  // r: child of a send request, the tagged data after an RTS
    dop_native_irecvv, // r: typed receive request, scattered into its buffer (irecvv)
    dop_native_tchunk, // r: child of a receive request, one tagged data chunk (typed.hpp)
};

// Queues r with `op`; returns status::in_progress (the operation started).
status defer(request* r, deferred_op op) noexcept;

// A control message (header only, <= 40 bytes) sent without a request when
// the transport can take it at once, else queued on an internal request.
status send_ctrl(int peer, uint8_t handler, const void* hdr, std::size_t hlen) noexcept;

}  // namespace ch4lite::dev
