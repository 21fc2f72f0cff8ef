// SPDX-License-Identifier: MIT
#include "topo/topology.hpp"

#include <algorithm>
#include <climits>
#include <cmath>

namespace ch4lite::topo {

int64_t cart_size(const int* dims, int ndims) noexcept {
    int64_t n = 1;
    for (int i = 0; i < ndims; ++i) {
        n *= dims[i];
        if (n > INT_MAX || n < 0) return -1;
    }
    return n;
}

void cart_coords(const std::vector<int>& dims, int rank, int* coords) noexcept {
    for (int i = static_cast<int>(dims.size()) - 1; i >= 0; --i) {
        coords[i] = rank % dims[static_cast<std::size_t>(i)];
        rank /= dims[static_cast<std::size_t>(i)];
    }
}

int cart_rank(const std::vector<int>& dims, const std::vector<int>& periods,
              const int* coords) noexcept {
    int64_t rank = 0;
    for (std::size_t i = 0; i < dims.size(); ++i) {
        int64_t c = coords[i];
        const int64_t d = dims[i];
        if (c < 0 || c >= d) {
            if (!periods[i]) return -1;
            c %= d;
            if (c < 0) c += d;
        }
        rank = rank * d + c;
    }
    return static_cast<int>(rank);
}

void cart_shift(const std::vector<int>& dims, const std::vector<int>& periods,
                const std::vector<int>& coords, int dir, int disp, int proc_null, int& source,
                int& dest) noexcept {
    // Coordinates are at most INT_MAX and so is |disp|: 64-bit sums cannot overflow.
    std::vector<int>::size_type d = static_cast<std::size_t>(dir);
    const auto at = [&](int64_t c) {
        const int64_t n = dims[d];
        if (c < 0 || c >= n) {
            if (!periods[d]) return proc_null;
            c %= n;
            if (c < 0) c += n;
        }
        // rank = the rank of coords with coordinate d replaced by c
        int64_t r = 0;
        for (std::size_t i = 0; i < dims.size(); ++i) r = r * dims[i] + (i == d ? c : coords[i]);
        return static_cast<int>(r);
    };
    source = at(static_cast<int64_t>(coords[d]) - disp);
    dest = at(static_cast<int64_t>(coords[d]) + disp);
}

topology make_cart(int ndims, const int* dims, const int* periods, int rank, int proc_null) {
    topology t;
    t.k = kind::cart;
    t.dims.assign(dims, dims + ndims);
    t.periods.resize(static_cast<std::size_t>(ndims));
    for (int i = 0; i < ndims; ++i) t.periods[static_cast<std::size_t>(i)] = periods[i] ? 1 : 0;
    t.coords.resize(static_cast<std::size_t>(ndims));
    cart_coords(t.dims, rank, t.coords.data());
    t.in.resize(2 * static_cast<std::size_t>(ndims));
    for (int i = 0; i < ndims; ++i)
        cart_shift(t.dims, t.periods, t.coords, i, 1, proc_null, t.in[2 * static_cast<std::size_t>(i)],
                   t.in[2 * static_cast<std::size_t>(i) + 1]);
    t.out = t.in;
    return t;
}

namespace {

// floor(r^(1/s)) for r >= 1, s >= 1, exactly.
int64_t iroot(int64_t r, int s) {
    if (s == 1) return r;
    auto x = static_cast<int64_t>(std::pow(static_cast<double>(r), 1.0 / s));
    const auto pw_le = [&](int64_t b) {  // b^s <= r, without overflow
        __int128 p = 1;
        for (int i = 0; i < s; ++i) {
            p *= b;
            if (p > r) return false;
        }
        return true;
    };
    while (x > 1 && !pw_le(x)) --x;
    while (pw_le(x + 1)) ++x;
    return std::max<int64_t>(x, 1);
}

// Depth-first search over nonincreasing factorizations with a bound on the
// spread. Among those of the smallest spread it keeps the one whose
// smallest entry is largest, then whose next smallest is, and so on (read
// from the last entry back, the largest): the choice MPICH makes, so
// programs get the grids they get there (MPICH's test suite checks 75 000
// of them, topo/dims5).
struct dims_search {
    const std::vector<int64_t>& divisors;  // of the free product, ascending
    int k;                                 // free dimensions
    std::vector<int64_t> cur, best;
    int64_t best_spread = INT64_MAX;

    // cur[0..k) is a complete factorization with this spread.
    void offer(int64_t spread) {
        if (spread < best_spread ||
            (spread == best_spread &&
             std::lexicographical_compare(best.rbegin(), best.rend(), cur.rbegin(), cur.rend()))) {
            best_spread = spread;
            best = cur;
        }
    }

    void run(int i, int64_t r, int64_t upper) {
        const int s = k - i;  // slots left, i included
        if (r == 1) {         // the rest are 1
            std::fill(cur.begin() + i, cur.end(), 1);
            offer((i == 0 ? 1 : cur[0]) - 1);
            return;
        }
        if (s == 1) {
            if (r > upper) return;
            cur[static_cast<std::size_t>(i)] = r;
            offer((i == 0 ? r : cur[0]) - r);
            return;
        }
        // The largest remaining factor is at least ceil(r^(1/s)).
        int64_t lo = iroot(r, s);
        if (lo < r && [&] {
                __int128 p = 1;
                for (int j = 0; j < s; ++j) p *= lo;
                return p < r;
            }())
            ++lo;
        for (int64_t f : divisors) {
            if (f < lo) continue;
            if (f > upper || f > r) break;
            if (r % f) continue;
            // The smallest factor is at most floor((r/f)^(1/(s-1))): the
            // spread is at least first - that, which only grows with f.
            // (Equal spreads are still searched: they may win the tie.)
            const int64_t first = i == 0 ? f : cur[0];
            if (first - iroot(r / f, s - 1) > best_spread) break;
            cur[static_cast<std::size_t>(i)] = f;
            run(i + 1, r / f, f);
        }
    }
};

}  // namespace

void dims_fill(int nnodes, int ndims, int* dims) {
    int64_t fixed = 1;
    int k = 0;
    for (int i = 0; i < ndims; ++i) {
        if (dims[i] > 0)
            fixed *= dims[i];
        else
            ++k;
        if (fixed > nnodes) fixed = nnodes + 1;  // (checked by the caller: never here)
    }
    if (k == 0) return;
    const int64_t m = nnodes / fixed;
    std::vector<int64_t> divisors;
    for (int64_t d = 1; d * d <= m; ++d)
        if (m % d == 0) {
            divisors.push_back(d);
            if (d != m / d) divisors.push_back(m / d);
        }
    std::sort(divisors.begin(), divisors.end());
    dims_search s{divisors, k, std::vector<int64_t>(static_cast<std::size_t>(k), 1), {}};
    s.run(0, m, m);
    // Nonincreasing: the search builds them so; place them in the free slots.
    int j = 0;
    for (int i = 0; i < ndims; ++i)
        if (dims[i] == 0) dims[i] = static_cast<int>(s.best[static_cast<std::size_t>(j++)]);
}

topology make_graph(int nnodes, const int* index, const int* edges, int rank) {
    topology t;
    t.k = kind::graph;
    t.index.assign(index, index + nnodes);
    const int nedges = nnodes > 0 ? index[nnodes - 1] : 0;
    t.edges.assign(edges, edges + nedges);
    int first = 0, count = 0;
    graph_neighbors(t, rank, first, count);
    t.in.assign(t.edges.begin() + first, t.edges.begin() + first + count);
    t.out = t.in;
    return t;
}

}  // namespace ch4lite::topo
