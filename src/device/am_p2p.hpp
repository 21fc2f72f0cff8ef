// SPDX-License-Identifier: MIT
// Point-to-point over active messages: the fallback used when the netmod has
// no native tagged messaging (or the build forces it), and by shared memory.
//   eager       one AM with the payload; unexpected ones are buffered
//   rendezvous  RTS -> (match) -> CTS -> DATA chunks, a window in flight;
//               data lands straight in the user's buffer
//   single copy (shm peers with CMA) the RTS also carries the sender's buffer
//               address; the receiver reads it with process_vm_readv and
//               answers SYNC_ACK ("done"), or CTS when it cannot read it;
//               a large contiguous one is split: the receiver sends SPLIT
//               (write the second half to my buffer), reads the first half
//               while the sender writes, and on SPLIT_DONE answers SYNC_ACK
//   Ssend       eager + SYNC_ACK when matched (rendezvous is synchronous)
// Every AM goes through am_send_to(): shm when the peer is local, else the
// netmod. Eager limit and chunk size are the transport's.
#pragma once
#include <cstddef>

#include "device/am.hpp"
#include "device/device.hpp"
#include "device/request.hpp"

namespace ch4lite::dev {

// An RTS that offers a single copy: the sender's buffer address follows the
// usual header (told apart by the header length).
struct rts_cma_hdr {
    rts_hdr rts;
    uint64_t addr;
};

// One AM to world rank `peer`: through shm when the locality bit says so
// (never in_progress there), else through the netmod (`st` may be null for
// injected control messages), with fresh per-operation state.
inline status am_send_to(int peer, uint8_t handler, const void* hdr, std::size_t hlen,
                         const nm::iov* payload, int niov,
                         active_netmod::request_state* st) noexcept {
    if (g_dev.shm.local(peer)) return g_dev.shm.am_send(peer, handler, hdr, hlen, payload, niov);
    if (st) *st = {};
    return g_dev.nm.am_send(peer, handler, hdr, hlen, payload, niov, st);
}

status am_isend(request* r) noexcept;   // r: send request, fields set

// Receive r matched a message of `size` bytes from (src_rank, tag): records
// the match and accepts min(size, capacity) bytes (fewer: the request fails
// with truncated); returns the accepted count, also left in r->bytes.
inline std::size_t accept_match(request* r, int src_rank, int tag, uint64_t size) noexcept {
    r->src_rank = src_rank;
    r->tag = tag;
    std::size_t n = static_cast<std::size_t>(size);
    if (size > r->capacity) {
        n = r->capacity;
        r->flags |= rf_truncated;
        request_fail(r, status::truncated);
    }
    r->bytes = n;
    r->offset = 0;
    return n;
}

// The common on-node case, inline: a small standard send to a local peer is
// one ring cell (header + payload) and completes at once. False when it does
// not apply or the ring is full; am_isend() then takes the general path.
inline bool am_isend_cell(request* r) noexcept {
    if (r->capacity > shm::cell::inline_bytes - sizeof(eager_hdr) || (r->flags & rf_sync) ||
        !g_dev.shm.local(r->peer) || g_dev.deferred_sends != 0)
        return false;
    const eager_hdr h{r->context, r->match_rank, r->tag, 0u, 0u};
    return g_dev.shm.am_send_cell(r->peer, am_eager, h, r->buf, r->capacity) == status::ok;
}
status am_irecv(request* r) noexcept;   // r: receive request, fields set; released on failure
struct unexpected_msg;
// Receive r takes message m, already removed from the unexpected queue (by
// am_irecv, or earlier by a matched probe: device/mprobe.hpp); m is freed.
void am_recv_matched(request* r, unexpected_msg* m) noexcept;

// What a receive without a request got (dev::recv_direct).
struct direct_recv {
    int src_rank = 0;
    int tag = 0;
    std::size_t bytes = 0;
};
enum class direct_take { taken, none, other };
// The first unexpected message matching (ctx, rank, tag), if it is a plain
// eager one of at most cap bytes: copied to buf and freed (taken). none: no
// unexpected message matches; other: the first match needs the request path.
// With t, buf holds count instances of t (cap = their packed size) and the
// payload is unpacked into them.
direct_take am_take_unexpected_eager(uint32_t ctx, int rank, int tag, void* buf, std::size_t cap,
                                     direct_recv& out, const dame::type* t = nullptr,
                                     int64_t count = 0) noexcept;
// Probe the unexpected queue; fills r-like info when found.
bool am_iprobe(uint32_t ctx, int rank, int tag, int& src_rank, int& src_tag,
               std::size_t& bytes) noexcept;
bool am_cancel_recv(request* r) noexcept;
// MPI_Cancel of a send on the device-matching path: asks the receiver to
// withdraw the message if unmatched (true: CANCEL sent; the request then
// completes cancelled, or normally if the receiver had matched it).
bool am_cancel_send(request* r) noexcept;

// Issue (or re-issue, from the deferred queue) the AM of a send request.
status am_start_eager(request* r) noexcept;
status am_start_rts(request* r) noexcept;
status am_start_data(request* child) noexcept;
// One AM from request r (its nm state) whose payload is bytes [off, off+len)
// of r's message: its contiguous buffer, or its typed buffer's packed stream.
status am_send_stream(request* r, uint8_t handler, const void* hdr, std::size_t hlen,
                      std::size_t off, std::size_t len) noexcept;
// Rendezvous sender: send more chunks while the window allows.
void rndv_pump(request* sreq) noexcept;
// A data chunk (child of a rendezvous send) left, however it was sent.
void rndv_chunk_done(request* child, status result) noexcept;
// A rendezvous pump (AM or tagged chunks, send or receive) that cannot get
// memory for its next chunk: with none in flight nobody would call back, so
// p fails and gives up the token it holds; else the next completion retries.
void rndv_give_up(request* p) noexcept;

// Handlers (called from dev::am_dispatch).
void am_on_eager(int src, const eager_hdr& h, const void* payload, std::size_t len) noexcept;
// raddr: the sender's buffer for a single copy, 0 for a plain RTS.
void am_on_rts(int src, const rts_hdr& h, uint64_t raddr) noexcept;
void am_on_cts(const cts_hdr& h) noexcept;
void am_on_tcts(const cts_hdr& h) noexcept;  // CTS answering a native tagged RTS
void am_on_data(const data_hdr& h, const void* payload, std::size_t len) noexcept;
// A netmod's rendezvous payload of a data chunk (netmod.hpp,
// am_payload_dest): where the chunk goes in a contiguous receive buffer, or
// nullptr (a typed receive: then am_on_data unpacks it), and its arrival.
void* am_data_dest(const data_hdr& h, std::size_t len) noexcept;
void am_data_landed(const data_hdr& h, std::size_t len, status result) noexcept;
void am_on_sync_ack(const sync_ack_hdr& h) noexcept;
void am_on_cancel(int src, const cancel_hdr& h) noexcept;  // receiver: withdraw if unmatched
void am_on_cancel_ack(const cancel_hdr& h) noexcept;       // sender: the answer
void am_on_split(int src, const split_hdr& h) noexcept;       // sender: write a part
void am_on_split_done(int src, const split_hdr& h) noexcept;  // receiver: it was written

}  // namespace ch4lite::dev
