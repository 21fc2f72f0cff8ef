// SPDX-License-Identifier: MIT
// Träff's optimal normalization for vector / index-block paths (seed 001):
// TypePath reconstructs the finest path of vec and idx pieces describing a
// displacement sequence, and a dynamic program over cut points (between
// pieces and inside vector pieces, at divisors of their count) picks the
// least-cost grouping of consecutive pieces into single nodes.
#pragma once
#include <cstdint>
#include <vector>

#include "dame/ir.hpp"

namespace ch4lite::dame {

// vec(n, outer, vec(count, stride, C)) is vec(n * count, stride, C) when the
// outer stride is one inner span. Exact where count * stride overflows (a
// huge stride): such a product is no int64 stride.
inline bool lines_up(int64_t outer, int64_t count, int64_t stride) {
    return static_cast<__int128>(count) * stride == outer;
}

// The smallest divisor c of n with 1 < c < n for which period(c) holds, or n
// when there is none (period(n) is not asked). The divisors are found in
// O(sqrt n) divisions: trying every c up to n cost one 64-bit division per
// displacement, most of TypePath on a list of random displacements
// (constructing and committing LAMMPS_full/106368: 80 -> 61 us).
template <class P>
int64_t shortest_period(int64_t n, P&& period) {
    int64_t d = 2;
    for (; d * d <= n; ++d)
        if (n % d == 0 && period(d)) return d;
    for (int64_t e = d - 1; e > 1; --e)  // n / e ascends: the divisors above sqrt(n)
        if (n % e == 0 && n / e != e && period(n / e)) return n / e;
    return n;
}

// One node of a path, outermost first. vec: copy i at i*stride; idx: copy i
// at disps[i] (disps[0] == 0).
struct piece {
    bool is_vec = true;
    int64_t count = 1;
    int64_t stride = 0;
    pool_vec<int64_t> disps;
    bool operator==(const piece&) const = default;
};
using path = std::vector<piece>;

// The cost model (processing, Träff section 4, plus a storage term):
// a node reached P times costs P*(K + per_iter*count) (+ storage*count for idx).
struct cost_model {
    double k_node = 8.0;
    double vec_iter = 1.0;
    double idx_iter = 1.5;
    double idx_storage = 1.0;
};

// TypePath: the path of a displacement sequence x[0..n) relative to x[0].
path type_path(const int64_t* x, int64_t n);
double path_cost(const path& p, const cost_model& m = {});
// The least-cost compressed path equivalent to p.
path optimal_path(const path& p, const cost_model& m = {});
// Applies TypePath + DP to every vec/blkidx chain of n; true if n changed.
bool traff_optimize(ir_ptr& n);

}  // namespace ch4lite::dame
