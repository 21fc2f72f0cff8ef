// SPDX-License-Identifier: MIT
// Reduce.
//   binomial   log2 p rounds; each rank folds its children's subtrees into
//              its own. Commutative ops run the tree relative to the root;
//              non-commutative ones run it on rank order from rank 0, where
//              every subtree is a contiguous run of ranks, so operands are
//              combined lower-ranks-first, and rank 0 forwards the result.
//   reduce-scatter + gather (Rabenseifner), commutative ops from
//              g_tuning.reduce_long bytes: each rank reduces 1/p of the
//              vector (coll/rsag.hpp), the root gathers the pieces.
#include <cstring>
#include <utility>

#include "coll/coll.hpp"
#include "coll/p2p.hpp"
#include "coll/rsag.hpp"
#include "util/pool_buffer.hpp"

namespace ch4lite::coll {

using namespace ch4lite::dev;

namespace {

status reduce_binomial(const void* sbuf, std::byte* rbuf, int64_t count, const reduction& op,
                       int root, comm& c) noexcept {
    const int p = c.size;
    const int vroot = op.commutative ? root : 0;
    const int rel = (c.rank - vroot + p) % p;
    const std::size_t bytes = static_cast<std::size_t>(count) * op.elem;
    const void* input = sbuf ? sbuf : rbuf;
    util::scratch sa, sb;
    // acc: what my subtree has reduced so far. The final root accumulates
    // straight into rbuf.
    std::byte* acc = (c.rank == root && vroot == root) ? rbuf : sa.get(bytes);
    if (!acc) return status::no_mem;
    if (acc != input) std::memcpy(acc, input, bytes);
    std::byte* tmp = nullptr;
    for (int mask = 1; mask < p; mask <<= 1) {
        if (rel & mask) {
            const status s = coll::send(c, acc, bytes, (rel - mask + vroot) % p, coll::tag_reduce);
            if (s != status::ok) return s;
            break;
        }
        if (rel + mask >= p) continue;
        if (!tmp && !(tmp = sb.get(bytes))) return status::no_mem;
        const status s = coll::recv(c, tmp, bytes, (rel + mask + vroot) % p, coll::tag_reduce);
        if (s != status::ok) return s;
        // The child's subtree holds higher ranks than mine.
        const status a = op.commutative ? op.apply(tmp, acc, count) : op.apply(acc, tmp, count);
        if (a != status::ok) return a;
        if (!op.commutative) std::swap(acc, tmp);
    }
    if (vroot != root) {  // non-commutative, root != 0: rank 0 forwards
        if (c.rank == 0) return coll::send(c, acc, bytes, root, coll::tag_reduce);
        if (c.rank == root) return coll::recv(c, rbuf, bytes, 0, coll::tag_reduce);
        return status::ok;
    }
    if (c.rank == root && acc != rbuf) std::memcpy(rbuf, acc, bytes);
    return status::ok;
}

status reduce_rsag(const void* sbuf, std::byte* rbuf, int64_t count, const reduction& op, int root,
                   comm& c) noexcept {
    const std::size_t bytes = static_cast<std::size_t>(count) * op.elem;
    util::scratch sa;
    // The root reduces in rbuf; everyone else in a temporary.
    std::byte* work = c.rank == root ? rbuf : sa.get(bytes);
    if (!work) return status::no_mem;
    const void* input = sbuf ? sbuf : rbuf;
    if (work != input) std::memcpy(work, input, bytes);
    coll::rsag plan(count, op, c, coll::tag_reduce);
    if (const status s = plan.reduce_scatter(work); s != status::ok) return s;
    return plan.gather(work, root);
}

}  // namespace

status reduce(const void* sbuf, void* rbuf, int64_t count, const reduction& op, int root,
                   comm& c) noexcept {
    auto* r = static_cast<std::byte*>(rbuf);
    if (c.size == 1) {
        if (sbuf && count) std::memcpy(r, sbuf, static_cast<std::size_t>(count) * op.elem);
        return coll::finish(status::ok);
    }
    const std::size_t bytes = static_cast<std::size_t>(count) * op.elem;
    if (op.commutative && bytes >= g_tuning.reduce_long && coll::rsag::usable(count, c))
        return coll::finish(reduce_rsag(sbuf, r, count, op, root, c));
    return coll::finish(reduce_binomial(sbuf, r, count, op, root, c));
}

}  // namespace ch4lite::coll
