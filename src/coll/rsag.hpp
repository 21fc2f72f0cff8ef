// SPDX-License-Identifier: MIT
// Rabenseifner's reduce-scatter + allgather/gather for long vectors and
// commutative ops, shared by Allreduce and Reduce.
//
// With p = pof2 + rem (pof2 the largest power of two <= p), the first 2 rem
// ranks fold pairwise (even into odd) so pof2 ranks remain. Those reduce the
// vector cut in pof2 segments by recursive halving: after log2 pof2 steps
// the rank of new number k holds segment k fully reduced, each rank having
// sent and received about n bytes in total. Then either recursive doubling
// rebuilds the whole vector everywhere (and unfolds to the even ranks), or
// the root collects the segments.
#pragma once
#include <cstddef>
#include <cstdint>

#include "coll/coll.hpp"
#include "util/pool_buffer.hpp"

namespace ch4lite::coll {

class rsag {
  public:
    rsag(int64_t count, const reduction& op, comm& c, int tag) noexcept;
    // Needs at least one instance per segment.
    static bool usable(int64_t count, const comm& c) noexcept;

    // `work` holds my whole input vector; reduced in place.
    status reduce_scatter(std::byte* work) noexcept;
    // After reduce_scatter: every rank gets the whole result in work.
    status allgather(std::byte* work) noexcept;
    // After reduce_scatter: the root gets the whole result in work.
    status gather(std::byte* work, int root) noexcept;

  private:
    int64_t first(int seg) const noexcept;  // first instance of segment seg
    std::byte* at(std::byte* w, int seg) const noexcept;
    std::size_t span(int seg_lo, int seg_hi) const noexcept;  // bytes of [lo, hi)
    int real(int newrank) const noexcept { return newrank < rem_ ? 2 * newrank + 1 : newrank + rem_; }

    int64_t count_;
    const reduction& op_;
    comm& c_;
    int tag_;
    int pof2_ = 1, rem_ = 0, newrank_ = -1;
    int lo_ = 0, hi_ = 0;  // my segments after reduce_scatter
    util::scratch tmp_;
};

}  // namespace ch4lite::coll
