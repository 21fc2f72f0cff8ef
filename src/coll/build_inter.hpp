// SPDX-License-Identifier: MIT
// Schedule builders of the intercommunicator collectives (MPI-4.1 §6.2.2).
// The schedule's owner is the intercommunicator's private local
// communicator (ic.inter->local), so the intracommunicator builders of
// build.hpp serve the phases inside the local group, and its schedule tag
// is shared by both groups (every collective on ic makes exactly one
// schedule on each side, so the two local sequences stay equal); the steps
// between the groups run on ic itself (sched::use_comm).
//
// Rooted collectives take the root as MPI passes it: MPI_ROOT at the root,
// MPI_PROC_NULL at the other members of its group (nothing to do), the
// root's rank in the remote group at the other group's members.
//
//   barrier, allgather, allreduce, reduce_scatter:  gather / reduce inside
//     each group to local rank 0, the two leaders exchange, local
//     broadcast / scatter
//   bcast, gather, scatter, reduce:  root <-> the other group's leader, and
//     a broadcast / gather / scatter / reduce inside that group
//   gatherv, scatterv, allgatherv, alltoall(v,w):  direct messages between
//     the members of the two groups (per-process sizes are known only where
//     they are sent or received)
#pragma once
#include <cstddef>
#include <cstdint>

#include "coll/coll.hpp"
#include "coll/sched.hpp"

namespace ch4lite::coll {

void add_inter_barrier(sched& s, comm& ic) noexcept;
void add_inter_bcast(sched& s, comm& ic, std::byte* buf, std::size_t n, int root) noexcept;
// sn: bytes each process sends; rn: bytes the root receives from each.
void add_inter_gather(sched& s, comm& ic, const std::byte* sbuf, std::size_t sn, std::byte* rbuf,
                      std::size_t rn, int root) noexcept;
void add_inter_gatherv(sched& s, comm& ic, const std::byte* sbuf, std::size_t sn,
                       const block* rblocks, int root) noexcept;
// sn: bytes the root sends to each; rn: bytes each process receives.
void add_inter_scatter(sched& s, comm& ic, const std::byte* sbuf, std::size_t sn, std::byte* rbuf,
                       std::size_t rn, int root) noexcept;
void add_inter_scatterv(sched& s, comm& ic, const cblock* sblocks, std::byte* rbuf, std::size_t rn,
                        int root) noexcept;
// rbuf receives the remote group's blocks of rn bytes.
void add_inter_allgather(sched& s, comm& ic, const std::byte* sbuf, std::size_t sn, std::byte* rbuf,
                         std::size_t rn) noexcept;
void add_inter_allgatherv(sched& s, comm& ic, const std::byte* sbuf, std::size_t sn,
                          const block* rblocks) noexcept;
// Block r goes to / comes from remote rank r (Alltoall, Alltoallv, Alltoallw).
void add_inter_alltoallv(sched& s, comm& ic, const cblock* sblocks, const block* rblocks) noexcept;
// count instances of `bytes` packed bytes in all; the schedule's op.
void add_inter_reduce(sched& s, comm& ic, const std::byte* sbuf, std::byte* rbuf, int64_t count,
                      std::size_t bytes, int root) noexcept;
void add_inter_allreduce(sched& s, comm& ic, const std::byte* sbuf, std::byte* rbuf, int64_t count,
                         std::size_t bytes) noexcept;
// The reduction of the remote group's vectors (sum of counts instances of
// elem bytes) is scattered over my group by counts (one per local rank).
void add_inter_reduce_scatter(sched& s, comm& ic, const std::byte* sbuf, std::byte* rbuf,
                              const int64_t* counts, std::size_t elem) noexcept;

}  // namespace ch4lite::coll
