// SPDX-License-Identifier: MIT
// Context ids (MPICH's mask algorithm). Each process keeps one bit per id
// (set = free here). Creating a communicator ANDs the masks of every
// member of the parent (an Allreduce with MPI_BAND) and takes the lowest id
// free everywhere, so no process ever holds two live communicators with the
// same id: a message's (context, source rank) names exactly one
// communicator at its receiver. Disjoint communicators made by one split
// may share an id; their members never talk to each other through it.
#pragma once
#include <cstdint>

#include "device/comm.hpp"
#include "util/status.hpp"

namespace ch4lite::dev {

// All ids free except MPI_COMM_WORLD's (0) and MPI_COMM_SELF's (1).
void context_ids_init() noexcept;
// Collective over `parent`. status::exhausted when no id is free on every
// member (32765 communicators live, or a member offered none). A member
// that cannot use an id (offer false: it could not build its part of the
// new object) offers none, so every member fails alike.
status context_id_allocate(comm& parent, uint32_t& id, bool offer = true) noexcept;
void context_id_release(uint32_t id) noexcept;
// Ids free on this process.
int context_ids_free() noexcept;
// Whether messages of communicator context `ctx` (id << 1 | collective)
// can only be stale: its id is free here and no allocation (which may be
// about to take it, with peers already sending on it) is in progress.
bool context_stale(uint32_t ctx) noexcept;

}  // namespace ch4lite::dev
