// SPDX-License-Identifier: MIT
// Collective algorithms on point-to-point (on the communicator's collective
// context, c.ctx_coll(), so they never match user messages).
//
// Every algorithm moves *packed byte streams*: the API layer turns each user
// buffer (buf, count, datatype) into its packed stream (the user memory
// itself when the type is contiguous, a packed temporary otherwise) and
// unpacks results. Reductions work on streams of `count` datatype instances
// of `reduction::elem` bytes each and call the op through reduction::apply.
//
// Buffers that MPI makes significant only at the root may be null elsewhere.
// "In place" (MPI_IN_PLACE) is passed as a null send buffer; what it means
// for each collective is stated below. Results are statuses: truncated when
// a process sent a different number of bytes than its peer expected.
#pragma once
#include <mpi.h>

#include <cstddef>
#include <cstdint>

#include "dame/type.hpp"
#include "device/comm.hpp"
#include "device/op.hpp"
#include "util/status.hpp"

namespace ch4lite::coll {

using dev::comm;
using dev::op_id;
using dev::user_op;

// One rank's piece of a v-collective, in packed bytes.
struct block {
    std::byte* p;
    std::size_t n;
};
struct cblock {
    const std::byte* p;
    std::size_t n;
};

// An op bound to a datatype: what a reduction applies to its streams.
struct reduction {
    op_id id = op_id::sum;          // predefined op (when user == nullptr)
    const user_op* user = nullptr;  // user op
    const dame::type* t = nullptr;  // the datatype of one instance
    MPI_Datatype dt = MPI_DATATYPE_NULL;  // its handle, for user functions
    std::size_t elem = 0;           // packed bytes of one instance (t->size())
    // Basic elements of one instance for a predefined op (elem over the
    // basic kind's packed size, set once so apply() does not divide each
    // time); 0: apply() works it out.
    std::size_t per = 0;
    bool commutative = true;

    // inout = in (op) inout over n instances of packed stream; `in` holds the
    // lower ranks' contribution. no_mem when a user op on a noncontiguous
    // type cannot get its unpacking buffers.
    status apply(const void* in, void* inout, int64_t n) const noexcept;
};

status barrier(comm& c) noexcept;
status bcast(void* buf, std::size_t n, int root, comm& c) noexcept;

// Gather: each rank's n bytes to rank-order blocks of rbuf at the root;
// sbuf == nullptr at the root: its block is already in place.
status gather(const void* sbuf, void* rbuf, std::size_t n, int root, comm& c) noexcept;
status gatherv(const void* sbuf, std::size_t sn, const block* rblocks, int root,
                    comm& c) noexcept;
// Scatter: block i of sbuf (root) to rank i; rbuf == nullptr at the root:
// leave its block in place.
status scatter(const void* sbuf, void* rbuf, std::size_t n, int root, comm& c) noexcept;
status scatterv(const cblock* sblocks, void* rbuf, std::size_t rn, int root,
                     comm& c) noexcept;
// Allgather: my block is already at rbuf + rank * n (or blocks[rank]).
status allgather(void* rbuf, std::size_t n, comm& c) noexcept;
status allgatherv(const block* blocks, comm& c) noexcept;
// Alltoall: sbuf == nullptr: in place, rbuf is also the send buffer.
status alltoall(const void* sbuf, void* rbuf, std::size_t n, comm& c) noexcept;
status alltoallv(const cblock* sblocks, const block* rblocks, comm& c) noexcept;

// Reductions over `count` instances. sbuf == nullptr: the input is in rbuf.
status reduce(const void* sbuf, void* rbuf, int64_t count, const reduction& op, int root,
                   comm& c) noexcept;
status allreduce(const void* sbuf, void* rbuf, int64_t count, const reduction& op,
                      comm& c) noexcept;
// counts[i] instances of the result go to rank i; rbuf receives mine. In
// place: the whole input vector is in rbuf.
status reduce_scatter(const void* sbuf, void* rbuf, const int64_t* counts,
                           const reduction& op, comm& c) noexcept;
status scan(const void* sbuf, void* rbuf, int64_t count, const reduction& op,
                 comm& c) noexcept;
// Rank 0's rbuf is left untouched.
status exscan(const void* sbuf, void* rbuf, int64_t count, const reduction& op,
                   comm& c) noexcept;

// Algorithm switch points (bytes), from CH4LITE_COLL_* at init
// (docs/collectives.md).
struct tuning {
    std::size_t bcast_long = 128 * 1024;      // scatter + allgather from here (p >= 3)
    std::size_t bcast_flat = SIZE_MAX;        // root to all from here, every rank on the node
    std::size_t bcast_stage = SIZE_MAX;       // through the staging segment from here (same)
    std::size_t allreduce_long = 64 * 1024;   // reduce-scatter + allgather from here
    std::size_t allreduce_stage = SIZE_MAX;   // staged exchange from here, every rank on the node
    std::size_t allreduce_direct = 256;       // one-step exchange up to here (p <= 8)
    std::size_t reduce_long = 64 * 1024;      // reduce-scatter + gather from here
    std::size_t allgather_long = 64 * 1024;   // ring from here (total bytes)
    std::size_t alltoall_long = 32 * 1024;    // pairwise exchange from here (per block)
    std::size_t alltoall_stage = SIZE_MAX;    // staged exchange from here (same) ...
    std::size_t alltoall_stage_max = SIZE_MAX;  // ... for blocks below this
    int alltoall_window = 32;                 // peers in flight in the scattered alltoall
    // How a staged broadcast's root fills the chunks (coll/stage.cpp):
    // timed plain copies that turn to streamed ones when slow, or always one.
    enum class fill { automatic, plain, streamed } stage_fill = fill::automatic;
    // A timed copy of a staged exchange slower than this (GB/s) sends the
    // communicator's next calls to the point-to-point algorithms.
    double stage_slow_gbps = 5;
    // CH4LITE_COLL_BLOCKING=sched: blocking collectives build and run a
    // schedule (coll/build.hpp) instead of their direct algorithm (a test
    // switch: the blocking tests then check every schedule builder).
    bool blocking_sched = false;
};
extern tuning g_tuning;
void init() noexcept;

}  // namespace ch4lite::coll
