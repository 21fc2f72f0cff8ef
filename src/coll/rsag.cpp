// SPDX-License-Identifier: MIT
#include "coll/rsag.hpp"

#include <bit>

#include "coll/p2p.hpp"

namespace ch4lite::coll {

using namespace ch4lite::dev;

rsag::rsag(int64_t count, const reduction& op, comm& c, int tag) noexcept
    : count_(count), op_(op), c_(c), tag_(tag) {
    pof2_ = static_cast<int>(std::bit_floor(static_cast<unsigned>(c.size)));
    rem_ = c.size - pof2_;
    const int me = c.rank;
    newrank_ = me < 2 * rem_ ? (me % 2 ? me / 2 : -1) : me - rem_;
}

bool rsag::usable(int64_t count, const comm& c) noexcept {
    return count >= static_cast<int64_t>(std::bit_floor(static_cast<unsigned>(c.size)));
}

int64_t rsag::first(int seg) const noexcept {
    const int64_t q = count_ / pof2_, r = count_ % pof2_;
    return seg * q + (seg < r ? seg : r);
}
std::byte* rsag::at(std::byte* w, int seg) const noexcept {
    return w + static_cast<std::size_t>(first(seg)) * op_.elem;
}
std::size_t rsag::span(int a, int b) const noexcept {
    return static_cast<std::size_t>(first(b) - first(a)) * op_.elem;
}

status rsag::reduce_scatter(std::byte* work) noexcept {
    const int me = c_.rank;
    const std::size_t bytes = static_cast<std::size_t>(count_) * op_.elem;
    std::byte* tmp = tmp_.get(bytes);
    if (!tmp) return status::no_mem;
    if (me < 2 * rem_) {  // fold: even ranks hand their vector to the odd neighbour
        if (me % 2 == 0) return send(c_, work, bytes, me + 1, tag_);
        if (const status s = recv(c_, tmp, bytes, me - 1, tag_); s != status::ok) return s;
        if (const status s = op_.apply(tmp, work, count_); s != status::ok) return s;
    }
    lo_ = 0;
    hi_ = pof2_;
    for (int mask = pof2_ / 2; mask > 0; mask >>= 1) {
        const int mid = lo_ + (hi_ - lo_) / 2;
        const bool upper = newrank_ & mask;
        const int keep_lo = upper ? mid : lo_, keep_hi = upper ? hi_ : mid;
        const int give_lo = upper ? lo_ : mid, give_hi = upper ? mid : hi_;
        const int peer = real(newrank_ ^ mask);
        const status s = sendrecv(c_, at(work, give_lo), span(give_lo, give_hi), peer,
                                  at(tmp, keep_lo), span(keep_lo, keep_hi), peer, tag_);
        if (s != status::ok) return s;
        const int64_t n = first(keep_hi) - first(keep_lo);
        if (const status a = op_.apply(at(tmp, keep_lo), at(work, keep_lo), n); a != status::ok)
            return a;
        lo_ = keep_lo;
        hi_ = keep_hi;
    }
    return status::ok;
}

status rsag::allgather(std::byte* work) noexcept {
    const int me = c_.rank;
    const std::size_t bytes = static_cast<std::size_t>(count_) * op_.elem;
    if (newrank_ >= 0) {
        for (int mask = 1; mask < pof2_; mask <<= 1) {
            const int w = hi_ - lo_, plo = lo_ ^ mask;  // partner's aligned run
            const int peer = real(newrank_ ^ mask);
            const status s = sendrecv(c_, at(work, lo_), span(lo_, hi_), peer, at(work, plo),
                                      span(plo, plo + w), peer, tag_);
            if (s != status::ok) return s;
            lo_ = lo_ < plo ? lo_ : plo;
            hi_ = lo_ + 2 * w;
        }
    }
    if (me < 2 * rem_) {  // unfold
        if (me % 2) return send(c_, work, bytes, me - 1, tag_);
        return recv(c_, work, bytes, me + 1, tag_);
    }
    return status::ok;
}

status rsag::gather(std::byte* work, int root) noexcept {
    if (c_.rank != root) {
        if (newrank_ < 0) return status::ok;
        return send(c_, at(work, lo_), span(lo_, hi_), root, tag_);
    }
    reqs q(c_);
    for (int k = 0; k < pof2_; ++k) {
        if (k == newrank_) continue;  // mine is already in place
        if (const status s = q.recv(at(work, k), span(k, k + 1), real(k), tag_); s != status::ok)
            return s;
    }
    return q.wait();
}

}  // namespace ch4lite::coll
