// SPDX-License-Identifier: MIT
// Schedules of Reduce, Allreduce, Reduce_scatter(_block), Scan and Exscan
// (coll/build.hpp): the algorithms of coll/reduce.cpp, allreduce.cpp,
// rsag.cpp, reduce_scatter.cpp and scan.cpp as rounds of steps. Buffers
// that the direct algorithms swap at run time (non-commutative operands)
// are swapped here while building: which one holds what after each round
// is known in advance.
#include <algorithm>
#include <bit>
#include <utility>

#include "coll/build.hpp"

namespace ch4lite::coll {

namespace {

std::size_t at(int k, std::size_t n) noexcept { return static_cast<std::size_t>(k) * n; }

// Rabenseifner (coll/rsag.hpp): fold to pof2 ranks, recursive halving of
// the vector in `work`, then recursive doubling to everyone (root < 0) or
// the segments to the root.
class rsag_plan {
  public:
    rsag_plan(sched& s, int64_t count) noexcept : s_(s), c_(s.owner()), count_(count) {
        pof2_ = static_cast<int>(std::bit_floor(static_cast<unsigned>(c_.size)));
        rem_ = c_.size - pof2_;
        const int me = c_.rank;
        newrank_ = me < 2 * rem_ ? (me % 2 ? me / 2 : -1) : me - rem_;
    }
    void reduce_scatter(std::byte* work) noexcept {
        const int me = c_.rank;
        const std::size_t bytes = static_cast<std::size_t>(count_) * elem();
        std::byte* tmp = s_.scratch(bytes);
        if (!tmp) return;
        if (me < 2 * rem_) {
            if (me % 2 == 0) {
                s_.send(work, bytes, me + 1);
                s_.fence();
                return;
            }
            s_.recv(tmp, bytes, me - 1);
            s_.fence();
            s_.reduce(tmp, work, count_);
            s_.fence();
        }
        lo_ = 0;
        hi_ = pof2_;
        for (int mask = pof2_ / 2; mask > 0; mask >>= 1) {
            const int mid = lo_ + (hi_ - lo_) / 2;
            const bool upper = newrank_ & mask;
            const int keep_lo = upper ? mid : lo_, keep_hi = upper ? hi_ : mid;
            const int give_lo = upper ? lo_ : mid, give_hi = upper ? mid : hi_;
            const int peer = real(newrank_ ^ mask);
            s_.recv(at(tmp, keep_lo), span(keep_lo, keep_hi), peer);
            s_.send(at(work, give_lo), span(give_lo, give_hi), peer);
            s_.fence();
            s_.reduce(at(tmp, keep_lo), at(work, keep_lo), first(keep_hi) - first(keep_lo));
            s_.fence();
            lo_ = keep_lo;
            hi_ = keep_hi;
        }
    }
    void allgather(std::byte* work) noexcept {
        const int me = c_.rank;
        const std::size_t bytes = static_cast<std::size_t>(count_) * elem();
        if (newrank_ >= 0) {
            for (int mask = 1; mask < pof2_; mask <<= 1) {
                const int w = hi_ - lo_, plo = lo_ ^ mask;
                const int peer = real(newrank_ ^ mask);
                s_.recv(at(work, plo), span(plo, plo + w), peer);
                s_.send(at(work, lo_), span(lo_, hi_), peer);
                s_.fence();
                lo_ = std::min(lo_, plo);
                hi_ = lo_ + 2 * w;
            }
        }
        if (me < 2 * rem_) {
            if (me % 2)
                s_.send(work, bytes, me - 1);
            else
                s_.recv(work, bytes, me + 1);
        }
    }
    void gather(std::byte* work, int root) noexcept {
        if (c_.rank != root) {
            if (newrank_ >= 0) s_.send(at(work, lo_), span(lo_, hi_), root);
            return;
        }
        for (int k = 0; k < pof2_; ++k)
            if (k != newrank_) s_.recv(at(work, k), span(k, k + 1), real(k));
    }

