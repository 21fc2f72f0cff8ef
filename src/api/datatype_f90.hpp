// SPDX-License-Identifier: MIT
// The types MPI_Type_create_f90_* made (datatype_f90.cpp).
#pragma once
#include <mpi.h>

#include "dame/type.hpp"

namespace ch4lite::api::dt {
// The one handle of a type MPI_Type_create_f90_* made, or MPI_DATATYPE_NULL.
// MPI_Type_get_contents returns it for such a type instead of a new handle:
// MPI counts it as predefined, so the caller does not free it.
MPI_Datatype f90_handle(const dame::type* t) noexcept;
// At MPI_Finalize: drops the library's reference to each of them.
void f90_release_all() noexcept;
}  // namespace ch4lite::api::dt
