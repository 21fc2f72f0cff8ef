// SPDX-License-Identifier: MIT
// Communicators (device view). A communicator is a context id, my rank, its
// size and a rank map; no per-peer objects. Point-to-point traffic uses
// context `ctx_p2p()`, collectives `ctx_coll()`, so the two never match each
// other. MPI_COMM_WORLD has context id 0 and MPI_COMM_SELF 1; ids of other
// communicators are allocated collectively (device/context_id.hpp) and
// created by device/comm_create.hpp.
#pragma once
#include <mpi.h>

#include <cstdint>
#include <memory>
#include <string>

#include "coll/turns.hpp"
#include "device/attr.hpp"
#include "device/rank_map.hpp"
#include "util/handle_table.hpp"

namespace ch4lite::topo {
struct topology;  // src/topo/topology.hpp
}  // namespace ch4lite::topo

// A communicator's staging segment for collectives on one node
// (coll/stage.hpp); freed with the communicator.
namespace ch4lite::coll {
struct stage_seg;
struct stage_deleter {
    void operator()(stage_seg* s) const noexcept;
};
}  // namespace ch4lite::coll

namespace ch4lite::dev {

// What an intercommunicator has beyond an intracommunicator
// (device/intercomm.hpp); freed with it.
struct inter_state;
struct inter_deleter {
    void operator()(inter_state* s) const noexcept;
};

// An intercommunicator is a comm whose `map` and `size` are those of the
// remote group (point-to-point ranks name remote processes, so the send and
// receive paths are the intracommunicator's, unchanged) while `rank` is my
// rank in the local group; `inter` holds the local group and an
// intracommunicator over it.
class comm {
  public:
    uintptr_t handle = 0;   // the MPI_Comm value users hold
    uint32_t context_id = 0;
    int rank = 0;
    int size = 1;
    rank_map map;
    MPI_Errhandler errhandler = MPI_ERRORS_ARE_FATAL;
    int refs = 1;           // user handles (MPI_Comm_free drops one)
    // Every member is reached through shm: 1 yes, 0 no, -1 not known yet
    // (collectives compute it on first use; members never change).
    int8_t all_local = -1;
    // Staging segment, set up (collectively) by the first collective that
    // wants it; null when that failed or was never tried (stage_tried).
    bool stage_tried = false;
    // A nonblocking collective is setting it up (coll/stage.cpp, add_setup;
    // docs/collectives-staged.md, "Scheduled broadcast"): a member that
    // wants it waits for the outcome first.
    bool stage_pending = false;
    std::unique_ptr<coll::stage_seg, coll::stage_deleter> stage;
    // The broadcast slots' users, blocking and scheduled, take turns in
    // collective order (coll/turns.hpp, coll/stage.cpp).
    coll::turns stage_turns;
    std::string name;
    attr_list attrs;        // cached attributes (callbacks run in src/api)
    uint8_t hints = 0;      // MPI_Comm_set_info assertions we keep (api/comm_info.cpp)
    bool reap_busy = false; // freed, and a request still points here (comm_create.cpp)
    // Collective schedules created on this communicator so far (the tag of
    // the next one: coll::next_tag; the same count on every member).
    uint32_t sched_seq = 0;
    // Process topology (src/topo): immutable, shared with dups; null when none.
    std::shared_ptr<const topo::topology> topo;
    // Intercommunicator state; null for an intracommunicator.
    std::unique_ptr<inter_state, inter_deleter> inter;
    // An intercommunicator's local communicator points to its intercommunicator
    // (a request on it keeps the intercommunicator alive); null otherwise.
    comm* owner = nullptr;

    uint32_t ctx_p2p() const noexcept { return context_id << 1; }
    uint32_t ctx_coll() const noexcept { return (context_id << 1) | 1u; }
    int lpid(int r) const noexcept { return map.lpid(r); }
    bool predefined() const noexcept { return context_id < 2; }
    bool is_inter() const noexcept { return inter != nullptr; }
};

// The predefined communicators (valid between MPI_Init and MPI_Finalize).
extern comm g_world, g_self;
inline comm& comm_world() noexcept { return g_world; }
inline comm& comm_self() noexcept { return g_self; }
// Communicators created at run time (dup, split, create): their handles.
util::handle_table<comm, util::handle_kind::comm>& comm_table() noexcept;
// Sets up WORLD and SELF from the bootstrap's rank and size, the context
// ids, the pack-buffer pool and the collective tuning.
void comms_init(int world_rank, int world_size);
// Destroys every communicator still alive (MPI_Finalize).
void comms_finalize();

// Highest context id (exclusive) usable in the 16-bit context field of a match.
inline constexpr uint32_t max_context_ids = 1u << 15;

}  // namespace ch4lite::dev
