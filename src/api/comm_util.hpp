// SPDX-License-Identifier: MIT
// What every function that creates a communicator shares (comm_manage.cpp,
// the topology and intercommunicator constructors).
#pragma once
#include <mpi.h>

#include "util/status.hpp"

namespace ch4lite::dev {
class comm;
}  // namespace ch4lite::dev

namespace ch4lite::api {

// A failed creation as an MPI error on comm: MPI_ERR_NO_MEM for this
// member's own shortage, MPI_ERR_OTHER when no context id could be agreed.
int creation_failed(const char* fn, MPI_Comm comm, status s) noexcept;
// Gives a new device communicator to the user: its error handler's
// reference and its handle; nullptr (not a member) -> MPI_COMM_NULL.
void hand_out(dev::comm* c, MPI_Comm* newcomm) noexcept;
// A blocking barrier on comm (intra or inter) whose errors name fn
// (api/barrier.cpp): for MPI_Comm_disconnect.
int comm_barrier(const char* fn, MPI_Comm comm) noexcept;

}  // namespace ch4lite::api
