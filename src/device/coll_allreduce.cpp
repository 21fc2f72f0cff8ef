// SPDX-License-Identifier: MIT
// Allreduce.
//   recursive doubling  log2 p exchanges of the whole vector (short vectors,
//                       and every non-commutative op). With p not a power
//                       of two, the first 2 rem ranks fold pairwise first
//                       and get the result back at the end. Partners always
//                       hold contiguous runs of ranks, so operands are
//                       combined lower-ranks-first.
//   reduce-scatter + allgather (Rabenseifner, device/coll_rsag.hpp) for
//                       commutative ops from g_coll.allreduce_long bytes.
#include <bit>
#include <cstring>
#include <utility>

#include "device/coll.hpp"
#include "device/coll_p2p.hpp"
#include "device/coll_rsag.hpp"
#include "util/pool_buffer.hpp"

namespace ch4lite::dev {

namespace {

status allreduce_rd(std::byte* rbuf, int64_t count, const reduction& op, comm& c) noexcept {
    const int me = c.rank;
    const int pof2 = static_cast<int>(std::bit_floor(static_cast<unsigned>(c.size)));
    const int rem = c.size - pof2;
    const std::size_t bytes = static_cast<std::size_t>(count) * op.elem;
    util::scratch st;
    std::byte* tmp = st.get(bytes);
    if (!tmp) return status::no_mem;
    std::byte* res = rbuf;  // may swap with tmp for non-commutative ops
    int newrank = me - rem;
    if (me < 2 * rem) {
        if (me % 2 == 0) {
            if (const status s = coll::send(c, res, bytes, me + 1, coll::tag_allreduce); s != status::ok)
                return s;
            newrank = -1;
        } else {
            if (const status s = coll::recv(c, tmp, bytes, me - 1, coll::tag_allreduce);
                s != status::ok)
                return s;
            if (const status s = op.apply(tmp, res, count); s != status::ok) return s;
            newrank = me / 2;
        }
    }
    if (newrank >= 0) {
        for (int mask = 1; mask < pof2; mask <<= 1) {
            const int nd = newrank ^ mask;
            const int peer = nd < rem ? 2 * nd + 1 : nd + rem;
            const status s =
                coll::sendrecv(c, res, bytes, peer, tmp, bytes, peer, coll::tag_allreduce);
            if (s != status::ok) return s;
            if (op.commutative || peer < me) {
                if (const status a = op.apply(tmp, res, count); a != status::ok) return a;
            } else {
                if (const status a = op.apply(res, tmp, count); a != status::ok) return a;
                std::swap(res, tmp);
            }
        }
    }
    if (me < 2 * rem) {
        if (me % 2) {
            if (const status s = coll::send(c, res, bytes, me - 1, coll::tag_allreduce); s != status::ok)
                return s;
        } else if (const status s = coll::recv(c, res, bytes, me + 1, coll::tag_allreduce);
                   s != status::ok) {
            return s;
        }
    }
    if (res != rbuf) std::memcpy(rbuf, res, bytes);
    return status::ok;
}

}  // namespace

status coll_allreduce(const void* sbuf, void* rbuf, int64_t count, const reduction& op,
                      comm& c) noexcept {
    auto* r = static_cast<std::byte*>(rbuf);
    const std::size_t bytes = static_cast<std::size_t>(count) * op.elem;
    if (sbuf && bytes) std::memcpy(r, sbuf, bytes);
    if (c.size == 1 || count == 0) return coll::finish(status::ok);
    if (op.commutative && bytes >= g_coll.allreduce_long && coll::rsag::usable(count, c)) {
        coll::rsag plan(count, op, c, coll::tag_allreduce);
        if (const status s = plan.reduce_scatter(r); s != status::ok) return coll::finish(s);
        return coll::finish(plan.allgather(r));
    }
    return coll::finish(allreduce_rd(r, count, op, c));
}

}  // namespace ch4lite::dev
