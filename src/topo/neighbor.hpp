// SPDX-License-Identifier: MIT
// Neighbourhood collectives (MPI-4.1 §8.6): every one is "block i to
// out-neighbour i, block j from in-neighbour j" (allgather sends one block
// to all). MPI_PROC_NULL neighbours (beyond a non-periodic Cartesian edge)
// are skipped: their receive blocks are left as they are.
//
// Pairing. Messages between two processes on one context and tag match in
// order, so each side must post them in corresponding orders. Receives are
// posted in the order of `in`. Sends go in the order of `out`, except on a
// Cartesian topology, where each dimension sends its +1 neighbour's block
// before its -1 neighbour's: the message I send up arrives in my upper
// neighbour's "from below" slot (2d), which it posts first. This keeps a
// periodic dimension of 1 or 2 processes (both neighbours the same
// process) right, as MPI-4.0 fixed it (mpi-forum/mpi-issues#153).
//
//   blocking        direct: receives posted, sends, wait (no schedule), on
//                   the collective context with tag_neighbor (< 64);
//                   through a schedule when the degree exceeds what one
//                   coll::reqs holds
//   nonblocking,    a schedule (coll/sched.hpp): the same messages, built
//   persistent      once; repeated receives from one peer are chained
#pragma once
#include "coll/coll.hpp"
#include "coll/sched.hpp"
#include "topo/topology.hpp"
#include "util/status.hpp"

namespace ch4lite::topo {

// The blocking algorithms' tag (coll/p2p.hpp keeps 1..13; topo-inter uses 48..63).
inline constexpr int tag_neighbor = 56;

// sb[i]: the block for t.out[i]; rb[j]: the block from t.in[j].
void add_neighbor_exchange(coll::sched& s, const topology& t, const coll::cblock* sb,
                           const coll::block* rb) noexcept;
// Blocking; false in `direct` when it did not apply (too many neighbours):
// then the caller runs a schedule.
status neighbor_exchange(dev::comm& c, const topology& t, const coll::cblock* sb,
                         const coll::block* rb, bool& direct) noexcept;

}  // namespace ch4lite::topo
