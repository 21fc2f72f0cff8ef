// SPDX-License-Identifier: MIT
// Schedules of Barrier, Bcast, Gather(v), Scatter(v) (coll/build.hpp): the
// algorithms of coll/barrier.cpp, bcast.cpp, gather.cpp and scatter.cpp as
// rounds of steps.
#include <algorithm>

#include "coll/build.hpp"
#include "coll/stage.hpp"

namespace ch4lite::coll {

// Dissemination: in round k signal rank + 2^k, wait for rank - 2^k.
void add_barrier(sched& s) noexcept {
    const comm& c = s.owner();
    const int p = c.size, me = c.rank;
    for (int dist = 1; dist < p; dist <<= 1) {
        s.recv(nullptr, 0, (me - dist + p) % p);
        s.send(nullptr, 0, (me + dist) % p);
        s.fence();
    }
}

}  // namespace ch4lite::coll

namespace ch4lite::coll {

namespace {

std::size_t at(int k, std::size_t n) noexcept { return static_cast<std::size_t>(k) * n; }

// Binomial tree from root: receive from the parent, then send to the
// children, largest subtree first.
void bcast_binomial(sched& s, std::byte* buf, std::size_t n, int root) noexcept {
    const comm& c = s.owner();
    const int p = c.size, rel = (c.rank - root + p) % p;
    int mask = 1;
    while (mask < p) {
        if (rel & mask) {
            s.recv(buf, n, (rel - mask + root) % p);
            s.fence();
            break;
        }
        mask <<= 1;
    }
    for (mask >>= 1; mask > 0; mask >>= 1)
        if (rel + mask < p) s.send(buf, n, (rel + mask + root) % p);
}

// Root to every rank (every rank on the node: each reads the root's buffer).
void bcast_flat(sched& s, std::byte* buf, std::size_t n, int root) noexcept {
    const comm& c = s.owner();
    if (c.rank != root) {
        s.recv(buf, n, root);
        return;
    }
    for (int i = 1; i < c.size; ++i) s.send(buf, n, (root + i) % c.size);
}

struct range {
    std::size_t lo, hi;
    std::size_t size() const noexcept { return hi - lo; }
};
range segments(std::size_t first, std::size_t last, std::size_t seg, std::size_t n) noexcept {
    return {std::min(first * seg, n), std::min(last * seg, n)};
}

// van de Geijn: binomial scatter of p segments, then an allgather of them
// (recursive doubling for p a power of two, else a ring).
void bcast_scatter_allgather(sched& s, std::byte* buf, std::size_t n, int root) noexcept {
    const comm& c = s.owner();
    const int p = c.size, rel = (c.rank - root + p) % p;
    const std::size_t seg = (n + p - 1) / p;
    auto abs = [&](int r) { return (r + root) % p; };
    int mask = 1;
    while (mask < p) {
        if (rel & mask) {
            const range r = segments(rel, rel + mask, seg, n);
            s.recv(buf + r.lo, r.size(), abs(rel - mask));
            s.fence();
            break;
        }
        mask <<= 1;
    }
    for (mask >>= 1; mask > 0; mask >>= 1) {
        if (rel + mask >= p) continue;
        const range r = segments(rel + mask, rel + 2 * mask, seg, n);
        s.send(buf + r.lo, r.size(), abs(rel + mask));
    }
    s.fence();
    if ((p & (p - 1)) == 0) {
        for (int m = 1; m < p; m <<= 1) {
            const int mine = rel & ~(m - 1), theirs = mine ^ m;
            const range a = segments(mine, mine + m, seg, n), b = segments(theirs, theirs + m, seg, n);
            s.recv(buf + b.lo, b.size(), abs(rel ^ m));
            s.send(buf + a.lo, a.size(), abs(rel ^ m));
            s.fence();
        }
        return;
    }
    const int right = abs((rel + 1) % p), left = abs((rel - 1 + p) % p);
    int j = rel;
    for (int i = 0; i < p - 1; ++i) {
        const int jn = (j - 1 + p) % p;
        const range a = segments(j, j + 1, seg, n), b = segments(jn, jn + 1, seg, n);
        s.recv(buf + b.lo, b.size(), left);
        s.send(buf + a.lo, a.size(), right);
        s.fence();
        j = jn;
    }
}

constexpr std::size_t binomial_max_block = 2048;
constexpr int binomial_min_ranks = 8;

}  // namespace

void add_bcast(sched& s, std::byte* buf, std::size_t n, int root) noexcept {
    comm& c = s.owner();
    if (c.size == 1) return;
    if (n >= g_tuning.bcast_flat && all_local(c)) return bcast_flat(s, buf, n, root);
    if (n >= g_tuning.bcast_long && c.size >= 3 && n >= static_cast<std::size_t>(c.size))
        return bcast_scatter_allgather(s, buf, n, root);
    bcast_binomial(s, buf, n, root);
}

void add_gather(sched& s, const std::byte* sbuf, std::byte* rbuf, std::size_t n, int root) noexcept {
    const comm& c = s.owner();
    const int p = c.size;
    if (n < binomial_max_block && p >= binomial_min_ranks) {
        // Binomial: relative rank r collects blocks [r, r + subtree) in acc.
        const int rel = (c.rank - root + p) % p;
        int sub = 1;
        while (sub < p && !(rel & sub)) sub <<= 1;
        sub = std::min(sub, p - rel);
        std::byte* acc = (rel == 0 && root == 0) ? rbuf : s.scratch(at(sub, n));
        if (!acc) return;
        const std::byte* mine = sbuf ? sbuf : rbuf + at(root, n);
        if (acc != mine) s.copy(mine, acc, n);
        for (int mask = 1; mask < sub; mask <<= 1) {
            const int child = rel + mask;
            s.recv(acc + at(mask, n), at(std::min(mask, p - child), n), (child + root) % p);
        }
        s.fence();
        if (rel != 0) {
            s.send(acc, at(sub, n), ((rel & ~(rel & -rel)) + root) % p);
        } else if (acc != rbuf) {
            for (int k = 0; k < p; ++k) s.copy(acc + at(k, n), rbuf + at((k + root) % p, n), n);
        }
        return;
    }
    if (c.rank != root) {
        s.send(sbuf, n, root);
        return;
    }
    if (sbuf) s.copy(sbuf, rbuf + at(root, n), n);
    for (int i = 1; i < p; ++i) {
        const int src = (root + i) % p;
        s.recv(rbuf + at(src, n), n, src);
    }
}

void add_gatherv(sched& s, const std::byte* sbuf, std::size_t sn, const block* rblocks, int root) noexcept {
    const comm& c = s.owner();
    if (c.rank != root) {
        s.send(sbuf, sn, root);
        return;
    }
    if (sbuf) s.copy(sbuf, rblocks[root].p, std::min(sn, rblocks[root].n));
    for (int i = 1; i < c.size; ++i) {
        const int src = (root + i) % c.size;
        s.recv(rblocks[src].p, rblocks[src].n, src);
    }
}

void add_scatter(sched& s, const std::byte* sbuf, std::byte* rbuf, std::size_t n, int root) noexcept {
    const comm& c = s.owner();
    const int p = c.size;
    if (n < binomial_max_block && p >= binomial_min_ranks) {
        const int rel = (c.rank - root + p) % p;
        int sub = 1;
        while (sub < p && !(rel & sub)) sub <<= 1;
        sub = std::min(sub, p - rel);
        const std::byte* acc = sbuf;  // my subtree's blocks, in relative order
        if (rel != 0 || root != 0) {
            std::byte* t = s.scratch(at(sub, n));
            if (!t) return;
            if (rel == 0)
                for (int k = 0; k < p; ++k) s.copy(sbuf + at((k + root) % p, n), t + at(k, n), n);
            else
                s.recv(t, at(sub, n), ((rel & ~(rel & -rel)) + root) % p);
            s.fence();
            acc = t;
        }
        int top = 1;
        while (top < sub) top <<= 1;
        for (int mask = top >> 1; mask > 0; mask >>= 1) {
            if (mask >= sub) continue;
            const int child = rel + mask;
            s.send(acc + at(mask, n), at(std::min(mask, p - child), n), (child + root) % p);
        }
        if (rbuf && acc != rbuf) s.copy(acc, rbuf, n);
        return;
    }
    if (c.rank != root) {
        s.recv(rbuf, n, root);
        return;
    }
    for (int i = 1; i < p; ++i) {
        const int dst = (root + i) % p;
        s.send(sbuf + at(dst, n), n, dst);
    }
    if (rbuf) s.copy(sbuf + at(root, n), rbuf, n);
}

void add_scatterv(sched& s, const cblock* sblocks, std::byte* rbuf, std::size_t rn, int root) noexcept {
    const comm& c = s.owner();
    if (c.rank != root) {
        s.recv(rbuf, rn, root);
        return;
    }
    for (int i = 1; i < c.size; ++i) {
        const int dst = (root + i) % c.size;
        s.send(sblocks[dst].p, sblocks[dst].n, dst);
    }
    if (rbuf) s.copy(sblocks[root].p, rbuf, std::min(rn, sblocks[root].n));
}

}  // namespace ch4lite::coll
