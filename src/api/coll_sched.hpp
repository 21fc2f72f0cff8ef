// SPDX-License-Identifier: MIT
// The three forms of a collective at the API (docs/collectives-schedules.md,
// "Schedules"): an entry point checks its arguments once, whatever the
// form, then either runs the direct algorithm (blocking) or builds a
// schedule (coll/sched.hpp, coll/build.hpp) and hands it to issue():
//   nonblocking  MPI_I<coll>: started at once; *request completes with it
//   persistent   MPI_<coll>_init: an inactive persistent request (kind coll)
//                owning the schedule; MPI_Start runs it (start_coll)
//   blocking     run to completion (the collectives with no direct
//                algorithm, and all of them with CH4LITE_COLL_BLOCKING=sched)
// Intercommunicator forms are dispatched in the entry points
// (`if (c->is_inter()) ...`, topologies/intercommunicators work).
#pragma once
#include <mpi.h>

#include <cstdint>
#include <memory>

#include "api/coll_args.hpp"
#include "coll/sched.hpp"

namespace ch4lite::api::coll {

enum class form : uint8_t { blocking, nonblocking, persistent };

// What the nonblocking and persistent forms check beyond the blocking one:
// request (output) not NULL; for persistent ones a valid info (or
// MPI_INFO_NULL). Sets *request = MPI_REQUEST_NULL first, so a failed call
// leaves no stale handle. MPI_SUCCESS or the raised error.
int check_form(const char* fn, MPI_Comm comm, form f, MPI_Info info, MPI_Request* request) noexcept;

// A new empty schedule on c with the next tag of c (nullptr: out of memory).
std::unique_ptr<ch4lite::coll::sched> new_sched(dev::comm& c) noexcept;

// Hands built schedule s to its form (see above). MPI_SUCCESS or the raised
// error: out of memory while building, or the collective's own failure
// (blocking form).
int issue(const char* fn, MPI_Comm comm, form f, std::unique_ptr<ch4lite::coll::sched> s,
          MPI_Request* request) noexcept;

// A v-collective buffer inside schedule s: block i is counts[i] instances
// of t at buf + displs[i] * extent (the user memory when t is contiguous,
// else one scratch area of s). load: -2 every block, -1 none, k >= 0 only
// block k is packed into it (pack steps added here). nullptr when out of
// memory (s remembers it).
template <class C, class D>
ch4lite::coll::block* sched_blocks(ch4lite::coll::sched& s, const void* buf, const C* counts,
                                   const D* displs, const dame::type& t, int p, int load) noexcept;
// After the algorithm: a fence, then the blocks moved back into the user
// buffer (unpack steps; nothing when t is contiguous). skip >= 0: that
// block is left out.
template <class C, class D>
void sched_store_blocks(ch4lite::coll::sched& s, const ch4lite::coll::block* b, void* buf,
                        const C* counts, const D* displs, const dame::type& t, int p,
                        int skip = -1) noexcept;

// Whether blocking collectives run through schedules too
// (CH4LITE_COLL_BLOCKING=sched: the test suite's way to run every schedule
// builder under the blocking tests).
bool blocking_sched() noexcept;

}  // namespace ch4lite::api::coll
