// SPDX-License-Identifier: MIT
// MPI_Op -> operation. Predefined ops are the ABI constants (device/op.hpp
// decodes them); user ops (MPI_Op_create) live in a handle table.
#pragma once
#include <mpi.h>

#include "device/op.hpp"

namespace ch4lite::api {

struct op_ref {
    dev::op_id id = dev::op_id::sum;    // when user == nullptr
    dev::user_op* user = nullptr;
};

// False for MPI_OP_NULL, freed or garbage handles.
bool lookup_op(MPI_Op op, op_ref& out) noexcept;

}  // namespace ch4lite::api
