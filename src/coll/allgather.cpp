// SPDX-License-Identifier: MIT
// Allgather and Allgatherv. Every rank's block is already in place.
//   recursive doubling  p a power of two: log2 p exchanges of growing,
//                       aligned runs of blocks, in place.
//   Bruck               other p, small totals: log2 p rounds in a rotated
//                       temporary, then one unrotation.
//   ring                large totals (from g_tuning.allgather_long bytes) and
//                       Allgatherv: p - 1 steps, each block passed on once.
#include <algorithm>
#include <cstring>

#include "coll/coll.hpp"
#include "coll/p2p.hpp"
#include "util/pool_buffer.hpp"

namespace ch4lite::coll {

using namespace ch4lite::dev;

namespace {

status allgather_rd(std::byte* rbuf, std::size_t n, comm& c) noexcept {
    const int me = c.rank;
    for (int m = 1; m < c.size; m <<= 1) {
        const int mine = me & ~(m - 1), theirs = mine ^ m;
        const std::size_t len = static_cast<std::size_t>(m) * n;
        const status s = coll::sendrecv(c, rbuf + static_cast<std::size_t>(mine) * n, len, me ^ m,
                                        rbuf + static_cast<std::size_t>(theirs) * n, len, me ^ m,
                                        coll::tag_allgather);
        if (s != status::ok) return s;
    }
    return status::ok;
}

status allgather_bruck(std::byte* rbuf, std::size_t n, comm& c) noexcept {
    const int p = c.size, me = c.rank;
    util::scratch tmp;
    std::byte* t = tmp.get(static_cast<std::size_t>(p) * n);
    if (!t) return status::no_mem;
    // t holds blocks of ranks me, me+1, ... (mod p).
    std::memcpy(t, rbuf + static_cast<std::size_t>(me) * n, n);
    for (int k = 1; k < p; k <<= 1) {
        const std::size_t cnt = static_cast<std::size_t>(std::min(k, p - k));
        const status s = coll::sendrecv(c, t, cnt * n, (me - k + p) % p,
                                        t + static_cast<std::size_t>(k) * n, cnt * n, (me + k) % p,
                                        coll::tag_allgather);
        if (s != status::ok) return s;
    }
    for (int i = 1; i < p; ++i)
        std::memcpy(rbuf + static_cast<std::size_t>((me + i) % p) * n,
                    t + static_cast<std::size_t>(i) * n, n);
    return status::ok;
}

// Ring over arbitrary blocks: step i passes block (me - i) right.
status allgather_ring(const block* b, comm& c) noexcept {
    const int p = c.size, me = c.rank;
    const int right = (me + 1) % p, left = (me - 1 + p) % p;
    for (int i = 0; i < p - 1; ++i) {
        const int j = (me - i + p) % p, jn = (me - i - 1 + p) % p;
        const status s = coll::sendrecv(c, b[j].p, b[j].n, right, b[jn].p, b[jn].n, left,
                                        coll::tag_allgather);
        if (s != status::ok) return s;
    }
    return status::ok;
}

}  // namespace

status allgather(void* rbuf, std::size_t n, comm& c) noexcept {
    const int p = c.size;
    if (p == 1) return coll::finish(status::ok);
    auto* r = static_cast<std::byte*>(rbuf);
    const std::size_t total = static_cast<std::size_t>(p) * n;
    if ((p & (p - 1)) == 0 && total < g_tuning.allgather_long) return coll::finish(allgather_rd(r, n, c));
    if (total < g_tuning.allgather_long) return coll::finish(allgather_bruck(r, n, c));
    util::scratch tmp;
    auto* b = reinterpret_cast<block*>(tmp.get(static_cast<std::size_t>(p) * sizeof(block)));
    if (!b) return coll::finish(status::no_mem);
    for (int i = 0; i < p; ++i) b[i] = {r + static_cast<std::size_t>(i) * n, n};
    return coll::finish(allgather_ring(b, c));
}

status allgatherv(const block* blocks, comm& c) noexcept {
    if (c.size == 1) return coll::finish(status::ok);
    return coll::finish(allgather_ring(blocks, c));
}

}  // namespace ch4lite::coll
