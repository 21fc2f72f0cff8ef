// SPDX-License-Identifier: MIT
// The point-to-point layer under the collective algorithms: a set of
// outstanding requests on the communicator's collective context that is
// waited for as a whole, and the tags that keep algorithms apart.
//
// MPI orders collectives identically on every process of a communicator and
// keeps messages between two processes non-overtaking, so a fixed tag per
// algorithm family is enough; algorithms that overlap two kinds of messages
// between the same pair use two tags.
#pragma once
#include <cstddef>

#include "device/comm.hpp"
#include "device/idle.hpp"
#include "device/request.hpp"
#include "util/status.hpp"

namespace ch4lite::coll {

using dev::comm;
using dev::request;

enum tag : int {
    tag_barrier = 1, tag_bcast, tag_gather, tag_scatter, tag_allgather, tag_alltoall,
    tag_reduce, tag_allreduce, tag_reduce_scatter, tag_scan, tag_exscan, tag_context_id,
    tag_split,
};

// Up to `capacity` requests in flight; posting past it waits for the set
// first. The destructor waits too, so an early return on an error never
// leaves a request writing into a buffer that is going away.
class reqs {
  public:
    static constexpr int capacity = 64;
    explicit reqs(comm& c) noexcept : c_(c) {}
    ~reqs() { (void)wait(); }
    reqs(const reqs&) = delete;
    reqs& operator=(const reqs&) = delete;

    status send(const void* buf, std::size_t n, int dst, int tag) noexcept;
    // Completes with status::truncated unless exactly n bytes arrive.
    status recv(void* buf, std::size_t n, int src, int tag) noexcept;
    // Waits for every posted request; the first failure, else ok (size
    // mismatches are noted, not failures).
    status wait() noexcept;

  private:
    comm& c_;
    request* r_[capacity];
    std::size_t want_[capacity];  // receives: expected bytes; sends: SIZE_MAX
    int n_ = 0;
};

// A receive of the wrong size (a peer passed other counts or datatypes) does
// not stop an algorithm: stopping would leave the processes waiting for this
// one hanging. The mismatch is noted, the algorithm runs to its end, and the
// collective then reports status::truncated (see finish()).
void note_mismatch() noexcept;
// What a collective returns: s if it failed, else truncated if a mismatch
// was noted since the previous finish(), else ok.
status finish(status s) noexcept;

// Marks the waits of a collective on c, for as long as it lives
// (device/idle.hpp, crowd_wait: no spin before yielding when the members
// outnumber the cores of an oversubscribed host).
dev::crowd_wait crowd(const comm& c) noexcept;
dev::crowd_wait crowd(int members) noexcept;

// Blocking helpers over reqs.
status send(comm& c, const void* buf, std::size_t n, int dst, int tag) noexcept;
status recv(comm& c, void* buf, std::size_t n, int src, int tag) noexcept;
status sendrecv(comm& c, const void* sbuf, std::size_t sn, int dst, void* rbuf, std::size_t rn,
                int src, int tag) noexcept;

}  // namespace ch4lite::coll
