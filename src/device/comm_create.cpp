// SPDX-License-Identifier: MIT
#include "device/comm_create.hpp"

#include <algorithm>
#include <memory>
#include <new>
#include <vector>

#include "coll/coll.hpp"
#include "coll/p2p.hpp"
#include "device/context_id.hpp"
#include "device/device.hpp"
#include "device/intercomm.hpp"
#include "device/lazy_recv.hpp"
#include "device/progress.hpp"
#include "device/request.hpp"
#include "util/pool_buffer.hpp"

namespace ch4lite::dev {

namespace {

// Freed communicators that requests still point to. Its capacity always
// covers every live created communicator, so comm_release never allocates.
std::vector<comm*> g_graveyard;
std::size_t g_live = 0;  // created communicators not yet released

// Deletes graveyard entries no request refers to any more, releasing their
// context ids: one pass over the requests marks the entries still in use
// (a graveyard entry is the only communicator with no reference left).
// Nothing to do when the graveyard is empty (the usual case).
void reap() noexcept {
    if (g_graveyard.empty()) return;
    for (comm* c : g_graveyard) c->reap_busy = false;
    request_pool().for_each_in_use([](const request* r) {
        comm* c = r->c;
        if (c && c->owner) c = c->owner;  // an intercommunicator's local communicator
        if (c && c->refs == 0) c->reap_busy = true;
    });
    std::erase_if(g_graveyard, [](comm* c) {
        if (c->reap_busy) return false;
        context_id_release(c->context_id);
        delete c;
        return true;
    });
}

}  // namespace

void comms_reap() noexcept { reap(); }

namespace {

// A new communicator with a handle, for the members of g (I am one); its
// context id comes later.
status make_comm(const comm& parent, const group& g, comm*& out) noexcept {
    if (const status s = comm_make(parent.errhandler, out); s != status::ok) return s;
    out->rank = g.my_rank();
    out->size = g.size();
    out->map = g.map();
    return status::ok;
}

// Agrees on a context id over parent and, if I am in g, gives it to the
// communicator made beforehand. Every member of parent calls this, also
// one that could not build its group (g == nullptr) or its communicator:
// that one offers no id, so all members fail alike, no_mem where memory ran
// out and exhausted elsewhere.
status create_from(comm& parent, const group* g, comm*& out) noexcept {
    out = nullptr;
    reap();
    comm* c = nullptr;
    bool ok = g != nullptr;
    if (ok && g->my_rank() >= 0) ok = make_comm(parent, *g, c) == status::ok;
    uint32_t ctx = 0;
    const status s = context_id_allocate(parent, ctx, ok);
    if (s != status::ok) {
        if (c) comm_discard(c);
        return ok ? s : status::no_mem;
    }
    if (!c) {
        context_id_release(ctx);  // the members keep it; I am not one
        return status::ok;
    }
    comm_commit(c, ctx);
    out = c;
    return status::ok;
}

}  // namespace

status comm_make(MPI_Errhandler eh, comm*& out) noexcept {
    reap();
    try {
        g_graveyard.reserve(g_graveyard.size() + g_live + 1);
    } catch (const std::bad_alloc&) {
        return status::no_mem;
    }
    auto* c = new (std::nothrow) comm;
    if (!c) return status::no_mem;
    c->errhandler = eh;
    c->handle = comm_table().insert(c);
    if (!c->handle) {
        delete c;
        return status::no_mem;
    }
    out = c;
    return status::ok;
}

void comm_commit(comm* c, uint32_t ctx) noexcept {
    c->context_id = ctx;
    ++g_live;
}

void comm_discard(comm* c) noexcept {
    comm_table().erase(c->handle);
    delete c;
}

group comm_group(const comm& c) {
    if (c.is_inter()) return group(c.inter->local->map, g_world.rank);  // lpid = world rank
    return group(c.map, c.lpid(c.rank));
}

status comm_dup(comm& parent, comm*& out, bool offer) noexcept {
    if (parent.is_inter()) return intercomm_dup(parent, out, offer);
    const group g = comm_group(parent);  // shares the map: no allocation
    const status s = create_from(parent, offer ? &g : nullptr, out);
    if (s == status::ok && out) out->topo = parent.topo;  // MPI: a dup keeps the topology
    return s;
}

status comm_create(comm& parent, const group& g, comm*& out, bool offer) noexcept {
    return create_from(parent, offer ? &g : nullptr, out);
}

status comm_split(comm& parent, int color, int key, comm*& out, bool offer) noexcept {
    const int p = parent.size;
    util::scratch sb;
    auto* all = reinterpret_cast<int*>(sb.get(static_cast<std::size_t>(p) * 2 * sizeof(int)));
    if (!all) return status::no_mem;  // cannot take part in the exchange
    all[2 * parent.rank] = color;
    all[2 * parent.rank + 1] = key;
    if (const status s = coll::allgather(all, 2 * sizeof(int), parent); s != status::ok) return s;
    // From here every member reaches the agreement, with or without its group.
    if (!offer) return create_from(parent, nullptr, out);
    try {
        std::vector<int> colors(static_cast<std::size_t>(p)), keys(static_cast<std::size_t>(p));
        for (int r = 0; r < p; ++r) {
            colors[r] = all[2 * r];
            keys[r] = all[2 * r + 1];
        }
        const group g = group_split(comm_group(parent), colors.data(), keys.data(), MPI_UNDEFINED);
        return create_from(parent, &g, out);
    } catch (const std::bad_alloc&) {
        return create_from(parent, nullptr, out);
    }
}

void comm_release(comm* c) noexcept {
    if (c->predefined() || --c->refs > 0) return;
    // An intercommunicator's local communicator goes with it (inter_deleter).
    comm_table().erase(c->handle);
    c->attrs.clear();
    --g_live;
    g_graveyard.push_back(c);
    reap();
}

void comm_quiesce(comm& c) noexcept {
    lazy_flush(c.ctx_p2p());
    // A scan of the request pool (cold path) every few polls.
    unsigned polls = 0;
    auto idle = [&c, &polls]() noexcept {
        if (polls++ & 15u) return false;
        bool busy = false;
        request_pool().for_each_in_use([&](const request* r) {
            if (r->cc != 0 && r->c && (r->c == &c || r->c->owner == &c)) busy = true;
        });
        return !busy;
    };
    progress_until(idle);
}

int comm_compare(const comm& a, const comm& b) noexcept {
    if (&a == &b) return MPI_IDENT;
    if (a.is_inter() != b.is_inter()) return MPI_UNEQUAL;
    int g = group_compare(comm_group(a), comm_group(b));
    if (a.is_inter()) {  // both groups count (MPI-4.1 §7.4.1)
        const int r = group_compare(comm_remote_group(a), comm_remote_group(b));
        if (r == MPI_UNEQUAL || g == MPI_UNEQUAL) return MPI_UNEQUAL;
        if (r == MPI_SIMILAR) g = MPI_SIMILAR;
    }
    return g == MPI_IDENT ? MPI_CONGRUENT : g;
}

void comms_destroy_all() noexcept {
    comm_table().for_each([](comm* c) {
        comm_table().erase(c->handle);  // leaves the slot array as it is
        delete c;
    });
    g_live = 0;
    for (comm* c : g_graveyard) delete c;
    g_graveyard.clear();
}

}  // namespace ch4lite::dev
