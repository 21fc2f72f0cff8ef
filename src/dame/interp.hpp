// SPDX-License-Identifier: MIT
// The interpreter. run_full() moves whole node instances: FINAL nodes are one
// kernel call, other nodes loop over their children (no bookkeeping, no
// bounds tests: everything was checked at commit). walk() handles a packed
// byte range [lo, hi) of one instance: it seeks in O(depth) for regular
// nodes (division) and O(log n) for index lists (binary search on prefix
// sums), moves the partial first and last children piecewise and the full
// ones in between through the Op's fast path.
#pragma once
#include <algorithm>

#include "dame/kernels.hpp"

namespace ch4lite::dame {

inline int64_t disp_at(const node& n, int64_t i) noexcept {
    return n.wide ? static_cast<const int64_t*>(n.disps)[i] : static_cast<const int32_t*>(n.disps)[i];
}

// typed: origin of the parent copy (the node adds its own disp).
template <dir D>
void run_full(const program& p, const node& n, char* typed, char*& packed) noexcept {
    char* t = typed + n.disp;
    if (n.kern) {
        kernel<D>(n.kern)(n, t, packed);
        packed += n.size;
        return;
    }
    switch (n.kind) {
        case op::leaf:
            move_any<D>(t, packed, n.blen);
            packed += n.blen;
            return;
        case op::vector: {
            const node& c = p.at(n.child);
            for (int64_t i = 0; i < n.count; ++i) run_full<D>(p, c, t + i * n.stride, packed);
            return;
        }
        case op::blkindex: {
            const node& c = p.at(n.child);
            for (int64_t i = 0; i < n.count; ++i) run_full<D>(p, c, t + disp_at(n, i), packed);
            return;
        }
        case op::indexed: {
            const node& c = p.at(n.child);
            for (int64_t i = 0; i < n.count; ++i) {
                char* b = t + disp_at(n, i);
                for (int64_t j = 0, e = n.prefix[i + 1] - n.prefix[i]; j < e; ++j)
                    run_full<D>(p, c, b + j * n.stride, packed);
            }
            return;
        }
        case op::struct_: {
            const auto* d = static_cast<const int64_t*>(n.disps);
            for (int64_t i = 0; i < n.count; ++i) run_full<D>(p, p.at(p.kid(n.child + i)), t + d[i], packed);
            return;
        }
    }
}

// Op: `static constexpr bool fast`; bool piece(char* addr, int64_t len);
// bool full(const program&, const node&, char* typed) (used when fast).
// Returns false when op asked to stop.
template <class Op>
bool walk(const program& p, const node& n, char* typed, int64_t lo, int64_t hi, Op& op) noexcept;

template <class Op>
bool walk_copy(const program& p, const node& n, char* origin, int64_t cs, int64_t a, int64_t b,
               Op& op) noexcept {
    // One child copy at origin, packed bytes [a, b) of it.
    if (is_final(n)) return op.piece(origin + a, b - a);
    return walk(p, p.at(n.child), origin, a, b, op);
}

template <class Op>
bool walk_regular(const program& p, const node& n, char* t, int64_t lo, int64_t hi, Op& op) noexcept {
    const int64_t cs = n.size / n.count;
    auto origin = [&](int64_t i) { return t + (n.kind == op::vector ? i * n.stride : disp_at(n, i)); };
    const int64_t i0 = lo / cs, i1 = (hi - 1) / cs;
    if (i0 == i1) return walk_copy(p, n, origin(i0), cs, lo - i0 * cs, hi - i0 * cs, op);
    int64_t f0 = i0, f1 = hi / cs;  // full copies [f0, f1)
    if (lo % cs) {
        if (!walk_copy(p, n, origin(i0), cs, lo - i0 * cs, cs, op)) return false;
        ++f0;
    }
    if (f1 > f0) {
        if constexpr (Op::fast) {
            node sub = n;
            sub.count = f1 - f0;
            sub.size = sub.count * cs;
            sub.disp = 0;
            char* base = t;
            if (n.kind == op::vector) base = t + f0 * n.stride;
            else sub.disps = static_cast<const char*>(n.disps) + f0 * (n.wide ? 8 : 4);
            if (!op.full(p, sub, base)) return false;
        } else {
            for (int64_t i = f0; i < f1; ++i)
                if (!walk_copy(p, n, origin(i), cs, 0, cs, op)) return false;
        }
    }
    if (hi % cs) return walk_copy(p, n, origin(f1), cs, 0, hi - f1 * cs, op);
    return true;
}

template <class Op>
bool walk_indexed(const program& p, const node& n, char* t, int64_t lo, int64_t hi, Op& op) noexcept {
    const int64_t cs = is_final(n) ? 1 : p.at(n.child).size;  // FINAL: prefix counts bytes
    const int64_t* pre = n.prefix;
    int64_t b = std::upper_bound(pre, pre + n.count + 1, lo / cs) - pre - 1;
    for (; b < n.count && pre[b] * cs < hi; ++b) {
        char* base = t + disp_at(n, b);
        const int64_t s = std::max(lo, pre[b] * cs), e = std::min(hi, pre[b + 1] * cs);
        if (is_final(n)) {
            if (!op.piece(base + (s - pre[b]), e - s)) return false;
            continue;
        }
        for (int64_t j = (s / cs) - pre[b]; (pre[b] + j) * cs < e; ++j) {
            const int64_t c0 = (pre[b] + j) * cs;
            if (!walk(p, p.at(n.child), base + j * n.stride, std::max(s, c0) - c0,
                      std::min(e, c0 + cs) - c0, op))
                return false;
        }
    }
    return true;
}

template <class Op>
bool walk(const program& p, const node& n, char* typed, int64_t lo, int64_t hi, Op& op) noexcept {
    if constexpr (Op::fast)
        if (lo == 0 && hi == n.size) return op.full(p, n, typed);
    char* t = typed + n.disp;
    switch (n.kind) {
        case op::leaf: return op.piece(t + lo, hi - lo);
        case op::vector:
        case op::blkindex: return walk_regular(p, n, t, lo, hi, op);
        case op::indexed: return walk_indexed(p, n, t, lo, hi, op);
        case op::struct_: {
            const int64_t* pre = n.prefix;
            const auto* d = static_cast<const int64_t*>(n.disps);
            for (int64_t b = std::upper_bound(pre, pre + n.count + 1, lo) - pre - 1;
                 b < n.count && pre[b] < hi; ++b) {
                const int64_t s = std::max(lo, pre[b]) - pre[b], e = std::min(hi, pre[b + 1]) - pre[b];
                if (e > s && !walk(p, p.at(p.kid(n.child + b)), t + d[b], s, e, op)) return false;
            }
            return true;
        }
    }
    return true;
}

template <dir D>
struct copier {
    static constexpr bool fast = true;
    char* packed;
    bool full(const program& p, const node& n, char* typed) noexcept {
        run_full<D>(p, n, typed, packed);
        return true;
    }
    bool piece(char* addr, int64_t len) noexcept {
        move_any<D>(addr, packed, len);
        packed += len;
        return true;
    }
};

}  // namespace ch4lite::dame
