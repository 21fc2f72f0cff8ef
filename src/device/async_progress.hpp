// SPDX-License-Identifier: MIT
// CH4LITE_ASYNC_PROGRESS=1: a thread per process that polls the progress
// engine while the application computes, so nonblocking operations (above
// all the collectives' schedules: their copies, reductions and next
// stages) advance between the application's MPI calls, as MPICH's
// MPIR_CVAR_ASYNC_PROGRESS. Off by default: it costs a core's share and a
// lock on every MPI call (docs/threads.md).
//
// The thread enters the device the way an application thread does, under
// the MPI_THREAD_MULTIPLE lock (util/api_lock.hpp), which the runtime then
// turns on whatever level the application asked for; but it only ever
// try-locks: while an application thread is inside MPI, that thread
// progresses and the helper stays out of its way. When nothing is pending
// (no request in use, no schedule, no deferred or RMA work), or while an
// application thread is in MPI, it sleeps on a condition variable that the
// end of an MPI call signals when it leaves work pending
// (util::api_hooks).
#pragma once

namespace ch4lite::dev {

// Read once by dev::init (g_dev.async_progress).
bool async_progress_wanted() noexcept;
// From MPI_Init*, once the lock is on; from MPI_Finalize, first.
void async_progress_start() noexcept;
void async_progress_stop() noexcept;

}  // namespace ch4lite::dev
