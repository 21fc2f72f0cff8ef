// SPDX-License-Identifier: MIT
#include "device/comm_create.hpp"

#include <algorithm>
#include <memory>
#include <new>
#include <vector>

#include "device/coll.hpp"
#include "device/coll_p2p.hpp"
#include "device/context_id.hpp"
#include "device/device.hpp"
#include "device/request.hpp"
#include "util/pool_buffer.hpp"

namespace ch4lite::dev {

namespace {

// Freed communicators that requests still point to.
std::vector<comm*> g_graveyard;

// Deletes graveyard entries no request refers to any more, releasing their
// context ids. Cheap when the graveyard is empty (the usual case).
void reap() noexcept {
    if (g_graveyard.empty()) return;
    std::vector<const comm*> busy;
    request_pool().for_each_in_use([&](const request* r) {
        if (r->c) busy.push_back(r->c);
    });
    std::erase_if(g_graveyard, [&](comm* c) {
        if (std::find(busy.begin(), busy.end(), c) != busy.end()) return false;
        context_id_release(c->context_id);
        delete c;
        return true;
    });
}

// A new communicator with a handle, for the members of g (I am one).
status make_comm(const comm& parent, uint32_t ctx, const group& g, comm*& out) noexcept {
    auto* c = new (std::nothrow) comm;
    if (!c) return status::no_mem;
    c->context_id = ctx;
    c->rank = g.my_rank();
    c->size = g.size();
    c->map = g.map();
    c->errhandler = parent.errhandler;
    c->handle = comm_table().insert(c);
    if (!c->handle) {
        delete c;
        return status::no_mem;
    }
    out = c;
    return status::ok;
}

// Allocates a context id over parent and, if I am in g, the communicator.
status create_from(comm& parent, const group& g, comm*& out) noexcept {
    out = nullptr;
    reap();
    uint32_t ctx = 0;
    if (const status s = context_id_allocate(parent, ctx); s != status::ok) return s;
    if (g.my_rank() < 0) {
        context_id_release(ctx);  // the members keep it; I am not one
        return status::ok;
    }
    const status s = make_comm(parent, ctx, g, out);
    if (s != status::ok) context_id_release(ctx);
    return s;
}

}  // namespace

group comm_group(const comm& c) { return group(c.map, c.lpid(c.rank)); }

status comm_dup(comm& parent, comm*& out) noexcept {
    return create_from(parent, comm_group(parent), out);
}

status comm_create(comm& parent, const group& g, comm*& out) noexcept {
    return create_from(parent, g, out);
}

status comm_split(comm& parent, int color, int key, comm*& out) noexcept {
    const int p = parent.size;
    util::scratch sb;
    auto* all = reinterpret_cast<int*>(sb.get(static_cast<std::size_t>(p) * 2 * sizeof(int)));
    if (!all) return status::no_mem;
    all[2 * parent.rank] = color;
    all[2 * parent.rank + 1] = key;
    if (const status s = coll_allgather(all, 2 * sizeof(int), parent); s != status::ok) return s;
    std::vector<int> colors(static_cast<std::size_t>(p)), keys(static_cast<std::size_t>(p));
    for (int r = 0; r < p; ++r) {
        colors[r] = all[2 * r];
        keys[r] = all[2 * r + 1];
    }
    return create_from(parent,
                       group_split(comm_group(parent), colors.data(), keys.data(), MPI_UNDEFINED),
                       out);
}

void comm_release(comm* c) noexcept {
    if (c->predefined() || --c->refs > 0) return;
    comm_table().erase(c->handle);
    c->attrs.clear();
    g_graveyard.push_back(c);
    reap();
}

int comm_compare(const comm& a, const comm& b) noexcept {
    if (&a == &b) return MPI_IDENT;
    const int g = group_compare(comm_group(a), comm_group(b));
    return g == MPI_IDENT ? MPI_CONGRUENT : g;
}

std::size_t comms_pending_free() noexcept { return g_graveyard.size(); }

void comms_destroy_all() noexcept {
    std::vector<comm*> live;
    comm_table().for_each([&](comm* c) { live.push_back(c); });
    for (comm* c : live) {
        comm_table().erase(c->handle);
        delete c;
    }
    for (comm* c : g_graveyard) delete c;
    g_graveyard.clear();
}

}  // namespace ch4lite::dev
