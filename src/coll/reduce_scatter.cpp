// SPDX-License-Identifier: MIT
// Reduce_scatter (and Reduce_scatter_block, which is the equal-counts case).
//   pairwise  commutative ops on long vectors: in step i rank r sends the
//             piece destined to r + i and folds in its own piece from r - i;
//             p - 1 steps, each piece sent once.
//   reduce + scatterv  short vectors and non-commutative ops: a rank-order
//             Reduce to rank 0 (device/reduce.cpp), then Scatterv.
#include <algorithm>
#include <cstring>

#include "coll/coll.hpp"
#include "coll/p2p.hpp"
#include "util/pool_buffer.hpp"

namespace ch4lite::coll {

using namespace ch4lite::dev;

namespace {

status rs_pairwise(const std::byte* in, std::byte* rbuf, const int64_t* counts,
                   const int64_t* disps, const reduction& op, comm& c) noexcept {
    const int p = c.size, me = c.rank;
    const std::size_t mine = static_cast<std::size_t>(counts[me]) * op.elem;
    util::scratch st;
    std::byte* tmp = st.get(mine);
    if (!tmp) return status::no_mem;
    const std::byte* my_in = in + static_cast<std::size_t>(disps[me]) * op.elem;
    if (rbuf != my_in) std::memmove(rbuf, my_in, mine);
    for (int i = 1; i < p; ++i) {
        const int dst = (me + i) % p, src = (me - i + p) % p;
        const status s = coll::sendrecv(c, in + static_cast<std::size_t>(disps[dst]) * op.elem,
                                        static_cast<std::size_t>(counts[dst]) * op.elem, dst, tmp,
                                        mine, src, coll::tag_reduce_scatter);
        if (s != status::ok) return s;
        if (const status a = op.apply(tmp, rbuf, counts[me]); a != status::ok) return a;
    }
    return status::ok;
}

}  // namespace

status reduce_scatter(const void* sbuf, void* rbuf, const int64_t* counts,
                           const reduction& op, comm& c) noexcept {
    const int p = c.size, me = c.rank;
    auto* r = static_cast<std::byte*>(rbuf);
    util::scratch sd, sin, stot;
    auto* disps = reinterpret_cast<int64_t*>(sd.get(static_cast<std::size_t>(p) * sizeof(int64_t)));
    if (!disps) return coll::finish(status::no_mem);
    int64_t total = 0;
    for (int i = 0; i < p; ++i) {
        disps[i] = total;
        total += counts[i];
    }
    const std::size_t bytes = static_cast<std::size_t>(total) * op.elem;
    const std::byte* in = static_cast<const std::byte*>(sbuf);
    if (!in) {  // in place: the whole input is in rbuf, which also takes my piece
        std::byte* t = sin.get(bytes);
        if (!t) return coll::finish(status::no_mem);
        std::memcpy(t, r, bytes);
        in = t;
    }
    if (p == 1) {
        if (bytes && r != in) std::memcpy(r, in, bytes);
        return coll::finish(status::ok);
    }
    if (op.commutative && bytes >= g_tuning.allreduce_long)
        return coll::finish(rs_pairwise(in, r, counts, disps, op, c));
    std::byte* whole = nullptr;
    if (me == 0 && !(whole = stot.get(bytes))) return coll::finish(status::no_mem);
    if (const status s = reduce(in, whole, total, op, 0, c); s != status::ok) return coll::finish(s);
    util::scratch sb;
    cblock* blocks = nullptr;
    if (me == 0) {
        blocks = reinterpret_cast<cblock*>(sb.get(static_cast<std::size_t>(p) * sizeof(cblock)));
        if (!blocks) return coll::finish(status::no_mem);
        for (int i = 0; i < p; ++i)
            blocks[i] = {whole + static_cast<std::size_t>(disps[i]) * op.elem,
                         static_cast<std::size_t>(counts[i]) * op.elem};
    }
    return coll::finish(scatterv(blocks, r, static_cast<std::size_t>(counts[me]) * op.elem, 0, c));
}

}  // namespace ch4lite::coll
