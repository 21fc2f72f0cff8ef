// SPDX-License-Identifier: MIT
// Broadcast.
//   binomial            ceil(log2 p) rounds of the whole message; the root
//                       sends to ranks at distance p/2, p/4, ... (relative).
//   scatter + allgather van de Geijn: the root scatters p segments down a
//                       binomial tree, then everyone allgathers them
//                       (recursive doubling when p is a power of two, else
//                       a ring). ~2n bytes per rank instead of n log p:
//                       used from g_tuning.bcast_long bytes when p >= 3.
#include <algorithm>

#include "coll/coll.hpp"
#include "coll/p2p.hpp"
#include "coll/stage.hpp"
#include "device/device.hpp"

namespace ch4lite::coll {

using namespace ch4lite::dev;

namespace {

status bcast_binomial(std::byte* buf, std::size_t n, int root, comm& c) noexcept {
    const int p = c.size, rel = (c.rank - root + p) % p;
    int mask = 1;
    while (mask < p) {
        if (rel & mask) {
            const status s = coll::recv(c, buf, n, (rel - mask + root) % p, coll::tag_bcast);
            if (s != status::ok) return s;
            break;
        }
        mask <<= 1;
    }
    coll::reqs q(c);
    for (mask >>= 1; mask > 0; mask >>= 1)
        if (rel + mask < p)
            if (const status s = q.send(buf, n, (rel + mask + root) % p, coll::tag_bcast);
                s != status::ok)
                return s;
    return q.wait();
}

// The root sends to every rank, each receives from the root: on one node
// with single copy every receiver reads the root's buffer itself, all at
// once, instead of waiting for a parent in the tree.
status bcast_flat(std::byte* buf, std::size_t n, int root, comm& c) noexcept {
    if (c.rank != root) return coll::recv(c, buf, n, root, coll::tag_bcast);
    coll::reqs q(c);
    for (int i = 1; i < c.size; ++i)
        if (const status s = q.send(buf, n, (root + i) % c.size, coll::tag_bcast); s != status::ok)
            return s;
    return q.wait();
}

// Bytes [lo, hi) of segments [first, last) of an n-byte message cut in
// segments of `seg` bytes (the last ones may be short or empty).
struct range {
    std::size_t lo, hi;
    std::size_t size() const noexcept { return hi - lo; }
};
range segments(std::size_t first, std::size_t last, std::size_t seg, std::size_t n) noexcept {
    return {std::min(first * seg, n), std::min(last * seg, n)};
}

status bcast_scatter_allgather(std::byte* buf, std::size_t n, int root, comm& c) noexcept {
    const int p = c.size, rel = (c.rank - root + p) % p;
    const std::size_t seg = (n + p - 1) / p;
    auto abs = [&](int r) { return (r + root) % p; };
    // Binomial scatter: relative rank r with lowest set bit m owns segments
    // [r, r + m) (the root all of them) and hands [r + mask, r + 2 mask) to
    // each child r + mask.
    int mask = 1;
    while (mask < p) {
        if (rel & mask) {
            const range r = segments(rel, rel + mask, seg, n);
            const status s = coll::recv(c, buf + r.lo, r.size(), abs(rel - mask), coll::tag_bcast);
            if (s != status::ok) return s;
            break;
        }
        mask <<= 1;
    }
    {
        coll::reqs q(c);
        for (mask >>= 1; mask > 0; mask >>= 1) {
            if (rel + mask >= p) continue;
            const range r = segments(rel + mask, rel + 2 * mask, seg, n);
            if (const status s = q.send(buf + r.lo, r.size(), abs(rel + mask), coll::tag_bcast);
                s != status::ok)
                return s;
        }
        if (const status s = q.wait(); s != status::ok) return s;
    }
    // Allgather of the segments, by relative rank.
    if ((p & (p - 1)) == 0) {
        for (int m = 1; m < p; m <<= 1) {
            const int mine = rel & ~(m - 1), theirs = mine ^ m;
            const range a = segments(mine, mine + m, seg, n), b = segments(theirs, theirs + m, seg, n);
            const status s = coll::sendrecv(c, buf + a.lo, a.size(), abs(rel ^ m), buf + b.lo,
                                            b.size(), abs(rel ^ m), coll::tag_bcast);
            if (s != status::ok) return s;
        }
        return status::ok;
    }
    const int right = abs((rel + 1) % p), left = abs((rel - 1 + p) % p);
    int j = rel;
    for (int i = 0; i < p - 1; ++i) {
        const int jn = (j - 1 + p) % p;
        const range a = segments(j, j + 1, seg, n), b = segments(jn, jn + 1, seg, n);
        const status s = coll::sendrecv(c, buf + a.lo, a.size(), right, buf + b.lo, b.size(), left,
                                        coll::tag_bcast);
        if (s != status::ok) return s;
        j = jn;
    }
    return status::ok;
}

}  // namespace

status bcast(void* buf, std::size_t n, int root, comm& c) noexcept {
    if (c.size == 1) return coll::finish(status::ok);
    auto* b = static_cast<std::byte*>(buf);
    if (n >= g_tuning.bcast_stage && all_local(c) && stage_usable(c))
        return coll::finish(bcast_staged(b, n, root, c));
    if (n >= g_tuning.bcast_flat && all_local(c)) return coll::finish(bcast_flat(b, n, root, c));
    if (n >= g_tuning.bcast_long && c.size >= 3 && n >= static_cast<std::size_t>(c.size))
        return coll::finish(bcast_scatter_allgather(b, n, root, c));
    return coll::finish(bcast_binomial(b, n, root, c));
}

}  // namespace ch4lite::coll
