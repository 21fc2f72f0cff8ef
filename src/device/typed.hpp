// SPDX-License-Identifier: MIT
// Noncontiguous datatypes on the wire (docs/ddt-wire.md). The API calls
// isend_typed / irecv_typed only when a buffer is not one contiguous byte
// range; contiguous messages never come here. A typed request keeps the
// user's buffer, the retained type and the count; the wire always carries
// the packed stream, so sender and receiver types only need the same
// signature.
//   AM path (device matching: shm, netmod AMs)
//     eager: the sender packs into the shm ring (or hands few segments to
//     the netmod as a payload IOV, else packs into a pooled buffer); the
//     receiver unpacks from the cell / AM buffer / unexpected buffer.
//     rendezvous: DATA chunks packed and unpacked per chunk (pack_range /
//     unpack_range at the chunk's stream offset): window x chunk bytes.
//     CMA: a contiguous sender's buffer is read straight into the typed
//     receive buffer's segments (dame::to_iov, bounded batches).
//   native tagged path
//     <= ddt_pack_max: packed into a pooled buffer, one tagged message; a
//     typed receive posts a bounce buffer and unpacks at completion, unless
//     its layout has at most the netmod's tagged_iov_max() segments
//     averaging >= CH4LITE_DDT_IOV_SEG_MIN bytes: then a scatter receive
//     (irecvv) straight into the user's buffer. The wire carries the same
//     packed stream either way.
//     larger (and contiguous messages above tagged_rndv_min): a 0-byte
//     tagged RTS whose CQ data carries (size, sender request); whoever
//     matches it answers CTS over AM and the data follows as one tagged
//     message (both buffers contiguous), as tagged chunks (else; below), or
//     as AM chunks (tdata_chunk 0).
#pragma once
#include <cstddef>
#include <cstdint>

#include "device/request.hpp"
#include "netmod/netmod.hpp"

namespace ch4lite::dev {

class comm;

status isend_typed(uint32_t ctx, const void* buf, const dame::type& t, int64_t count,
                   std::size_t bytes, comm& c, int rank, int tag, bool sync,
                   request*& out) noexcept;
status irecv_typed(uint32_t ctx, void* buf, const dame::type& t, int64_t count,
                   std::size_t bytes, comm& c, int rank, int tag, request*& out) noexcept;

// Staging bytes of a typed request: a pooled pack buffer when n fits one,
// else the heap. nullptr when out of memory.
std::byte* stage_alloc(request* r, std::size_t n) noexcept;
void stage_free(request* r) noexcept;
// Frees the cached heap staging buffers (device finalize).
void stage_cache_release() noexcept;

// Copies stream bytes [off, off + n) that arrived for receive request r
// into its buffer (unpacking when it is typed).
void deliver_bytes(request* r, std::size_t off, const void* src, std::size_t n) noexcept;

// ---- native tagged RTS (large messages on the native path)
// CQ data of a tagged RTS: size << 21 | sender contiguous << 20 | sender's
// request index (20 bits).
inline constexpr int rts_index_bits = 20;
inline constexpr uint64_t rts_contig_bit = uint64_t{1} << rts_index_bits;
inline constexpr uint64_t rts_max_size = (uint64_t{1} << (63 - rts_index_bits)) - 1;
inline uint64_t rts_size(uint64_t data) noexcept { return data >> (rts_index_bits + 1); }
// The data of an RTS between contiguous buffers travels as one tagged
// message on the reserved context 0xffff (context_id.cpp), matched by the
// receive request's id: direct, at the provider's bandwidth.
inline constexpr uint32_t tdata_context = 0xffff;
inline nm::match tdata_match(uint32_t rreq_id) noexcept {
    return nm::match{tdata_context, static_cast<int>(rreq_id >> 24),
                     static_cast<int>(rreq_id & 0xffffff)};
}
// am_tcts: sreq_id | tcts_tagged asks for the tagged data message.
inline constexpr uint32_t tcts_tagged = 1u << 31;

// ---- tagged chunks: the data after a native RTS when either buffer is
// noncontiguous (g_dev.tdata_chunk > 0). The receiver posts tagged receives
// of rndv_chunk bytes on the tdata match, at most tdata_window at a time
// (typed: each into a staging bounce, unpacked when it completes), and its
// CTS names the chunk size; the sender sends the chunks in order (typed:
// each packed into a staging buffer first), tdata_window in flight. Both
// sides post in stream order and the netmod keeps same-match messages in
// order (FI_ORDER_SAS), so chunk k meets receive k. Temporary memory:
// tdata_window chunks per side, whatever the message size.
// (Re-)posts the receive of one chunk (child of the receive request).
status native_issue_tchunk(request* child) noexcept;
// A chunk receive completed (nm_recv_done).
void native_tchunk_done(request* child, status result, std::size_t got) noexcept;
// Posts r's next chunk receives (at most tdata_window outstanding).
void tchunk_recv_pump(request* r) noexcept;
// Sender: the CTS asked for tagged chunks; and the pump that issues them
// (rndv_pump when rndv_chunk is set).
void native_send_tchunks(request* s, uint32_t rreq_id, std::size_t bytes, std::size_t chunk) noexcept;
void tchunk_send_pump(request* s) noexcept;

// Sends the tagged RTS of send request r (its fields set). Returns like
// start_result.
status native_start_rts(request* r) noexcept;
// Re-issue from the deferred queue: the netmod's answer.
status native_reissue_rts(request* r) noexcept;
// A native receive matched an RTS (info.data: size and sender request).
void native_on_rts(request* r, int src_rank, int tag, uint64_t data) noexcept;
// (Re-)issue a typed receive on the IOV path (dop_native_irecvv): the
// segments are rebuilt from the type each time, never stored.
status native_issue_recvv(request* r) noexcept;
// The buffer and length a native receive posts (a bounce for typed ones;
// not for typed receives on the IOV path, which have no stage).
void native_recv_buffer(request* r, void*& buf, std::size_t& len) noexcept;
// Sender: the receiver posted the tagged data receive (am_tcts, tagged).
void native_send_tdata(request* s, uint32_t rreq_id, std::size_t bytes) noexcept;
// Re-issue of the data message from the deferred queue (child of s).
status native_reissue_tdata(request* child) noexcept;

}  // namespace ch4lite::dev
