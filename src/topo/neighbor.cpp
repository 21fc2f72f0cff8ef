// SPDX-License-Identifier: MIT
#include "topo/neighbor.hpp"

#include <mpi.h>

#include "coll/p2p.hpp"

namespace ch4lite::topo {

namespace {

// f(i) for every send slot, in pairing order (neighbor.hpp).
template <class F>
void for_sends(const topology& t, F&& f) noexcept {
    const int n = static_cast<int>(t.out.size());
    if (t.k == kind::cart) {
        for (int d = 0; 2 * d + 1 < n; ++d) {
            f(2 * d + 1);
            f(2 * d);
        }
        return;
    }
    for (int i = 0; i < n; ++i) f(i);
}

}  // namespace

void add_neighbor_exchange(coll::sched& s, const topology& t, const coll::cblock* sb,
                           const coll::block* rb) noexcept {
    const int nin = static_cast<int>(t.in.size());
    auto* st = reinterpret_cast<coll::step*>(s.scratch(static_cast<std::size_t>(nin) * sizeof(coll::step)));
    if (!st) return;
    for (int j = 0; j < nin; ++j) {
        const int peer = t.in[static_cast<std::size_t>(j)];
        st[j] = -1;
        if (peer == MPI_PROC_NULL) continue;
        // after the previous receive from the same peer (they match in order)
        coll::step dep = -1;
        for (int k = j - 1; k >= 0 && dep < 0; --k)
            if (t.in[static_cast<std::size_t>(k)] == peer) dep = st[k];
        st[j] = s.recv(rb[j].p, rb[j].n, peer, {dep});
    }
    for_sends(t, [&](int i) {
        const int peer = t.out[static_cast<std::size_t>(i)];
        if (peer != MPI_PROC_NULL) s.send(sb[i].p, sb[i].n, peer);
    });
}

status neighbor_exchange(dev::comm& c, const topology& t, const coll::cblock* sb,
                         const coll::block* rb, bool& direct) noexcept {
    direct = t.in.size() + t.out.size() <= static_cast<std::size_t>(coll::reqs::capacity);
    if (!direct) return status::ok;
    coll::reqs q(c);
    status s = status::ok;
    for (std::size_t j = 0; j < t.in.size() && s == status::ok; ++j)
        if (t.in[j] != MPI_PROC_NULL) s = q.recv(rb[j].p, rb[j].n, t.in[j], tag_neighbor);
    for_sends(t, [&](int i) {
        const int peer = t.out[static_cast<std::size_t>(i)];
        if (s == status::ok && peer != MPI_PROC_NULL) s = q.send(sb[i].p, sb[i].n, peer, tag_neighbor);
    });
    const status w = q.wait();
    return coll::finish(s != status::ok ? s : w);
}

}  // namespace ch4lite::topo
