// SPDX-License-Identifier: MIT
// Handle -> object lookups shared by the api files (communicators here;
// datatypes in api/datatype_handles.hpp). A lookup never dereferences a
// garbage handle: predefined values are checked by range, created ones
// through util::handle_table.
#pragma once
#include <mpi.h>

namespace ch4lite::dev {
class comm;
}

namespace ch4lite::api {

// nullptr for MPI_COMM_NULL, freed or garbage handles.
dev::comm* lookup_comm(MPI_Comm c) noexcept;
inline bool comm_is_valid(MPI_Comm c) noexcept { return lookup_comm(c) != nullptr; }

}  // namespace ch4lite::api
