// SPDX-License-Identifier: MIT
// Scatter and Scatterv: the mirror images of device/gather.cpp
// (binomial for small blocks on p >= 8, else linear; Scatterv linear).
#include <algorithm>
#include <cstring>

#include "coll/coll.hpp"
#include "coll/p2p.hpp"
#include "util/pool_buffer.hpp"

namespace ch4lite::coll {

using namespace ch4lite::dev;

namespace {

constexpr std::size_t binomial_max_block = 2048;
constexpr int binomial_min_ranks = 8;

status scatter_linear(const std::byte* sbuf, void* rbuf, std::size_t n, int root,
                      comm& c) noexcept {
    if (c.rank != root) return coll::recv(c, rbuf, n, root, coll::tag_scatter);
    if (rbuf) std::memcpy(rbuf, sbuf + static_cast<std::size_t>(root) * n, n);
    coll::reqs q(c);
    for (int i = 1; i < c.size; ++i) {
        const int dst = (root + i) % c.size;
        if (const status s = q.send(sbuf + static_cast<std::size_t>(dst) * n, n, dst,
                                    coll::tag_scatter);
            s != status::ok)
            return s;
    }
    return q.wait();
}

status scatter_binomial(const std::byte* sbuf, void* rbuf, std::size_t n, int root,
                        comm& c) noexcept {
    const int p = c.size, rel = (c.rank - root + p) % p;
    int sub = 1;
    while (sub < p && !(rel & sub)) sub <<= 1;
    sub = std::min(sub, p - rel);
    util::scratch tmp;
    const std::byte* acc = sbuf;  // my subtree's blocks, in relative order
    if (rel != 0 || root != 0) {
        std::byte* t = tmp.get(static_cast<std::size_t>(sub) * n);
        if (!t) return status::no_mem;
        if (rel == 0) {
            for (int k = 0; k < p; ++k)
                std::memcpy(t + static_cast<std::size_t>(k) * n,
                            sbuf + static_cast<std::size_t>((k + root) % p) * n, n);
        } else {
            const int parent = ((rel & ~(rel & -rel)) + root) % p;
            const status s = coll::recv(c, t, static_cast<std::size_t>(sub) * n, parent,
                                        coll::tag_scatter);
            if (s != status::ok) return s;
        }
        acc = t;
    }
    coll::reqs q(c);
    int top = 1;
    while (top < sub) top <<= 1;
    for (int mask = top >> 1; mask > 0; mask >>= 1) {
        const int child = rel + mask;
        if (mask >= sub) continue;
        const std::size_t cnt = static_cast<std::size_t>(std::min(mask, p - child));
        if (const status s = q.send(acc + static_cast<std::size_t>(mask) * n, cnt * n,
                                    (child + root) % p, coll::tag_scatter);
            s != status::ok)
            return s;
    }
    if (rbuf && acc != rbuf) std::memcpy(rbuf, acc, n);
    return q.wait();
}

}  // namespace

status scatter(const void* sbuf, void* rbuf, std::size_t n, int root, comm& c) noexcept {
    const auto* s = static_cast<const std::byte*>(sbuf);
    if (n < binomial_max_block && c.size >= binomial_min_ranks)
        return coll::finish(scatter_binomial(s, rbuf, n, root, c));
    return coll::finish(scatter_linear(s, rbuf, n, root, c));
}

status scatterv(const cblock* sblocks, void* rbuf, std::size_t rn, int root,
                     comm& c) noexcept {
    if (c.rank != root) return coll::finish(coll::recv(c, rbuf, rn, root, coll::tag_scatter));
    if (rbuf) {
        if (rn != sblocks[root].n) return coll::finish(status::truncated);
        std::memcpy(rbuf, sblocks[root].p, rn);
    }
    coll::reqs q(c);
    for (int i = 1; i < c.size; ++i) {
        const int dst = (root + i) % c.size;
        if (const status s = q.send(sblocks[dst].p, sblocks[dst].n, dst, coll::tag_scatter);
            s != status::ok)
            return coll::finish(s);
    }
    return coll::finish(q.wait());
}

}  // namespace ch4lite::coll
