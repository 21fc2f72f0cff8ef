// SPDX-License-Identifier: MIT
#include "api/handles.hpp"

#include "api/errors.hpp"
#include "device/comm.hpp"

namespace ch4lite::api {

dev::comm* lookup_comm_other(MPI_Comm c) noexcept {
    if (!is_initialized()) return nullptr;
    if (c == MPI_COMM_WORLD) return &dev::comm_world();
    if (c == MPI_COMM_SELF) return &dev::comm_self();
    return dev::comm_table().lookup(reinterpret_cast<uintptr_t>(c));
}

}  // namespace ch4lite::api
