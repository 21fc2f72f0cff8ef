// SPDX-License-Identifier: MIT
// MPI_Group handles: created groups (device/group.hpp) live in a handle
// table; MPI_GROUP_EMPTY is a static empty group. Operations whose result
// is empty hand out MPI_GROUP_EMPTY, like MPICH.
#pragma once
#include <mpi.h>

#include "device/group.hpp"

namespace ch4lite::api {

// nullptr for MPI_GROUP_NULL, freed or garbage handles.
dev::group* lookup_group(MPI_Group g) noexcept;
// A handle for g (MPI_GROUP_EMPTY when it is empty); MPI_GROUP_NULL when out
// of memory or handles.
MPI_Group new_group_handle(dev::group&& g) noexcept;
// MPI_Group_free: drops the handle's reference.
void release_group(MPI_Group h) noexcept;

}  // namespace ch4lite::api
