// SPDX-License-Identifier: MIT
// Attribute callbacks around datatype duplication and freeing
// (datatype_attr.cpp).
#pragma once
#include <mpi.h>

namespace ch4lite::api {

// MPI_Type_dup: runs every copy callback of `old`'s attributes, caching the
// copies on `to`. On a callback error, what was copied is deleted again and
// the callback's code (or MPI_ERR_NO_MEM, reported for `fn`) is returned.
int type_attrs_copy(const char* fn, MPI_Datatype old, MPI_Datatype to) noexcept;
// MPI_Type_free: runs the delete callbacks, last set first. Stops at (and
// returns) the first error; the attributes not yet deleted stay.
int type_attrs_delete_all(MPI_Datatype h) noexcept;

}  // namespace ch4lite::api
