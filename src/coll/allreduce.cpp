// SPDX-License-Identifier: MIT
// Allreduce.
//   recursive doubling  log2 p exchanges of the whole vector (short vectors,
//                       and every non-commutative op). With p not a power
//                       of two, the first 2 rem ranks fold pairwise first
//                       and get the result back at the end. Partners always
//                       hold contiguous runs of ranks, so operands are
//                       combined lower-ranks-first.
//   reduce-scatter + allgather (Rabenseifner, coll/rsag.hpp) for
//                       commutative ops from g_tuning.allreduce_long bytes.
//   direct              tiny vectors on few ranks (g_tuning.allreduce_direct
//                       bytes, p <= 8): everyone sends its vector to everyone
//                       in one step and folds the p vectors itself, in rank
//                       order, so every rank computes the same bits. One
//                       message latency instead of log2 p (or log2 p + 2 when
//                       p is not a power of two).
#include <bit>
#include <cstring>
#include <utility>

#include "coll/coll.hpp"
#include "coll/p2p.hpp"
#include "coll/rsag.hpp"
#include "coll/stage.hpp"
#include "util/pool_buffer.hpp"

namespace ch4lite::coll {

using namespace ch4lite::dev;

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

status allreduce_direct(std::byte* rbuf, int64_t count, const reduction& op, comm& c) noexcept {
    const int p = c.size, me = c.rank;
    const std::size_t bytes = static_cast<std::size_t>(count) * op.elem;
    util::scratch st;
    std::byte* all = st.get(static_cast<std::size_t>(p) * bytes);  // vector of rank r at r * bytes
    if (!all) return status::no_mem;
    std::memcpy(all + static_cast<std::size_t>(me) * bytes, rbuf, bytes);
    if (p == 2) {  // one exchange: a small one on a node needs no request at all
        if (const status s = coll::sendrecv(c, rbuf, bytes, 1 - me,
                                            all + static_cast<std::size_t>(1 - me) * bytes, bytes,
                                            1 - me, coll::tag_allreduce);
            s != status::ok)
            return s;
    } else {
        coll::reqs q(c);
        for (int i = 1; i < p; ++i) {
            const int src = (me - i + p) % p;
            if (const status s = q.recv(all + static_cast<std::size_t>(src) * bytes, bytes, src,
                                        coll::tag_allreduce);
                s != status::ok)
                return s;
        }
        for (int i = 1; i < p; ++i)
            if (const status s = q.send(rbuf, bytes, (me + i) % p, coll::tag_allreduce); s != status::ok)
                return s;
        if (const status s = q.wait(); s != status::ok) return s;
    }
    // x0 op (x1 op (... op x_{p-1})): the same order, hence the same bits, everywhere.
    std::byte* acc = all + static_cast<std::size_t>(p - 1) * bytes;
    for (int r = p - 2; r >= 0; --r)
        if (const status s = op.apply(all + static_cast<std::size_t>(r) * bytes, acc, count);
            s != status::ok)
            return s;
    std::memcpy(rbuf, acc, bytes);
    return status::ok;
}

}  // namespace

status allreduce(const void* sbuf, void* rbuf, int64_t count, const reduction& op,
                      comm& c) noexcept {
    auto* r = static_cast<std::byte*>(rbuf);
    const std::size_t bytes = static_cast<std::size_t>(count) * op.elem;
    if (sbuf && bytes) std::memcpy(r, sbuf, bytes);
    if (c.size == 1 || count == 0) return coll::finish(status::ok);
    if (bytes >= g_tuning.allreduce_stage && all_local(c) && stage_usable(c) && op.elem <= stage_box_bytes(c) &&
        stage_box_bytes(c) > 0 && stage_exchange_now(c))
        return coll::finish(allreduce_staged(r, count, op, c));
    if (bytes <= g_tuning.allreduce_direct && c.size <= 8) return coll::finish(allreduce_direct(r, count, op, c));
    if (op.commutative && bytes >= g_tuning.allreduce_long && coll::rsag::usable(count, c)) {
        coll::rsag plan(count, op, c, coll::tag_allreduce);
        if (const status s = plan.reduce_scatter(r); s != status::ok) return coll::finish(s);
        return coll::finish(plan.allgather(r));
    }
    return coll::finish(allreduce_rd(r, count, op, c));
}

}  // namespace ch4lite::coll
