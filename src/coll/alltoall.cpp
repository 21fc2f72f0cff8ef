// SPDX-License-Identifier: MIT
// Alltoall and Alltoallv.
//   scattered  blocks below g_tuning.alltoall_long: every receive and send
//              posted at once (up to g_tuning.alltoall_window peers at a
//              time), peers visited in rotated order so no rank is hit by
//              everyone at the same moment.
//   pairwise   large blocks: p - 1 exchange steps with rank + i / rank - i,
//              one message each way in flight.
// In place: the send data is copied aside first, then as above.
#include <algorithm>
#include <cstring>

#include "coll/coll.hpp"
#include "coll/p2p.hpp"
#include "coll/stage.hpp"
#include "util/pool_buffer.hpp"

namespace ch4lite::coll {

using namespace ch4lite::dev;

namespace {

status exchange(const cblock* s, const block* r, bool pairwise, comm& c) noexcept {
    const int p = c.size, me = c.rank;
    if (r[me].n != s[me].n) return status::truncated;
    if (r[me].n) std::memmove(r[me].p, s[me].p, r[me].n);
    if (p == 2)  // one exchange: a small one on a node needs no request at all
        return coll::sendrecv(c, s[1 - me].p, s[1 - me].n, 1 - me, r[1 - me].p, r[1 - me].n, 1 - me,
                              coll::tag_alltoall);
    coll::reqs q(c);
    const int window = pairwise ? 1 : std::clamp(g_tuning.alltoall_window, 1, coll::reqs::capacity / 2);
    for (int i = 1; i < p; i += window) {
        for (int k = i; k < std::min(p, i + window); ++k) {
            const int src = (me - k + p) % p;
            if (const status st = q.recv(r[src].p, r[src].n, src, coll::tag_alltoall); st != status::ok)
                return st;
        }
        for (int k = i; k < std::min(p, i + window); ++k) {
            const int dst = (me + k) % p;
            if (const status st = q.send(s[dst].p, s[dst].n, dst, coll::tag_alltoall); st != status::ok)
                return st;
        }
        if (const status st = q.wait(); st != status::ok) return st;
    }
    return status::ok;
}

}  // namespace

status alltoall(const void* sbuf, void* rbuf, std::size_t n, comm& c) noexcept {
    const int p = c.size;
    const std::size_t total = static_cast<std::size_t>(p) * n;
    util::scratch copy, desc;
    auto* r = static_cast<std::byte*>(rbuf);
    const std::byte* s = static_cast<const std::byte*>(sbuf);
    if (!s) {
        std::byte* t = copy.get(total);
        if (!t) return coll::finish(status::no_mem);
        std::memcpy(t, r, total);
        s = t;
    }
    if (n >= g_tuning.alltoall_stage && n < g_tuning.alltoall_stage_max && all_local(c) && stage_usable(c) &&
        stage_box_bytes(c) / static_cast<std::size_t>(p) >= 64 && stage_exchange_now(c))
        return coll::finish(alltoall_staged(s, r, n, c));
    std::byte* d = desc.get(static_cast<std::size_t>(p) * (sizeof(cblock) + sizeof(block)));
    if (!d) return coll::finish(status::no_mem);
    auto* sb = reinterpret_cast<cblock*>(d);
    auto* rb = reinterpret_cast<block*>(d + static_cast<std::size_t>(p) * sizeof(cblock));
    for (int i = 0; i < p; ++i) {
        sb[i] = {s + static_cast<std::size_t>(i) * n, n};
        rb[i] = {r + static_cast<std::size_t>(i) * n, n};
    }
    return coll::finish(exchange(sb, rb, n >= g_tuning.alltoall_long, c));
}

status alltoallv(const cblock* sblocks, const block* rblocks, comm& c) noexcept {
    const int p = c.size;
    std::size_t total = 0, largest = 0;
    for (int i = 0; i < p; ++i) {
        total += rblocks[i].n;
        largest = std::max(largest, rblocks[i].n);
    }
    util::scratch copy, desc;
    if (!sblocks) {  // in place: send what the receive blocks hold now
        std::byte* t = copy.get(total);
        std::byte* d = desc.get(static_cast<std::size_t>(p) * sizeof(cblock));
        if (!t || !d) return coll::finish(status::no_mem);
        auto* sb = reinterpret_cast<cblock*>(d);
        for (int i = 0; i < p; ++i) {
            std::memcpy(t, rblocks[i].p, rblocks[i].n);
            sb[i] = {t, rblocks[i].n};
            t += rblocks[i].n;
        }
        sblocks = sb;
    }
    return coll::finish(exchange(sblocks, rblocks, largest >= g_tuning.alltoall_long, c));
}

}  // namespace ch4lite::coll
