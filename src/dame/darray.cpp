// SPDX-License-Identifier: MIT
// MPI_Type_create_darray: the part of a global array that one process of a
// process grid owns. The grid is row-major whatever the array's order (MPI
// 5.1.4, as for Cartesian topologies). Each dimension keeps a set of index
// runs: all of them (none), one run of the block size (block), or every
// p-th run of the block size (cyclic). The type is built from the
// fastest-varying dimension up: the runs of one dimension, as blocks of the
// type of the faster ones resized to one full slab of them; the result is
// resized to the whole array (lb 0, extent = product of gsizes times
// oldtype's extent), so its type map lists the owned elements in the order
// they lie in memory.
#include <vector>

#include "dame/checked.hpp"
#include "dame/type.hpp"

namespace ch4lite::dame {

namespace {

// The owned index runs of one dimension: first, then `full` runs of
// `len` every `period` indices, then one run of `tail` (0: none).
struct runs {
    int64_t first = 0, len = 0, period = 0, full = 0, tail = 0;
};

// Products are taken in 128 bits: dargs come unchecked from the type
// language, and r * b or p * b may pass int64 where the run lies beyond g.
runs owned(distrib d, int64_t g, int64_t darg, int64_t p, int64_t r) noexcept {
    using wide = __int128;
    runs o;
    if (d == distrib::none) {
        o.len = g;
        o.period = g;
        o.full = 1;
        return o;
    }
    if (d == distrib::block) {
        const int64_t b = darg == darg_default ? g / p + (g % p != 0) : darg;
        const wide first = static_cast<wide>(r) * b;
        o.first = first < g ? static_cast<int64_t>(first) : g;
        o.len = b;
        o.period = b;
        const int64_t n = g - o.first < b ? g - o.first : b;
        o.full = n == b ? 1 : 0;
        o.tail = n == b ? 0 : n;
        return o;
    }
    const int64_t b = darg == darg_default ? 1 : darg;  // cyclic
    const wide first = static_cast<wide>(r) * b;
    if (first >= g) return o;  // owns nothing
    o.first = static_cast<int64_t>(first);
    o.len = b;
    const wide period = static_cast<wide>(p) * b;
    const int64_t rest = g - o.first;
    if (period > rest) {  // at most one run, whole or cut by the array's end
        o.period = b;     // the stride of a vector of one run: unused
        if (rest >= b) o.full = 1;
        else o.tail = rest;
        return o;
    }
    o.period = static_cast<int64_t>(period);
    o.full = rest / o.period;
    const int64_t left = rest - o.full * o.period;  // the beginning of one more period
    if (left >= b) ++o.full;
    else o.tail = left;
    return o;
}

// The runs of one dimension as blocks of elem (extent ext each).
status dim_type(const runs& o, int64_t ext, type* elem, type** out) noexcept {
    checked c;
    type* parts[2] = {nullptr, nullptr};
    int64_t disps[2] = {c.mul(o.first, ext), c.mul(c.add(o.first, c.mul(o.full, o.period)), ext)};
    const int64_t blens[2] = {1, 1};
    if (c.bad) return status::range;
    int n = 0;
    status s = status::ok;
    if (o.full > 0) {
        s = make_vector(o.full, o.len, o.period, false, elem, &parts[n]);
        if (s != status::ok) return s;
        disps[n] = disps[0];
        ++n;
    }
    if (o.tail > 0) {
        s = make_contiguous(o.tail, elem, &parts[n]);
        if (s != status::ok) {
            if (n) parts[0]->release();
            return s;
        }
        disps[n] = disps[1];
        ++n;
    }
    if (n == 0) return make_contiguous(0, elem, out);
    s = make_struct(n, blens, disps, parts, out);
    for (int i = 0; i < n; ++i) parts[i]->release();
    return s;
}

}  // namespace

status make_darray(int64_t size, int64_t rank, int ndims, const int64_t* gsizes,
                   const distrib* distribs, const int64_t* dargs, const int64_t* psizes,
                   bool order_c, type* old, type** out) noexcept {
    if (size <= 0 || rank < 0 || rank >= size || ndims <= 0 || !gsizes || !distribs || !dargs ||
        !psizes || !old)
        return status::invalid;
    checked c;
    int64_t procs = 1;
    for (int i = 0; i < ndims; ++i) {
        const int64_t g = gsizes[i], p = psizes[i], a = dargs[i];
        if (g <= 0 || p <= 0 || (a <= 0 && a != darg_default)) return status::invalid;
        if (distribs[i] == distrib::none && p != 1) return status::invalid;
        if (distribs[i] == distrib::block && a != darg_default && static_cast<__int128>(a) * p < g)
            return status::invalid;
        procs = c.mul(procs, p);
    }
    if (c.bad || procs != size) return status::invalid;
    std::vector<int64_t> coord;
    try {
        coord.resize(static_cast<size_t>(ndims));
    } catch (...) {
        return status::no_mem;
    }
    int64_t left = rank;
    for (int i = ndims - 1; i >= 0; --i) {  // row-major grid: the last coordinate varies fastest
        coord[static_cast<size_t>(i)] = left % psizes[i];
        left /= psizes[i];
    }
    auto dim = [&](int k) { return order_c ? ndims - 1 - k : k; };
    int64_t ext = old->extent();
    type* cur = old;
    cur->retain();
    for (int k = 0; k < ndims; ++k) {
        const int i = dim(k);
        const runs o = owned(distribs[i], gsizes[i], dargs[i], psizes[i], coord[static_cast<size_t>(i)]);
        type* d = nullptr;
        status s = dim_type(o, ext, cur, &d);
        cur->release();
        if (s != status::ok) return s;
        ext = c.mul(ext, gsizes[i]);  // one full slab of dimensions 0..k
        if (c.bad) {
            d->release();
            return status::range;
        }
        cur = nullptr;
        s = make_resized(d, 0, ext, &cur);
        d->release();
        if (s != status::ok) return s;
    }
    cur->comb_ = combiner::darray;
    *out = cur;
    return status::ok;
}

}  // namespace ch4lite::dame
