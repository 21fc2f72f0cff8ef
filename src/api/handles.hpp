// SPDX-License-Identifier: MIT
// Handle -> object lookups shared by the api files (communicators here;
// datatypes in api/datatype_handles.hpp). A lookup never dereferences a
// garbage handle: predefined values are checked by range, created ones
// through util::handle_table.
#pragma once
#include <mpi.h>

#include "api/errors.hpp"
#include "api/info_obj.hpp"

namespace ch4lite::dev {
class comm;
extern comm g_world;  // device/comm.hpp
}  // namespace ch4lite::dev

namespace ch4lite::api {

dev::comm* lookup_comm_other(MPI_Comm c) noexcept;
// nullptr for MPI_COMM_NULL, freed or garbage handles. MPI_COMM_WORLD inline.
inline dev::comm* lookup_comm(MPI_Comm c) noexcept {
    if (c == MPI_COMM_WORLD && is_initialized()) return &dev::g_world;
    return lookup_comm_other(c);
}
inline bool comm_is_valid(MPI_Comm c) noexcept { return lookup_comm(c) != nullptr; }

}  // namespace ch4lite::api
