// SPDX-License-Identifier: MIT
// Point-to-point over active messages: the fallback used when the netmod has
// no native tagged messaging (or the build forces it), and by shared memory.
//   eager       one AM with the payload; unexpected ones are buffered
//   rendezvous  RTS -> (match) -> CTS -> DATA chunks, a window in flight;
//               data lands straight in the user's buffer
//   Ssend       eager + SYNC_ACK when matched (rendezvous is synchronous)
#pragma once
#include <cstddef>

#include "device/am.hpp"
#include "device/request.hpp"

namespace ch4lite::dev {

status am_isend(request* r) noexcept;   // r: send request, fields set
status am_irecv(request* r) noexcept;   // r: receive request, fields set
// Probe the unexpected queue; fills r-like info when found.
bool am_iprobe(uint32_t ctx, int rank, int tag, int& src_rank, int& src_tag,
               std::size_t& bytes) noexcept;
bool am_cancel_recv(request* r) noexcept;

// Issue (or re-issue, from the deferred queue) the AM of a send request.
status am_start_eager(request* r) noexcept;
status am_start_rts(request* r) noexcept;
status am_start_data(request* child) noexcept;
// Rendezvous sender: send more chunks while the window allows.
void rndv_pump(request* sreq) noexcept;

// Handlers (called from dev::am_dispatch).
void am_on_eager(int src, const eager_hdr& h, const void* payload, std::size_t len) noexcept;
void am_on_rts(int src, const rts_hdr& h) noexcept;
void am_on_cts(const cts_hdr& h) noexcept;
void am_on_data(const data_hdr& h, const void* payload, std::size_t len) noexcept;
void am_on_sync_ack(const sync_ack_hdr& h) noexcept;

}  // namespace ch4lite::dev
