// SPDX-License-Identifier: MIT
// Gather and Gatherv.
//   binomial  (small blocks, p >= 8): each subtree's blocks travel together,
//             so the root takes log2 p messages instead of p - 1; relative
//             rank r collects blocks [r, r + subtree) in a temporary.
//   linear    the root receives every block straight into its place.
// Gatherv is always linear: the root knows every size, nobody else does.
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

status gather_linear(const void* sbuf, std::byte* rbuf, std::size_t n, int root,
                     comm& c) noexcept {
    if (c.rank != root) return coll::send(c, sbuf, n, root, coll::tag_gather);
    if (sbuf) std::memcpy(rbuf + static_cast<std::size_t>(root) * n, sbuf, n);
    coll::reqs q(c);
    for (int i = 1; i < c.size; ++i) {
        const int src = (root + i) % c.size;
        if (const status s = q.recv(rbuf + static_cast<std::size_t>(src) * n, n, src,
                                    coll::tag_gather);
            s != status::ok)
            return s;
    }
    return q.wait();
}

status gather_binomial(const void* sbuf, std::byte* rbuf, std::size_t n, int root,
                       comm& c) noexcept {
    const int p = c.size, rel = (c.rank - root + p) % p;
    int sub = 1;  // my subtree: relative ranks [rel, rel + sub)
    while (sub < p && !(rel & sub)) sub <<= 1;
    sub = std::min(sub, p - rel);
    // The root with root == 0 gathers straight into rbuf (relative = absolute).
    util::scratch tmp;
    std::byte* acc = (rel == 0 && root == 0) ? rbuf : tmp.get(static_cast<std::size_t>(sub) * n);
    if (!acc) return status::no_mem;
    const void* mine = sbuf ? sbuf : rbuf + static_cast<std::size_t>(root) * n;
    if (acc != mine) std::memcpy(acc, mine, n);
    {
        coll::reqs q(c);
        for (int mask = 1; mask < sub; mask <<= 1) {
            const int child = rel + mask;
            const std::size_t cnt = static_cast<std::size_t>(std::min(mask, p - child));
            if (const status s = q.recv(acc + static_cast<std::size_t>(mask) * n, cnt * n,
                                        (child + root) % p, coll::tag_gather);
                s != status::ok)
                return s;
        }
        if (const status s = q.wait(); s != status::ok) return s;
    }
    if (rel != 0) {
        const int parent = ((rel & ~(rel & -rel)) + root) % p;  // clear the lowest set bit
        return coll::send(c, acc, static_cast<std::size_t>(sub) * n, parent, coll::tag_gather);
    }
    if (acc != rbuf)  // relative block k belongs to rank (k + root) % p
        for (int k = 0; k < p; ++k)
            std::memcpy(rbuf + static_cast<std::size_t>((k + root) % p) * n,
                        acc + static_cast<std::size_t>(k) * n, n);
    return status::ok;
}

}  // namespace

status gather(const void* sbuf, void* rbuf, std::size_t n, int root, comm& c) noexcept {
    auto* r = static_cast<std::byte*>(rbuf);
    if (n < binomial_max_block && c.size >= binomial_min_ranks)
        return coll::finish(gather_binomial(sbuf, r, n, root, c));
    return coll::finish(gather_linear(sbuf, r, n, root, c));
}

status gatherv(const void* sbuf, std::size_t sn, const block* rblocks, int root,
                    comm& c) noexcept {
    if (c.rank != root) return coll::finish(coll::send(c, sbuf, sn, root, coll::tag_gather));
    if (sbuf) {
        if (sn != rblocks[root].n) return coll::finish(status::truncated);
        std::memcpy(rblocks[root].p, sbuf, sn);
    }
    coll::reqs q(c);
    for (int i = 1; i < c.size; ++i) {
        const int src = (root + i) % c.size;
        if (const status s = q.recv(rblocks[src].p, rblocks[src].n, src, coll::tag_gather);
            s != status::ok)
            return coll::finish(s);
    }
    return coll::finish(q.wait());
}

}  // namespace ch4lite::coll
