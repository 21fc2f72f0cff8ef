// SPDX-License-Identifier: MIT
// Schedule builders: each adds the steps of one collective algorithm on an
// intracommunicator (the schedule's communicator, sched::owner()) to a
// schedule (coll/sched.hpp). They move packed byte streams exactly as the
// direct algorithms of coll/coll.hpp do, with the same conventions (a null
// send stream means MPI_IN_PLACE, blocks per rank, reductions with the
// schedule's op, sched::set_op), and pick among algorithms by the same
// switch points (coll::g_tuning). Block arrays are read while building; the
// buffers they point to must stay until the schedule is deleted.
//
// Intercommunicator forms go beside these (add_inter_*), dispatched by the
// API layer (api/coll_sched.hpp).
#pragma once
#include <cstddef>
#include <cstdint>

#include "coll/coll.hpp"
#include "coll/sched.hpp"

namespace ch4lite::coll {

void add_barrier(sched& s) noexcept;
void add_bcast(sched& s, std::byte* buf, std::size_t n, int root) noexcept;
// MPI_Ibcast and MPI_Bcast_init on an intracommunicator: through the
// staging segment where the blocking MPI_Bcast would stage (coll/stage.cpp,
// "Scheduled broadcast"; the point-to-point steps of add_bcast stay as the
// branch taken when the segment cannot be made), else add_bcast. may_setup:
// the schedule may set the segment up (a nonblocking call, not a persistent
// one, whose steps run again at every start).
void add_bcast_any(sched& s, std::byte* buf, std::size_t n, int root, bool may_setup) noexcept;
void add_gather(sched& s, const std::byte* sbuf, std::byte* rbuf, std::size_t n, int root) noexcept;
void add_gatherv(sched& s, const std::byte* sbuf, std::size_t sn, const block* rblocks,
                 int root) noexcept;
void add_scatter(sched& s, const std::byte* sbuf, std::byte* rbuf, std::size_t n, int root) noexcept;
void add_scatterv(sched& s, const cblock* sblocks, std::byte* rbuf, std::size_t rn,
                  int root) noexcept;
// My block is already in place (as for coll::allgather).
void add_allgather(sched& s, std::byte* rbuf, std::size_t n) noexcept;
void add_allgatherv(sched& s, const block* blocks) noexcept;
void add_alltoall(sched& s, const std::byte* sbuf, std::byte* rbuf, std::size_t n) noexcept;
// Alltoallv and Alltoallw (per-peer blocks of any size); sblocks == nullptr:
// in place (the receive blocks hold the data to send).
void add_alltoallv(sched& s, const cblock* sblocks, const block* rblocks) noexcept;
void add_reduce(sched& s, const std::byte* sbuf, std::byte* rbuf, int64_t count, int root) noexcept;
void add_allreduce(sched& s, const std::byte* sbuf, std::byte* rbuf, int64_t count) noexcept;
void add_reduce_scatter(sched& s, const std::byte* sbuf, std::byte* rbuf,
                        const int64_t* counts) noexcept;
void add_scan(sched& s, const std::byte* sbuf, std::byte* rbuf, int64_t count, bool exclusive) noexcept;

}  // namespace ch4lite::coll
