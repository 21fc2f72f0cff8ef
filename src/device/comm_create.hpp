// SPDX-License-Identifier: MIT
// Creating, comparing and destroying communicators. Creation is collective
// over the parent (every member calls, in the same order as its other
// collectives on the parent): it agrees on a context id
// (device/context_id.hpp) and builds the new rank map from a group
// (device/group.hpp), so a regular communicator stays O(1) in memory and a
// dup shares its parent's lookup table.
//
// When one member runs out of memory, every member's call fails (the
// context-id agreement carries it): no_mem there, exhausted elsewhere.
//
// The new communicator has a handle in comm_table(), refs = 1 and the
// parent's error handler value; reference counts of error handlers and
// attribute copying are the API layer's business.
#pragma once
#include "device/comm.hpp"
#include "device/group.hpp"
#include "util/status.hpp"

namespace ch4lite::dev {

// The group of a communicator (shares its rank map).
group comm_group(const comm& c);

// offer false: this member cannot use the new communicator (its caller ran
// out of memory preparing for it); creation then fails on every member,
// with no_mem here and exhausted elsewhere.
status comm_dup(comm& parent, comm*& out, bool offer = true) noexcept;
// MPI_Comm_create: `g` is this process's group argument (a subgroup of the
// parent; different processes may pass disjoint groups). out = nullptr when
// this process is not in g. offer: as for comm_dup.
status comm_create(comm& parent, const group& g, comm*& out, bool offer = true) noexcept;
// MPI_Comm_split; color MPI_UNDEFINED gives out = nullptr. offer: as for comm_dup.
status comm_split(comm& parent, int color, int key, comm*& out, bool offer = true) noexcept;

// Drops the user's reference. The communicator (and its context id) lives
// on while a request still refers to it: MPI lets pending operations of a
// freed communicator complete.
void comm_release(comm* c) noexcept;
// MPI_Comm_disconnect's local part: posts the armed persistent receives of
// c (device/lazy_recv.hpp) and drives progress until no request on c (or on
// an intercommunicator's local communicator) is incomplete: its pending
// sends, receives and collectives have completed. Requests completed but not
// yet waited for stay (they refer to c, which comm_release keeps alive).
// Like MPI_Finalize, it relies on every pending operation being matched.
void comm_quiesce(comm& c) noexcept;
// Deletes freed communicators no request refers to any more and releases
// their context ids (done at every creation; garbage collection calls it
// too, device/pool_gc.cpp).
void comms_reap() noexcept;

// MPI_IDENT, MPI_CONGRUENT, MPI_SIMILAR or MPI_UNEQUAL.
int comm_compare(const comm& a, const comm& b) noexcept;

// For constructors that agree on their context ids themselves
// (device/intercomm.cpp): comm_make gives a communicator with a handle and
// the error handler eh (the caller fills rank, size, map); comm_commit gives
// it its context id and counts it live; comm_discard undoes comm_make.
status comm_make(MPI_Errhandler eh, comm*& out) noexcept;
void comm_commit(comm* c, uint32_t ctx) noexcept;
void comm_discard(comm* c) noexcept;

// Destroys every created communicator, freed or not (MPI_Finalize).
void comms_destroy_all() noexcept;

}  // namespace ch4lite::dev