  private:
    std::size_t elem() const noexcept { return s_.op().elem; }
    int64_t first(int seg) const noexcept {
        const int64_t q = count_ / pof2_, r = count_ % pof2_;
        return seg * q + (seg < r ? seg : r);
    }
    std::byte* at(std::byte* w, int seg) const noexcept {
        return w + static_cast<std::size_t>(first(seg)) * elem();
    }
    std::size_t span(int a, int b) const noexcept {
        return static_cast<std::size_t>(first(b) - first(a)) * elem();
    }
    int real(int nr) const noexcept { return nr < rem_ ? 2 * nr + 1 : nr + rem_; }

    sched& s_;
    const comm& c_;
    int64_t count_;
    int pof2_ = 1, rem_ = 0, newrank_ = -1, lo_ = 0, hi_ = 0;
};

bool rsag_usable(int64_t count, const comm& c) noexcept {
    return count >= static_cast<int64_t>(std::bit_floor(static_cast<unsigned>(c.size)));
}

void reduce_binomial(sched& s, const std::byte* sbuf, std::byte* rbuf, int64_t count, int root) noexcept {
    const comm& c = s.owner();
    const reduction& op = s.op();
    const int p = c.size;
    const int vroot = op.commutative ? root : 0;
    const int rel = (c.rank - vroot + p) % p;
    const std::size_t bytes = static_cast<std::size_t>(count) * op.elem;
    const std::byte* input = sbuf ? sbuf : rbuf;
    std::byte* acc = (c.rank == root && vroot == root) ? rbuf : s.scratch(bytes);
    if (!acc) return;
    if (acc != input) {
        s.copy(input, acc, bytes);
        s.fence();
    }
    std::byte* tmp = nullptr;
    for (int mask = 1; mask < p; mask <<= 1) {
        if (rel & mask) {
            s.send(acc, bytes, (rel - mask + vroot) % p);
            s.fence();
            break;
        }
        if (rel + mask >= p) continue;
        if (!tmp && !(tmp = s.scratch(bytes))) return;
        s.recv(tmp, bytes, (rel + mask + vroot) % p);
        s.fence();
        if (op.commutative) {
            s.reduce(tmp, acc, count);
        } else {
            s.reduce(acc, tmp, count);
            std::swap(acc, tmp);
        }
        s.fence();
    }
    if (vroot != root) {  // non-commutative, root != 0: rank 0 forwards
        if (c.rank == 0) s.send(acc, bytes, root);
        if (c.rank == root) s.recv(rbuf, bytes, 0);
        return;
    }
    if (c.rank == root && acc != rbuf) s.copy(acc, rbuf, bytes);
}

void allreduce_rd(sched& s, std::byte* rbuf, int64_t count) noexcept {
    const comm& c = s.owner();
    const reduction& op = s.op();
    const int me = c.rank;
    const int pof2 = static_cast<int>(std::bit_floor(static_cast<unsigned>(c.size)));
    const int rem = c.size - pof2;
    const std::size_t bytes = static_cast<std::size_t>(count) * op.elem;
    std::byte* tmp = s.scratch(bytes);
    if (!tmp) return;
    std::byte* res = rbuf;
    int newrank = me - rem;
    if (me < 2 * rem) {
        if (me % 2 == 0) {
            s.send(res, bytes, me + 1);
            newrank = -1;
        } else {
            s.recv(tmp, bytes, me - 1);
            s.fence();
            s.reduce(tmp, res, count);
            newrank = me / 2;
        }
        s.fence();
    }
    if (newrank >= 0) {
        for (int mask = 1; mask < pof2; mask <<= 1) {
            const int nd = newrank ^ mask;
            const int peer = nd < rem ? 2 * nd + 1 : nd + rem;
            s.recv(tmp, bytes, peer);
            s.send(res, bytes, peer);
            s.fence();
            if (op.commutative || peer < me) {
                s.reduce(tmp, res, count);
            } else {
                s.reduce(res, tmp, count);
                std::swap(res, tmp);
            }
            s.fence();
        }
    }
    if (me < 2 * rem) {
        if (me % 2)
            s.send(res, bytes, me - 1);
        else
            s.recv(res, bytes, me + 1);
        s.fence();
    }
    if (res != rbuf) s.copy(res, rbuf, bytes);
}

// Every rank sends its vector to every other and folds the p vectors in
// rank order: x0 op (x1 op (... op x_{p-1})), the same bits everywhere.
// sbuf == nullptr: in place. The fold runs in rbuf, starting from x_{p-1}:
// received straight into rbuf when that is another rank's and rbuf holds
// no input, so on 2 ranks rank 0 makes no copy at all. rbuf is written
// only after the fence, so it can be sent from in place.
void allreduce_direct(sched& s, const std::byte* sbuf, std::byte* rbuf, int64_t count) noexcept {
    const comm& c = s.owner();
    const int p = c.size, me = c.rank, last = p - 1;
    const std::size_t bytes = static_cast<std::size_t>(count) * s.op().elem;
    std::byte* all = s.scratch(at(p, bytes));  // received vector of rank r at r * bytes
    if (!all) return;
    const bool inplace = sbuf == nullptr;
    const std::byte* own = inplace ? rbuf : sbuf;  // what I send
    const std::byte* mine = own;                    // my operand in the fold
    // Sends first: they leave before any receive is looked at (these small
    // receives are mostly taken without a posted request anyway).
    for (int i = 1; i < p; ++i) s.send(own, bytes, (me + i) % p);
    if (inplace && me != last) {  // rbuf will hold x_{p-1}: keep mine aside
        s.copy(rbuf, all + at(me, bytes), bytes);
        mine = all + at(me, bytes);
    }
    const bool last_into_rbuf = me != last && !inplace;
    for (int i = 1; i < p; ++i) {
        const int src = (me - i + p) % p;
        s.recv(src == last && last_into_rbuf ? rbuf : all + at(src, bytes), bytes, src);
    }
    if (me == last && !inplace) s.copy(sbuf, rbuf, bytes);  // x_{p-1} is mine
    s.fence();
    step prev = -1;
    if (me != last && inplace) prev = s.copy(all + at(last, bytes), rbuf, bytes);
    for (int r = p - 2; r >= 0; --r) prev = s.reduce(r == me ? mine : all + at(r, bytes), rbuf, count, {prev});
}

}  // namespace

void add_reduce(sched& s, const std::byte* sbuf, std::byte* rbuf, int64_t count, int root) noexcept {
    const comm& c = s.owner();
    const reduction& op = s.op();
    const std::size_t bytes = static_cast<std::size_t>(count) * op.elem;
    if (c.size == 1) {
        if (sbuf && count) s.copy(sbuf, rbuf, bytes);
        return;
    }
    if (op.commutative && bytes >= g_tuning.reduce_long && rsag_usable(count, c)) {
        std::byte* work = c.rank == root ? rbuf : s.scratch(bytes);
        if (!work) return;
        const std::byte* input = sbuf ? sbuf : rbuf;
        if (work != input) {
            s.copy(input, work, bytes);
            s.fence();
        }
        rsag_plan plan(s, count);
        plan.reduce_scatter(work);
        plan.gather(work, root);
        return;
    }
    reduce_binomial(s, sbuf, rbuf, count, root);
}

void add_allreduce(sched& s, const std::byte* sbuf, std::byte* rbuf, int64_t count) noexcept {
    const comm& c = s.owner();
    const reduction& op = s.op();
    const std::size_t bytes = static_cast<std::size_t>(count) * op.elem;
    if (c.size > 1 && count > 0 && bytes <= g_tuning.allreduce_direct && c.size <= 8)
        return allreduce_direct(s, sbuf, rbuf, count);
    if (sbuf && bytes) {
        s.copy(sbuf, rbuf, bytes);
        s.fence();
    }
    if (c.size == 1 || count == 0) return;
    if (op.commutative && bytes >= g_tuning.allreduce_long && rsag_usable(count, c)) {
        rsag_plan plan(s, count);
        plan.reduce_scatter(rbuf);
        plan.allgather(rbuf);
        return;
    }
    allreduce_rd(s, rbuf, count);
}

void add_reduce_scatter(sched& s, const std::byte* sbuf, std::byte* rbuf, const int64_t* counts) noexcept {
    const comm& c = s.owner();
    const reduction& op = s.op();
    const int p = c.size, me = c.rank;
    auto* disps = reinterpret_cast<int64_t*>(s.scratch(static_cast<std::size_t>(p) * sizeof(int64_t)));
    if (!disps) return;
    int64_t total = 0;
    for (int i = 0; i < p; ++i) {
        disps[i] = total;
        total += counts[i];
    }
    const std::size_t bytes = static_cast<std::size_t>(total) * op.elem;
    const std::byte* in = sbuf;
    if (!in) {  // in place: the whole input is in rbuf, which also takes my piece
        std::byte* t = s.scratch(bytes);
        if (!t) return;
        s.copy(rbuf, t, bytes);
        s.fence();
        in = t;
    }
    auto piece = [&](int i) { return in + static_cast<std::size_t>(disps[i]) * op.elem; };
    const std::size_t mine = static_cast<std::size_t>(counts[me]) * op.elem;
    if (p == 1) {
        s.copy(in, rbuf, bytes);
        return;
    }
    if (op.commutative && bytes >= g_tuning.allreduce_long) {
        // Pairwise: step i sends the piece of me + i, folds in mine from me - i.
        std::byte* tmp = s.scratch(mine);
        if (!tmp) return;
        s.copy(piece(me), rbuf, mine);
        for (int i = 1; i < p; ++i) {
            const int dst = (me + i) % p, src = (me - i + p) % p;
            const step r = s.recv(tmp, mine, src);
            s.send(piece(dst), static_cast<std::size_t>(counts[dst]) * op.elem, dst);
            s.reduce(tmp, rbuf, counts[me], {r});
            s.fence();
        }
        return;
    }
    // Reduce to rank 0 in rank order, then Scatterv.
    std::byte* whole = me == 0 ? s.scratch(bytes) : nullptr;
    if (me == 0 && !whole) return;
    reduce_binomial(s, in, whole, total, 0);
    s.fence();
    cblock* blocks = nullptr;
    if (me == 0) {
        blocks = reinterpret_cast<cblock*>(s.scratch(static_cast<std::size_t>(p) * sizeof(cblock)));
        if (!blocks) return;
        for (int i = 0; i < p; ++i)
            blocks[i] = {whole + static_cast<std::size_t>(disps[i]) * op.elem,
                         static_cast<std::size_t>(counts[i]) * op.elem};
    }
    add_scatterv(s, blocks, rbuf, mine, 0);
}

void add_scan(sched& s, const std::byte* sbuf, std::byte* rbuf, int64_t count, bool exclusive) noexcept {
    const comm& c = s.owner();
    const reduction& op = s.op();
    const int p = c.size, me = c.rank;
    const std::size_t bytes = static_cast<std::size_t>(count) * op.elem;
    std::byte* partial = s.scratch(bytes);
    std::byte* tmp = s.scratch(bytes);
    if (!partial || !tmp) return;
    s.copy(sbuf ? sbuf : rbuf, partial, bytes);
    if (!exclusive && sbuf) s.copy(sbuf, rbuf, bytes);
    s.fence();
    bool have_result = !exclusive;
    for (int mask = 1; mask < p; mask <<= 1) {
        const int peer = me ^ mask;
        if (peer >= p) continue;
        s.recv(tmp, bytes, peer);
        s.send(partial, bytes, peer);
        s.fence();
        if (peer < me) {
            s.reduce(tmp, partial, count);
            if (have_result) {
                s.reduce(tmp, rbuf, count);
            } else {
                s.copy(tmp, rbuf, bytes);
                have_result = true;
            }
        } else if (op.commutative) {
            s.reduce(tmp, partial, count);
        } else {
            s.reduce(partial, tmp, count);
            std::swap(partial, tmp);
        }
        s.fence();
    }
}

}  // namespace ch4lite::coll
