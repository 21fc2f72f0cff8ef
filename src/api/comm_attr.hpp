// SPDX-License-Identifier: MIT
// Attribute callbacks around communicator creation and destruction.
#pragma once
#include <mpi.h>

#include "device/comm.hpp"

namespace ch4lite::api {

// MPI_Comm_dup: runs every copy callback of `from` (handle `old`), caching
// the copies on `to`. On a callback error, what was copied is deleted again
// and the callback's code (or MPI_ERR_NO_MEM, reported for `fn`) is returned.
int attrs_copy(const char* fn, MPI_Comm old, dev::comm& from, dev::comm& to) noexcept;
// MPI_Comm_free: runs the delete callbacks, last set first. Stops at (and
// returns) the first error; the attributes not yet deleted stay. A callback
// may delete or set attributes of c itself (api/attr_ops.hpp).
int attrs_delete_all(MPI_Comm h, dev::comm& c) noexcept;
// For MPI_Finalize, which must delete MPI_COMM_SELF's attributes before
// anything else, in the reverse order of setting (MPI-4.1 §11.2.4): the
// callbacks may still use all of MPI.
int comm_self_attrs_free() noexcept;

}  // namespace ch4lite::api
