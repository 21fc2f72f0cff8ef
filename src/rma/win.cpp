// SPDX-License-Identifier: MIT
// Window creation and destruction, and the two ways to find a window: the
// user's handle (a handle table) and the context id on the wire.
#include "rma/win.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <iterator>
#include <cstring>
#include <new>

#include "coll/coll.hpp"
#include "device/comm.hpp"
#include "device/comm_create.hpp"
#include "rma/native.hpp"
#include "rma/pools.hpp"
#include "rma/queue.hpp"
#include "rma/progress.hpp"
#include "rma/rma.hpp"
#include "rma/win_internal.hpp"
#include "util/handle_table.hpp"
#include "util/log.hpp"

namespace ch4lite::rma {

util::handle_table<win, util::handle_kind::win> detail::g_wins;
using detail::g_wins;

namespace {
std::vector<win*> g_by_ctx;  // context id of the window's communicator -> window
}  // namespace

int win::lpid(int r) const noexcept { return comm->lpid(r); }

win* by_context(uint32_t ctx) noexcept {
    return ctx < g_by_ctx.size() ? g_by_ctx[ctx] : nullptr;
}

namespace {

// What the window needs locally: per-peer state, its handle, the table
// from context ids to windows. false when memory ran out.
bool prepare(win* w, std::size_t n) noexcept {
    try {
        if (g_by_ctx.empty()) g_by_ctx.resize(dev::max_context_ids, nullptr);
        w->tq = std::vector<target_q>(n);
        w->replies = std::vector<buffer>(n);
        w->reply_recs.assign(n, 0);
        w->cma_ok.assign(n, 0);
        w->splits.assign(n, {});
        w->direct_base.assign(n, nullptr);
        w->views.assign(n, nullptr);
        w->view_tried.assign(n, 0);
        w->remap_credit.assign(n, 0);
        w->slot_of.assign(n, nullptr);
        w->peers.resize(n);
        w->entered.assign(n, ~0u);
        w->tsync.assign(n, {});
        w->from = std::vector<origin_sync>(n);
        w->active.reserve(n);  // each target at most once per epoch: no allocation in an op
        w->touched.reserve(n);
        w->node_peers.reserve(n);
        w->node_scratch.resize(node_scratch_bytes(static_cast<int>(n)));
    } catch (const std::bad_alloc&) {
        return false;
    }
    w->handle = g_wins.insert(w);
    return w->handle != 0;
}

// The private communicator, registered before the exchange so that a peer
// that finishes creation first can already reach us. Everything local is
// prepared first: a member that cannot prepare makes the communicator's
// creation, and so the window's, fail on every member.
status begin(win* w, dev::comm& c) noexcept {
    const bool ok = pools_init() == status::ok && prepare(w, static_cast<std::size_t>(c.size));
    const status s = dev::comm_dup(c, w->comm, ok);
    if (s != status::ok) return s;
    w->comm_rank = w->comm->rank;
    w->comm_size = w->comm->size;
    g_by_ctx[w->comm->context_id] = w;
    set_batch_limits(*w);
    return status::ok;
}

// The exchange of (base, size, disp_unit) and the attributes. A member
// whose memory could not be allocated (mine.failed) fails with no_mem, and
// every other member with exhausted.
status finish(win* w, peer_info mine) noexcept {
    w->peers[static_cast<std::size_t>(w->rank())] = mine;
    status s = coll::allgather(w->peers.data(), sizeof(peer_info), *w->comm);
    if (s != status::ok) return s;
    for (const peer_info& p : w->peers)
        if (p.failed) return mine.failed ? status::no_mem : status::exhausted;
    w->attr_base = w->base;
    w->attr_size = static_cast<MPI_Aint>(w->size);
    w->attr_disp_unit = static_cast<int>(w->disp_unit);
    switch (w->fl) {
        case flavor::create: w->attr_flavor = MPI_WIN_FLAVOR_CREATE; break;
        case flavor::allocate: w->attr_flavor = MPI_WIN_FLAVOR_ALLOCATE; break;
        case flavor::shared: w->attr_flavor = MPI_WIN_FLAVOR_SHARED; break;
        case flavor::dynamic: w->attr_flavor = MPI_WIN_FLAVOR_DYNAMIC; break;
    }
    w->attr_model = MPI_WIN_UNIFIED;
    return status::ok;
}

// No memory for the window object: the other members are about to agree
// on the window's communicator; join that agreement offering nothing, so
// that it (and the creation) fails on all of them too.
status refuse(dev::comm& c) noexcept {
    dev::comm* none = nullptr;
    (void)dev::comm_dup(c, none, false);
    return status::no_mem;
}

void destroy(win* w) noexcept {
    forget_waiting(w);
    native_release(w);
    unmap_remapped(w);
    if (w->comm) {
        const uint32_t ctx = w->comm->context_id;
        if (ctx < g_by_ctx.size() && g_by_ctx[ctx] == w) g_by_ctx[ctx] = nullptr;
        dev::comm_release(w->comm);
    }
    if (w->handle) g_wins.erase(w->handle);
    std::free(w->heap);
    delete w;
}

}  // namespace

status win_create(void* base, uint64_t size, int64_t disp_unit, dev::comm& c,
                  win*& out) noexcept {
    win* w = new (std::nothrow) win;
    if (!w) return refuse(c);
    w->base = static_cast<std::byte*>(base);
    w->size = size;
    w->disp_unit = disp_unit;
    w->fl = flavor::create;
    status s = begin(w, c);
    int32_t node_idx = -1;
    if (s == status::ok) (void)node_segment(w, seg_layout::slots, node_idx);
    peer_info mine{reinterpret_cast<uint64_t>(base), size, disp_unit,
                   static_cast<int32_t>(::getpid()), -1, 0, 0, 0, 0};
    if (s == status::ok) native_register(w, mine);
    if (s == status::ok) s = finish(w, mine);
    if (s == status::ok) map_node_peers(w);
    if (s != status::ok) {
        destroy(w);
        return s;
    }
    out = w;
    return status::ok;
}

status win_allocate(uint64_t size, int64_t disp_unit, dev::comm& c, void*& base,
                    win*& out) noexcept {
    win* w = new (std::nothrow) win;
    if (!w) return refuse(c);
    w->size = size;
    w->disp_unit = disp_unit;
    w->fl = flavor::allocate;
    status s = begin(w, c);
    if (s != status::ok) {
        destroy(w);
        return s;
    }
    // Collective from here on: every member reaches the exchange even when
    // its own allocation failed; the exchange then fails everywhere.
    status mem = status::ok;
    int32_t shm_off = -1;
    if (!node_segment(w, seg_layout::paged, shm_off)) {
        if (posix_memalign(&w->heap, 64, size ? size : 1) != 0) {
            w->heap = nullptr;
            mem = status::no_mem;
        }
        w->base = static_cast<std::byte*>(w->heap);
    }
    peer_info mine{reinterpret_cast<uint64_t>(w->base), size, disp_unit,
                   static_cast<int32_t>(::getpid()), shm_off, 0, 0, 0, 0};
    mine.failed = mem != status::ok;
    if (mem == status::ok) native_register(w, mine);
    s = finish(w, mine);
    if (s == status::ok) map_node_peers(w);
    if (s != status::ok) {
        destroy(w);
        return s;
    }
    base = w->base;
    out = w;
    return status::ok;
}

status win_allocate_shared(uint64_t size, int64_t disp_unit, bool noncontig, dev::comm& c,
                           void*& base, win*& out) noexcept {
    win* w = new (std::nothrow) win;
    if (!w) return refuse(c);
    w->size = size;
    w->disp_unit = disp_unit;
    w->fl = flavor::shared;
    w->hint_noncontig = noncontig;
    status s = begin(w, c);
    if (s != status::ok) {
        destroy(w);
        return s;
    }
    int32_t shm_off = -1;
    // Every member gets the segment or none does (then not all share a node).
    if (!node_segment(w, noncontig ? seg_layout::paged : seg_layout::packed, shm_off)) {
        destroy(w);
        return status::unsupported;
    }
    peer_info mine{reinterpret_cast<uint64_t>(w->base), size, disp_unit,
                   static_cast<int32_t>(::getpid()), shm_off, 0, 0, 0, 0};
    s = finish(w, mine);
    if (s == status::ok) map_node_peers(w);
    if (s != status::ok) {
        destroy(w);
        return s;
    }
    base = w->base;
    out = w;
    return status::ok;
}

status win_create_dynamic(dev::comm& c, win*& out) noexcept {
    win* w = new (std::nothrow) win;
    if (!w) return refuse(c);
    w->fl = flavor::dynamic;
    status s = begin(w, c);
    int32_t node_idx = -1;
    // The slots still serve: fence words, epochs, lock words, accumulate locks.
    if (s == status::ok) (void)node_segment(w, seg_layout::slots, node_idx);
    const peer_info mine{0, 0, 1, static_cast<int32_t>(::getpid()), -1, 0, 0, 0, 0};
    if (s == status::ok) s = finish(w, mine);
    if (s == status::ok) map_node_peers(w);
    if (s != status::ok) {
        destroy(w);
        return s;
    }
    out = w;
    return status::ok;
}

status attach(win& w, void* base, uint64_t size) noexcept {
    if (size == 0) return status::ok;  // nothing to reach
    const auto lo = static_cast<uint64_t>(reinterpret_cast<uintptr_t>(base));
    if (size > UINT64_MAX - lo) return status::invalid;
    const dyn_region r{lo, lo + size};
    auto it = std::lower_bound(w.regions.begin(), w.regions.end(), r,
                               [](const dyn_region& a, const dyn_region& b) { return a.lo < b.lo; });
    if (it != w.regions.end() && it->lo < r.hi) return status::invalid;
    if (it != w.regions.begin() && std::prev(it)->hi > r.lo) return status::invalid;
    try {
        w.regions.insert(it, r);
    } catch (const std::bad_alloc&) {
        return status::no_mem;
    }
    return status::ok;
}

status detach(win& w, const void* base) noexcept {
    const auto lo = static_cast<uint64_t>(reinterpret_cast<uintptr_t>(base));
    for (auto it = w.regions.begin(); it != w.regions.end(); ++it)
        if (it->lo == lo) {
            w.regions.erase(it);
            return status::ok;
        }
    return status::invalid;
}

status win_free(win* w) noexcept {
    // Our replies and messages must be gone, and nobody may still read or
    // write our memory: drain, then synchronize the members.
    wait_until([w] { return w->inflight == 0; });
    const status s = coll::barrier(*w->comm);
    // Remapped memory goes back by copy: no shm sender may still be writing
    // half of a large message into it (win_remap.cpp).
    if (w->remap_fd >= 0) wait_until([] { return dev::g_dev.splits_pending == 0; });
    util::verbose("rma: window freed (%llu native puts/gets issued by this process so far)",
                  static_cast<unsigned long long>(native_ops_issued()));
    destroy(w);
    return s;
}

}  // namespace ch4lite::rma
