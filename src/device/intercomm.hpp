// SPDX-License-Identifier: MIT
// Intercommunicators (MPI-4.1 §7.6). An intercommunicator is a dev::comm
// whose map and size are the remote group's and whose rank is mine in the
// local group (comm.hpp), so point-to-point needs nothing of its own: a
// send to rank r goes to remote process r and carries my local rank, which
// is what the remote side sees as the source. The local group lives in
// `inter->local`, an intracommunicator over it with its own context id that
// the intercommunicator collectives use for their intra-group phases.
//
// Every constructor agrees on context ids over both groups: each group
// ANDs its members' free-id masks (an allreduce on its local
// communicator), the two leaders (local rank 0, or the leaders of
// MPI_Intercomm_create) exchange and AND the results, and each leader
// broadcasts the common mask to its group; everyone takes the lowest free
// ids. The intercommunicator gets the lowest, its local communicators the
// next one (the two groups are disjoint, so both may use it).
#pragma once
#include <cstdint>

#include "device/comm.hpp"
#include "device/group.hpp"
#include "util/status.hpp"

namespace ch4lite::dev {

struct inter_state {
    comm* local = nullptr;  // intracommunicator over the local group; owned
    // The group whose smallest lpid is the smaller is "low": it comes first
    // in MPI_Intercomm_merge when both pass the same `high`.
    bool low = false;
    ~inter_state();
};

inline int local_size(const comm& c) noexcept { return c.inter ? c.inter->local->size : c.size; }
group comm_remote_group(const comm& ic);

// How the leaders of MPI_Intercomm_create reach each other: the remote
// leader's lpid and the tag, on a context of the bridge (group_comm.hpp).
struct leader_link {
    uint32_t ctx;
    int remote_lpid;
    int tag;
    // MPI_Intercomm_create with an intracommunicator peer_comm: the leaders
    // talk in peer_comm itself (its point-to-point context, the user's tag,
    // remote_rank its rank there), as the standard describes and MPICH
    // does, so that calls from several threads with different peer
    // communicators never match each other's messages. Else (an
    // intercommunicator peer_comm, MPI_Intercomm_create_from_groups):
    // context ctx of the world bridge, remote_lpid.
    comm* peer = nullptr;
    int remote_rank = -1;
};

// MPI_Intercomm_create over `local` (collective over it; `link` is used by
// the local leader only). status::invalid when the groups overlap (every
// member of both groups fails alike); status::range on every member of the
// local group when its leader's link has no peer (remote_lpid < 0: the
// leader's own arguments were bad).
status intercomm_create(comm& local, int local_leader, const leader_link& link,
                        MPI_Errhandler eh, comm*& out) noexcept;
// MPI_Intercomm_merge: an intracommunicator over both groups, the group
// with high == false first (the low group first when both pass the same).
status intercomm_merge(comm& ic, bool high, comm*& out) noexcept;
// MPI_Comm_dup, split and create of an intercommunicator. Split and create
// give nullptr when my color is MPI_UNDEFINED / I am not in g, or when the
// local or the remote part of the result is empty.
status intercomm_dup(comm& ic, comm*& out, bool offer = true) noexcept;
status intercomm_split(comm& ic, int color, int key, comm*& out) noexcept;
status intercomm_create_sub(comm& ic, const group& g, comm*& out) noexcept;

}  // namespace ch4lite::dev
