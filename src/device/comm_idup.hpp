// SPDX-License-Identifier: MIT
// MPI_Comm_idup: the context-id agreement of comm_create.hpp, as a schedule
// (coll/sched.hpp) that progresses while the caller computes:
//
//   prepare  my free-id mask (or zeros when this member could not make the
//            communicator: then every member fails, as for comm_dup)
//   AND      allreduce(BAND) of the masks (intercommunicator: in each
//            group, the leaders exchange, each broadcasts)
//   pick     the lowest common id(s); reserve them here unless one was
//            taken meanwhile or a blocking agreement is waiting for its AND
//            with them offered (context_id.hpp, offer_scope); vote
//   AND      the votes, the same way
//   decide   all reserved: the communicator gets its ids; else every member
//            gives back what it reserved and the schedule rewinds to prepare
//
// Every member sees the same common mask and the same vote, so all decide
// alike; a retry happens only when another agreement raced this one.
#pragma once
#include "coll/sched.hpp"
#include "device/comm.hpp"

namespace ch4lite::dev {

// Adds the steps to s, a new schedule of `parent` (of its local
// communicator for an intercommunicator), and makes the new communicator at
// once: its handle is valid now, its context ids come when s completes
// (using it before is erroneous, MPI-4.1 §7.4.2). out = nullptr when this
// member lacks memory for it; s still runs and fails on every member.
void comm_idup(comm& parent, coll::sched& s, comm*& out) noexcept;

}  // namespace ch4lite::dev
