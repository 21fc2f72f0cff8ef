// SPDX-License-Identifier: MIT
// Matched probe (MPI_Mprobe / MPI_Improbe, then MPI_Mrecv / MPI_Imrecv):
// the probe takes the message out of matching, so no other receive, not
// even one with MPI_ANY_SOURCE posted later, can steal it (MPI-4.1 §3.8.2).
//   AM path (device matching: shm, netmod AMs, both at once): the message
//     is removed from the unexpected queue into the message object; the
//     receive later takes it as if it had just matched it (am_recv_matched):
//     eager payload copied, rendezvous accepted (CTS or single copy), the
//     sync ack of an Ssend sent then.
//   native tagged path: the netmod matches, so the probe peeks (FI_PEEK)
//     and then posts a receive for exactly that (source, tag) on the
//     context: the first such message is the one peeked, and the netmod
//     matches it to this receive at once (the "claim"), before any later
//     receive. The claim lands in a bounce buffer of the message's size (a
//     0-byte announcement for one above tagged_rndv_min, whose data then
//     moves straight into the user's buffer at Mrecv); Mrecv copies it out.
//     An Ssend is acknowledged when the claim completes, not at Mrecv.
#pragma once
#include <cstddef>
#include <cstdint>

#include "device/request.hpp"
#include "netmod/netmod.hpp"

namespace ch4lite::dev {

class comm;
struct unexpected_msg;

// A message a matched probe took (the MPI_Message object).
struct message {
    comm* c = nullptr;
    int src_rank = 0;
    int tag = 0;
    std::size_t bytes = 0;          // message size
    unexpected_msg* um = nullptr;   // AM path: out of the unexpected queue
    request* claim = nullptr;       // native path: the receive that claimed it
};

// Takes the first message matching (rank, tag) on c's point-to-point
// context into `out` (true), or finds none yet (false; `err` says why if
// not status::ok: no memory for the claim). Polls progress once.
bool improbe(comm& c, int rank, int tag, message& out, status& err) noexcept;

// Starts receive request r (kind recv, buf / capacity / dt / count / stage
// set, cc 1) on message m, which is consumed: r completes as a receive of
// that message would (truncation, typed unpack, rendezvous).
void mrecv_start(message& m, request* r) noexcept;

// nm_recv_done of a claim (rf_claim).
void claim_done(request* claim, const nm::recv_info& info, status result) noexcept;

}  // namespace ch4lite::dev
