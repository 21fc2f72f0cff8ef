// SPDX-License-Identifier: MIT
// The node segment of a window (docs/rma.md, "Shared memory"): every
// window's node members share one segment for their slots, and a
// Win_allocate window also places its memory there. The lowest comm rank of each node creates one segment for the
// node's members of the window (name ch4lite-<uid>-<job key>-w<random>,
// O_EXCL, mode 0600, checked on attach; shm/segment.hpp), the others attach,
// and the creator unlinks it once everybody reported: nothing stays in
// /dev/shm even if the job is killed later (and mpiexec removes
// ch4lite-<uid>-<job key>-* of a killed job anyway).
//
// Layout: one 64-byte slot per local member ({epoch it is in, accumulate
// lock, fence words}), then (Win_allocate) each member's memory, page
// aligned, in comm-rank order. Collective over the window's communicator;
// if any member of a node cannot create or attach, that node's members use
// private memory and fence messages.
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstring>
#include <new>
#include <span>
#include <vector>

#include "coll/coll.hpp"
#include "device/comm.hpp"
#include "device/device.hpp"
#include "rma/win_internal.hpp"
#include "util/env.hpp"
#include "util/log.hpp"

namespace ch4lite::rma {

namespace {

constexpr uint64_t page = 4096;
uint64_t round_up(uint64_t v) { return (v + page - 1) & ~(page - 1); }

struct node_info {  // allgathered
    uint64_t size;
    int32_t node;   // node id of the member, -1 when shm does not reach it
    int32_t ok;     // second round: attached
    char name[64];  // second round: the creator's segment name
};

bool enabled() noexcept {
    static const bool on = util::env_bool("CH4LITE_RMA_SHM", true);
    return on;
}

}  // namespace

std::size_t node_scratch_bytes(int n) noexcept {
    return static_cast<std::size_t>(n) * (sizeof(node_info) + sizeof(int));
}

bool node_segment(win* w, seg_layout layout, int32_t& shm_off) noexcept {
    struct release_scratch {
        win* w;
        ~release_scratch() { std::vector<std::byte>().swap(w->node_scratch); }
    } const release{w};
    shm_off = -1;
    const int n = w->nranks(), me = w->rank();
    const bool memory = layout != seg_layout::slots;
    // A shared window has its segment whatever the switches say: its members
    // are on one node (checked below) and load/store is its point.
    const bool shared = w->fl == flavor::shared;
    // The same answer on every member: shm on, and more than one member on some node.
    if (!shared && (!enabled() || !shm::transport::enabled())) return false;
    auto* info = reinterpret_cast<node_info*>(w->node_scratch.data());
    std::fill_n(info, n, node_info{});
    node_info& mine = info[me];
    mine.size = memory ? w->size : 0;
    const auto& nodes = dev::g_dev.boot.node_of();
    mine.node = nodes[static_cast<std::size_t>(dev::g_dev.world_rank)];
    if (coll::allgather(info, sizeof(node_info), *w->comm) != status::ok) return false;
    // My node's members (comm-rank order); their slots and offsets.
    int* const local_ranks = reinterpret_cast<int*>(info + n);
    std::size_t nlocal = 0;
    for (int r = 0; r < n; ++r)
        if (r == me || (info[r].node == mine.node && (shared || dev::g_dev.shm.local(w->lpid(r)))))
            local_ranks[nlocal++] = r;
    const std::span<const int> locals(local_ranks, nlocal);
    if (shared && nlocal != static_cast<std::size_t>(n)) return false;  // not all on this node
    // Each member's memory on its own pages, or (packed: a shared window's
    // default) one member's right after the previous one's.
    auto mem_bytes = [&](int r) {
        return layout == seg_layout::packed ? info[r].size : round_up(info[r].size);
    };
    uint64_t total = round_up(64 * locals.size());
    {
        uint64_t mem = 0;
        for (int r : locals) mem += mem_bytes(r);
        total += round_up(mem);
    }
    const bool creator = locals.front() == me;
    std::string why;
    status s = status::ok;
    // Out of memory here (names, messages) fails the segment, which round 3
    // tells every member of the node.
    // A shared window of one member still gets its segment (load/store
    // through Win_shared_query works on any node size).
    const bool want = (locals.size() > 1 || shared) && locals.size() <= sync_max_local;
    if (want && creator) {
        try {
            s = shm::segment::create_unique(dev::g_dev.boot.job_key(), 'w', total, w->seg, why);
        } catch (const std::bad_alloc&) {
            s = status::no_mem;
        }
        if (s == status::ok) std::snprintf(mine.name, sizeof mine.name, "%s", w->seg.name().c_str());
    }
    // Round 2: the creators' names.
    mine.ok = 1;
    if (coll::allgather(info, sizeof(node_info), *w->comm) != status::ok) return false;
    if (want && !creator) {
        const node_info& c = info[locals.front()];
        try {
            s = c.name[0] ? shm::segment::attach(c.name, total, w->seg, why) : status::io;
        } catch (const std::bad_alloc&) {
            s = status::no_mem;
        }
    }
    if (!want) s = status::unsupported;
    if (s != status::ok && want) util::verbose("rma: window segment: %s", why.c_str());
    // Round 3: did everybody of my node get it?
    mine.ok = s == status::ok;
    if (coll::allgather(info, sizeof(node_info), *w->comm) != status::ok) return false;
    bool all = want;
    for (int r : locals) all = all && info[r].ok;
    if (creator) w->seg.unlink();
    if (!all) {
        w->seg.reset();
        return false;
    }
    uint64_t off = round_up(64 * locals.size());
    for (std::size_t i = 0; i < locals.size(); ++i) {
        const int r = locals[i];
        if (memory) w->direct_base[static_cast<std::size_t>(r)] = w->seg.base() + off;
        w->slot_of[static_cast<std::size_t>(r)] = reinterpret_cast<node_slot*>(w->seg.base() + 64 * i);
        if (r == me) shm_off = static_cast<int32_t>(i);
        else w->node_peers.push_back(r);
        off += mem_bytes(r);
    }
    if (memory) w->base = w->direct_base[static_cast<std::size_t>(me)];
    w->my_slot = w->slot_of[static_cast<std::size_t>(me)];
    w->all_node = locals.size() == static_cast<std::size_t>(n);
    return true;
}

void map_node_peers(win* w) noexcept {
    // Publish that I am in epoch 0. A Win_create window reaches the memory
    // of node peers by cross-memory attach where the shm transport found it
    // usable (CH4LITE_SHM_CMA) and CH4LITE_RMA_CMA is not 0.
    if (!w->my_slot) return;
    static const bool cma = util::env_bool("CH4LITE_RMA_CMA", true);
    for (int r : w->node_peers) {
        const auto i = static_cast<std::size_t>(r);
        w->cma_ok[i] = cma && w->fl == flavor::create && !w->direct_base[i] && w->peers[i].pid > 0 &&
                       dev::g_dev.shm.cma_ok(w->lpid(r));
    }
    std::atomic_ref<uint32_t>(w->my_slot->epoch).store(w->epoch, std::memory_order_release);
}

}  // namespace ch4lite::rma
