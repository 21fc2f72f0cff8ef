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

// The cost of a node with count c that is reached P times (the product of
// the counts above it), for T = vec or idx:
//   storage    (Träff section 2): K_T + c * D_T, once, however often the
//              node is reached (the paper: K_vec, K_idx, D_vec = 0, D_idx = 1,
//              a word per stored displacement);
//   processing (section 4):       P * (V_T + c * C_T), per visit.
// A path costs the sum over its nodes. The leaf (con) below every path
// costs the same whatever the path, so it is left out, as in Table 2.
// Both terms keep the DP exact: a node's cost depends on its own count and
// on P, which no grouping above it changes. The default is the model
// commit uses (processing, K = 8, C_vec = 1, C_idx = 1.5: a displacement
// load per copy; plus a word per stored displacement), tuned on the
// DDTBench layouts (docs/dame-ir.md); paper_storage and paper_processing are
// the paper's own models.
struct cost_model {
    double vec_store = 0.0;       // K_vec
    double idx_store = 0.0;       // K_idx
    double idx_store_disp = 1.0;  // D_idx
    double vec_visit = 8.0;       // V_vec
    double idx_visit = 8.0;       // V_idx
    double vec_iter = 1.0;        // C_vec
    double idx_iter = 1.5;        // C_idx

    // Section 2: cost(vec) = K_vec, cost(idx(c)) = K_idx + c.
    static constexpr cost_model paper_storage(double k_vec, double k_idx) {
        return {k_vec, k_idx, 1.0, 0.0, 0.0, 0.0, 0.0};
    }
    // Section 4: cost(T_k) = c_0 ... c_{k-1} (K_T + c_k C_T).
    static constexpr cost_model paper_processing(double k_vec, double c_vec, double k_idx, double c_idx) {
        return {0.0, 0.0, 0.0, k_vec, k_idx, c_vec, c_idx};
    }
};

// TypePath: the path of a displacement sequence x[0..n) relative to x[0].
path type_path(const int64_t* x, int64_t n);
// The cost of a path under m (Träff's additive cost, the leaf left out).
double path_cost(const path& p, const cost_model& m = {});
// The least-cost compressed path equivalent to p: the DP over groupings of
// consecutive pieces and splits of vector pieces at divisors of their count.
path optimal_path(const path& p, const cost_model& m = {});
// Applies TypePath + DP (default cost model) to every vec/blkidx chain of
// n; true if n changed. Iterative.
bool traff_optimize(ir_ptr& n);

}  // namespace ch4lite::dame
