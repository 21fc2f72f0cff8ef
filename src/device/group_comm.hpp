// SPDX-License-Identifier: MIT
// Constructors with no parent communicator to talk on: the leaders of
// MPI_Intercomm_create (who share only the peer communicator, whose
// contexts belong to the user), MPI_Comm_create_group (collective over a
// group only) and MPI_Intercomm_create_from_groups (over two groups).
// They talk through the bridge: a communicator object over the whole world
// (rank = world rank = lpid) on the reserved context ids 2 and 3
// (context_id.hpp), one context per purpose, with the caller's tag.
// Because peers are named by world rank, two such constructions that a
// process runs one after the other never take each other's messages, even
// when their groups overlap differently.
#pragma once
#include <mpi.h>

#include <cstddef>
#include <cstdint>

#include "device/comm.hpp"
#include "device/group.hpp"
#include "util/status.hpp"

namespace ch4lite::dev {

enum bridge_ctx : uint32_t {
    ctx_intercomm_leaders = 4,  // MPI_Intercomm_create: leader <-> leader, user tag
    ctx_create_group = 5,       // MPI_Comm_create_group: the group's agreement, user tag
    ctx_groups_leaders = 6,     // MPI_Intercomm_create_from_groups: leaders, stringtag hash
    ctx_groups_members = 7,     // ... its local groups' agreements, stringtag hash
};

// Set up by comms_init.
void bridge_init(int world_rank, int world_size) noexcept;
comm& bridge() noexcept;

// Sends sn bytes to rank `peer` of c and receives exactly rn from it
// (status::truncated otherwise), on context ctx with `tag`.
status sendrecv_on(uint32_t ctx, comm& c, int peer, int tag, const void* sbuf, std::size_t sn,
                   void* rbuf, std::size_t rn) noexcept;
// The same on the bridge (peer: a world rank).
status bridge_sendrecv(uint32_t ctx, int peer, int tag, const void* sbuf, std::size_t sn,
                       void* rbuf, std::size_t rn) noexcept;
// ANDs `words` mask words over the members of g (each calls it; I am one):
// a binomial reduce to g's rank 0 and a broadcast back.
status group_band(uint32_t ctx, const group& g, int tag, uint64_t* mask, int words) noexcept;

// MPI_Comm_create_group: a communicator over g (I am a member), agreed
// among g's members only; error handler eh. offer: as for comm_dup.
status comm_create_group(const group& g, int tag, uint32_t ctx, MPI_Errhandler eh, comm*& out,
                         bool offer = true) noexcept;

}  // namespace ch4lite::dev
