// SPDX-License-Identifier: MIT
#include "device/comm.hpp"

#include "coll/coll.hpp"
#include "device/comm_create.hpp"
#include "device/context_id.hpp"
#include "device/group_comm.hpp"
#include "util/pool_buffer.hpp"

namespace ch4lite::dev {

comm g_world;
comm g_self;

namespace {
util::handle_table<comm, util::handle_kind::comm> g_comm_table;
}  // namespace

util::handle_table<comm, util::handle_kind::comm>& comm_table() noexcept { return g_comm_table; }


void comms_init(int world_rank, int world_size) {
    g_world = comm{};
    g_world.handle = reinterpret_cast<uintptr_t>(MPI_COMM_WORLD);
    g_world.context_id = 0;
    g_world.rank = world_rank;
    g_world.size = world_size;
    g_world.map = rank_map::direct(world_size);
    g_world.name = "MPI_COMM_WORLD";

    g_self = comm{};
    g_self.handle = reinterpret_cast<uintptr_t>(MPI_COMM_SELF);
    g_self.context_id = 1;
    g_self.rank = 0;
    g_self.size = 1;
    const int me = world_rank;
    g_self.map = rank_map::detect(&me, 1);
    g_self.name = "MPI_COMM_SELF";

    bridge_init(world_rank, world_size);
    context_ids_init();
    coll::init();
    // Collectives stage data in pack buffers; without them they use the heap.
    (void)util::pack_buffers_init();
}

void comms_finalize() {
    comms_destroy_all();
    g_world.map = rank_map();
    g_self.map = rank_map();
    g_world.attrs.clear();
    g_self.attrs.clear();
    util::pack_buffers_finalize();
}

}  // namespace ch4lite::dev
