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
// MPI_Comm_free, MPI_Comm_disconnect (fn): runs the delete callbacks, last set first. Stops at (and
// returns) the first error; the attributes not yet deleted stay. A callback
// may delete or set attributes of c itself (api/attr_ops.hpp).
int attrs_delete_all(const char* fn, MPI_Comm h, dev::comm& c) noexcept;
// The bodies of MPI_Comm_create_keyval / free_keyval / set_attr / get_attr
// / delete_attr, shared with their deprecated MPI-1 forms MPI_Keyval_create
// / Keyval_free / Attr_put / Attr_get / Attr_delete (api/attr_deprecated.cpp),
// which behave the same in C (MPI-4.1 §19.1.2): errors name `fn`.
int comm_create_keyval(const char* fn, MPI_Comm_copy_attr_function* copy_fn,
                       MPI_Comm_delete_attr_function* delete_fn, int* comm_keyval,
                       void* extra_state) noexcept;
int comm_free_keyval(const char* fn, int* comm_keyval) noexcept;
int comm_set_attr(const char* fn, MPI_Comm comm, int comm_keyval, void* attribute_val) noexcept;
int comm_get_attr(const char* fn, MPI_Comm comm, int comm_keyval, void* attribute_val,
                  int* flag) noexcept;
int comm_delete_attr(const char* fn, MPI_Comm comm, int comm_keyval) noexcept;
// For MPI_Finalize, which must delete MPI_COMM_SELF's attributes before
// anything else, in the reverse order of setting (MPI-4.1 §11.2.4): the
// callbacks may still use all of MPI.
int comm_self_attrs_free() noexcept;

}  // namespace ch4lite::api
