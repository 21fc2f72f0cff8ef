// SPDX-License-Identifier: MIT
// Partitioned point-to-point (MPI-4.1 chapter 4: MPI_Psend_init,
// MPI_Precv_init, MPI_Pready*, MPI_Parrived), over the device's active
// messages, so it works the same on both netmod paths and with shm:
//
//   match   Precv_init sends PART_INIT {context, receiver's rank, tag,
//           receiver token, total bytes} to the source. The sender matches
//           it against its unmatched Psend_init's of that (context, rank,
//           tag) in initialization order (early arrivals wait in a queue of
//           their own: partitioned operations never match ordinary
//           point-to-point ones) and answers PART_ACK {tokens, its total}.
//           Different totals: both ends fail every round (MPI_ERR_TRUNCATE).
//   round   MPI_Start on the receiver sends PART_CTS {sender token, the
//           round's receive request id}: the receive buffer may now be
//           written. A sender partition goes out once it is ready
//           (MPI_Pready*) and the round's CTS is there, as the rendezvous
//           data chunks of the AM path (am_data: shm ring, netmod AM,
//           deferred on back-pressure), each carrying its offset in the
//           packed stream, so partitions may leave in any order and sender
//           and receiver may partition the buffer differently.
//   arrive  am_on_data writes each chunk at its offset and counts its bytes
//           per receiver partition (rf_part); MPI_Parrived reads the count,
//           the receive completes when every byte arrived.
// The sender's round completes when its CTS was consumed and every
// partition left; CTSs that come early (the receiver restarted before the
// sender finished its round) queue in order, so round k's data always goes
// to the receiver's round k.
#pragma once
#include <cstddef>
#include <cstdint>

#include "device/request.hpp"

namespace ch4lite::dame {
class type;
}

namespace ch4lite::dev {

class comm;
struct part_ep;  // one end of a partitioned channel (device/part.cpp)

struct part_args {
    bool send = true;
    comm* c = nullptr;
    int peer_rank = 0;                // destination / source rank in c
    int tag = 0;
    void* buf = nullptr;              // contiguous: the first byte; typed: as passed
    const dame::type* dt = nullptr;   // nullptr: contiguous bytes (retained when set)
    int64_t count = 0;                // instances of dt in the whole buffer
    std::size_t total = 0;            // packed bytes of the whole buffer
    int parts = 0;
};

// A new endpoint (the receiver also announces itself to the source).
status part_create(const part_args& a, part_ep*& out) noexcept;
// Frees an inactive endpoint.
void part_destroy(part_ep* ep) noexcept;
// Starts a round: `act` is the activation the completion functions wait on.
status part_start(part_ep* ep, request*& act) noexcept;
// Sender: partition k is ready (k checked by the caller). False: it already was this round.
bool part_ready(part_ep* ep, int k) noexcept;
// Sender: partition k was marked ready this round.
bool part_is_ready(const part_ep* ep, int k) noexcept;
// Receiver: every byte of partition k of the active round arrived.
bool part_arrived(const part_ep* ep, int k) noexcept;

// Hooks: a data chunk for a partitioned receive (am_on_data, rf_part), and
// the protocol's active messages (am_dispatch, am_part_first..last).
void part_on_data(request* r, std::size_t off, std::size_t n) noexcept;
void part_am_dispatch(int src, uint8_t handler, const void* hdr, std::size_t hlen) noexcept;

}  // namespace ch4lite::dev
