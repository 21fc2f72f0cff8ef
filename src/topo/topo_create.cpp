// SPDX-License-Identifier: MIT
#include "topo/topo_create.hpp"

#include <mpi.h>

#include <memory>
#include <new>
#include <vector>

#include "coll/coll.hpp"
#include "device/comm_create.hpp"
#include "topo/topology.hpp"

namespace ch4lite::topo {

namespace {

using topo_ptr = std::shared_ptr<const topology>;

// Builds a topology (make() may throw std::bad_alloc); null when out of memory.
template <class Make>
topo_ptr build(Make&& make) noexcept {
    try {
        return std::make_shared<const topology>(make());
    } catch (const std::bad_alloc&) {
        return nullptr;
    }
}

// The parent's first n ranks; offer false when this member lacks memory
// for its part (its topology, or the group itself).
status create_first(dev::comm& parent, int n, bool offer, dev::comm*& out) noexcept {
    try {
        const int range[1][3] = {{0, n - 1, 1}};
        const dev::group g = dev::group_range_incl(dev::comm_group(parent), range, n > 0 ? 1 : 0);
        return dev::comm_create(parent, g, out, offer);
    } catch (const std::bad_alloc&) {
        return dev::comm_create(parent, dev::group(), out, false);
    }
}

void attach(dev::comm* c, topo_ptr t) noexcept {
    if (c) c->topo = std::move(t);
}

}  // namespace

status cart_create(dev::comm& parent, int ndims, const int* dims, const int* periods,
                   dev::comm*& out) noexcept {
    const int n = static_cast<int>(cart_size(dims, ndims));
    const bool member = parent.rank < n;
    topo_ptr t;
    if (member)
        t = build([&] { return make_cart(ndims, dims, periods, parent.rank, MPI_PROC_NULL); });
    if (const status s = create_first(parent, n, !member || t, out); s != status::ok) return s;
    attach(out, std::move(t));
    return status::ok;
}

status cart_sub(dev::comm& parent, const int* remain_dims, dev::comm*& out) noexcept {
    const topology& pt = *parent.topo;
    // color: my position among the dropped dimensions; key: my parent rank
    // (row-major, so the new ranks are row-major over the kept dimensions).
    int64_t color = 0;
    std::vector<int> dims, periods;
    int newrank = 0;
    bool ok = true;
    try {
        for (int i = 0; i < pt.ndims(); ++i) {
            const auto u = static_cast<std::size_t>(i);
            if (remain_dims[i]) {
                dims.push_back(pt.dims[u]);
                periods.push_back(pt.periods[u]);
                newrank = newrank * pt.dims[u] + pt.coords[u];
            } else {
                color = color * pt.dims[u] + pt.coords[u];
            }
        }
    } catch (const std::bad_alloc&) {
        ok = false;
    }
    topo_ptr t;
    if (ok)
        t = build([&] {
            return make_cart(static_cast<int>(dims.size()), dims.data(), periods.data(), newrank,
                             MPI_PROC_NULL);
        });
    // color < parent.size: it indexes the grid of the dropped dimensions.
    if (const status s = dev::comm_split(parent, static_cast<int>(color), parent.rank, out, t != nullptr);
        s != status::ok)
        return s;
    attach(out, std::move(t));
    return status::ok;
}

status graph_create(dev::comm& parent, int nnodes, const int* index, const int* edges,
                    dev::comm*& out) noexcept {
    const bool member = parent.rank < nnodes;
    topo_ptr t;
    if (member) t = build([&] { return make_graph(nnodes, index, edges, parent.rank); });
    if (const status s = create_first(parent, nnodes, !member || t, out); s != status::ok) return s;
    attach(out, std::move(t));
    return status::ok;
}

status dist_graph_create_adjacent(dev::comm& parent, int indegree, const int* sources,
                                  const int* sourceweights, int outdegree,
                                  const int* destinations, const int* destweights, bool weighted,
                                  dev::comm*& out) noexcept {
    const topo_ptr t = build([&] {
        topology x;
        x.k = kind::dist_graph;
        x.in.assign(sources, sources + indegree);
        x.out.assign(destinations, destinations + outdegree);
        x.weighted = weighted;
        if (x.weighted) {
            x.in_w.assign(sourceweights, sourceweights + indegree);
            x.out_w.assign(destweights, destweights + outdegree);
        }
        return x;
    });
    if (const status s = dev::comm_dup(parent, out, t != nullptr); s != status::ok) return s;
    attach(out, t);
    return status::ok;
}

namespace {

// One edge as delivered to one of its ends: what the receiver is to it.
struct edge_msg {
    int dir;     // 0: the receiver is the source (peer = destination); 1: the destination
    int peer;
    int weight;
};

// Delivers every edge named here to its two ends; fills t's in/out lists
// (ordered by the naming rank, then its order). Collective over c.
status exchange_edges(dev::comm& c, int n, const int* sources, const int* degrees,
                      const int* destinations, const int* weights, topology& t) {
    // weights: read only when t.weighted
    const auto p = static_cast<std::size_t>(c.size);
    std::vector<int64_t> scount(p, 0), rcount(p, 0);
    int64_t k = 0;
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < degrees[i]; ++j, ++k) {
            ++scount[static_cast<std::size_t>(sources[i])];
            ++scount[static_cast<std::size_t>(destinations[k])];
        }
    std::vector<std::size_t> soff(p + 1, 0);
    for (std::size_t r = 0; r < p; ++r) soff[r + 1] = soff[r] + static_cast<std::size_t>(scount[r]);
    std::vector<edge_msg> sbuf(soff[p]);
    std::vector<std::size_t> fill(soff.begin(), soff.end() - 1);
    k = 0;
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < degrees[i]; ++j, ++k) {
            const int s = sources[i], d = destinations[k], w = t.weighted ? weights[k] : 1;
            sbuf[fill[static_cast<std::size_t>(s)]++] = {0, d, w};
            sbuf[fill[static_cast<std::size_t>(d)]++] = {1, s, w};
        }
    if (const status s = coll::alltoall(scount.data(), rcount.data(), sizeof(int64_t), c);
        s != status::ok)
        return s;
    std::vector<std::size_t> roff(p + 1, 0);
    for (std::size_t r = 0; r < p; ++r) roff[r + 1] = roff[r] + static_cast<std::size_t>(rcount[r]);
    std::vector<edge_msg> rbuf(roff[p]);
    std::vector<coll::cblock> sb(p);
    std::vector<coll::block> rb(p);
    for (std::size_t r = 0; r < p; ++r) {
        sb[r] = {reinterpret_cast<const std::byte*>(sbuf.data() + soff[r]),
                 (soff[r + 1] - soff[r]) * sizeof(edge_msg)};
        rb[r] = {reinterpret_cast<std::byte*>(rbuf.data() + roff[r]),
                 (roff[r + 1] - roff[r]) * sizeof(edge_msg)};
    }
    if (const status s = coll::alltoallv(sb.data(), rb.data(), c); s != status::ok) return s;
    for (const edge_msg& e : rbuf) {
        if (e.dir == 0) {
            t.out.push_back(e.peer);
            if (t.weighted) t.out_w.push_back(e.weight);
        } else {
            t.in.push_back(e.peer);
            if (t.weighted) t.in_w.push_back(e.weight);
        }
    }
    return status::ok;
}

}  // namespace

status dist_graph_create(dev::comm& parent, int n, const int* sources, const int* degrees,
                         const int* destinations, const int* weights, bool weighted,
                         dev::comm*& out) noexcept {
    std::shared_ptr<topology> t;
    status s = status::ok;
    try {
        t = std::make_shared<topology>();
        t->k = kind::dist_graph;
        t->weighted = weighted;
        s = exchange_edges(parent, n, sources, degrees, destinations, weights, *t);
    } catch (const std::bad_alloc&) {
        // Before the exchange the others wait for this member (as in
        // MPI_Comm_split, docs/pools.md); after it, the agreement
        // below fails everywhere.
        t = nullptr;
        s = status::ok;
    }
    if (s != status::ok) return s;
    if (const status d = dev::comm_dup(parent, out, t != nullptr); d != status::ok) return d;
    attach(out, std::move(t));
    return status::ok;
}

}  // namespace ch4lite::topo
