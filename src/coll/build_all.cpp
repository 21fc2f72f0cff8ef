// SPDX-License-Identifier: MIT
// Schedules of Allgather(v) and Alltoall(v,w) (coll/build.hpp): the
// algorithms of coll/allgather.cpp and alltoall.cpp as rounds of steps.
#include <algorithm>

#include "coll/build.hpp"

namespace ch4lite::coll {

namespace {

std::size_t at(int k, std::size_t n) noexcept { return static_cast<std::size_t>(k) * n; }

void allgather_rd(sched& s, std::byte* rbuf, std::size_t n) noexcept {
    const comm& c = s.owner();
    const int me = c.rank;
    for (int m = 1; m < c.size; m <<= 1) {
        const int mine = me & ~(m - 1), theirs = mine ^ m;
        s.recv(rbuf + at(theirs, n), at(m, n), me ^ m);
        s.send(rbuf + at(mine, n), at(m, n), me ^ m);
        s.fence();
    }
}

void allgather_bruck(sched& s, std::byte* rbuf, std::size_t n) noexcept {
    const comm& c = s.owner();
    const int p = c.size, me = c.rank;
    std::byte* t = s.scratch(at(p, n));
    if (!t) return;
    s.copy(rbuf + at(me, n), t, n);  // t: blocks of ranks me, me + 1, ... (mod p)
    s.fence();
    for (int k = 1; k < p; k <<= 1) {
        const std::size_t cnt = at(std::min(k, p - k), n);
        s.recv(t + at(k, n), cnt, (me + k) % p);
        s.send(t, cnt, (me - k + p) % p);
        s.fence();
    }
    for (int i = 1; i < p; ++i) s.copy(t + at(i, n), rbuf + at((me + i) % p, n), n);
}

// Ring: step i passes block (me - i) right.
void allgather_ring(sched& s, const block* b) noexcept {
    const comm& c = s.owner();
    const int p = c.size, me = c.rank;
    const int right = (me + 1) % p, left = (me - 1 + p) % p;
    for (int i = 0; i < p - 1; ++i) {
        const int j = (me - i + p) % p, jn = (me - i - 1 + p) % p;
        s.recv(b[jn].p, b[jn].n, left);
        s.send(b[j].p, b[j].n, right);
        s.fence();
    }
}

// Scattered (every peer at once, window peers per round) or pairwise
// (window 1): receive from me - k, send to me + k.
void exchange(sched& s, const cblock* sb, const block* rb, bool pairwise) noexcept {
    const comm& c = s.owner();
    const int p = c.size, me = c.rank;
    s.copy(sb[me].p, rb[me].p, std::min(sb[me].n, rb[me].n));
    const int window = pairwise ? 1 : std::clamp(g_tuning.alltoall_window, 1, 64);
    for (int i = 1; i < p; i += window) {
        const int end = std::min(p, i + window);
        for (int k = i; k < end; ++k) {
            const int src = (me - k + p) % p;
            s.recv(rb[src].p, rb[src].n, src);
        }
        for (int k = i; k < end; ++k) {
            const int dst = (me + k) % p;
            s.send(sb[dst].p, sb[dst].n, dst);
        }
        if (end < p) s.fence();
    }
}

}  // namespace

void add_allgather(sched& s, std::byte* rbuf, std::size_t n) noexcept {
    const int p = s.owner().size;
    if (p == 1) return;
    const std::size_t total = at(p, n);
    if ((p & (p - 1)) == 0 && total < g_tuning.allgather_long) return allgather_rd(s, rbuf, n);
    if (total < g_tuning.allgather_long) return allgather_bruck(s, rbuf, n);
    auto* b = reinterpret_cast<block*>(s.scratch(static_cast<std::size_t>(p) * sizeof(block)));
    if (!b) return;
    for (int i = 0; i < p; ++i) b[i] = {rbuf + at(i, n), n};
    allgather_ring(s, b);
}

void add_allgatherv(sched& s, const block* blocks) noexcept {
    if (s.owner().size == 1) return;
    allgather_ring(s, blocks);
}

void add_alltoall(sched& s, const std::byte* sbuf, std::byte* rbuf, std::size_t n) noexcept {
    const int p = s.owner().size;
    const std::size_t total = at(p, n);
    if (!sbuf) {  // in place: send what recvbuf holds at the start
        std::byte* t = s.scratch(total);
        if (!t) return;
        s.copy(rbuf, t, total);
        s.fence();
        sbuf = t;
    }
    std::byte* d = s.scratch(static_cast<std::size_t>(p) * (sizeof(cblock) + sizeof(block)));
    if (!d) return;
    auto* sb = reinterpret_cast<cblock*>(d);
    auto* rb = reinterpret_cast<block*>(d + static_cast<std::size_t>(p) * sizeof(cblock));
    for (int i = 0; i < p; ++i) {
        sb[i] = {sbuf + at(i, n), n};
        rb[i] = {rbuf + at(i, n), n};
    }
    exchange(s, sb, rb, n >= g_tuning.alltoall_long);
}

void add_alltoallv(sched& s, const cblock* sblocks, const block* rblocks) noexcept {
    const int p = s.owner().size;
    std::size_t total = 0, largest = 0;
    for (int i = 0; i < p; ++i) {
        total += rblocks[i].n;
        largest = std::max(largest, rblocks[i].n);
    }
    if (!sblocks) {  // in place: send what the receive blocks hold at the start
        std::byte* t = s.scratch(total);
        auto* sb = reinterpret_cast<cblock*>(s.scratch(static_cast<std::size_t>(p) * sizeof(cblock)));
        if (!t || !sb) return;
        for (int i = 0; i < p; ++i) {
            s.copy(rblocks[i].p, t, rblocks[i].n);
            sb[i] = {t, rblocks[i].n};
            t += rblocks[i].n;
        }
        s.fence();
        sblocks = sb;
    }
    exchange(s, sblocks, rblocks, largest >= g_tuning.alltoall_long);
}

}  // namespace ch4lite::coll
