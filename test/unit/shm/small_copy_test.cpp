// SPDX-License-Identifier: MIT
// util::small_copy (shm cell payloads, fine-grained RMA) and
// util::backward_copy (ring chunks): every length of every size class and
// past it, at every alignment, copies exactly n bytes and touches nothing
// around the destination.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "util/small_copy.hpp"

TEST(SmallCopy, EveryLengthAndAlignment) {
    constexpr std::size_t guard = 64, maxn = 200;
    std::vector<std::byte> src(maxn + 2 * guard), dst(maxn + 2 * guard);
    for (std::size_t i = 0; i < src.size(); ++i) src[i] = static_cast<std::byte>(i * 7 + 1);
    for (std::size_t n = 0; n <= maxn; ++n)
        for (std::size_t so = 0; so < 8; ++so)
            for (std::size_t dof = 0; dof < 8; ++dof) {
                std::fill(dst.begin(), dst.end(), std::byte{0xEE});
                ch4lite::util::small_copy(dst.data() + guard + dof, src.data() + guard + so, n);
                for (std::size_t i = 0; i < dst.size(); ++i) {
                    const bool inside = i >= guard + dof && i < guard + dof + n;
                    const std::byte want = inside ? src[i - dof + so] : std::byte{0xEE};
                    ASSERT_EQ(dst[i], want) << "n " << n << " src offset " << so << " dst offset "
                                            << dof << " byte " << i;
                }
            }
}

// Every length from backward_min to past the receive limit and the 2 KiB
// pieces of the fallback, and multiples of the 128-byte block around it, at
// a spread of source and destination alignments (the block loop's first
// block overlaps the second unless n is a multiple of 128).
TEST(BackwardCopy, EveryLengthAndAlignment) {
    using ch4lite::util::backward_copy;
    constexpr std::size_t guard = 64, maxn = 4300;
    std::vector<std::byte> src(maxn + 2 * guard), dst(maxn + 2 * guard);
    for (std::size_t i = 0; i < src.size(); ++i) src[i] = static_cast<std::byte>(i * 13 + 5);
    const std::size_t offsets[] = {0, 1, 7, 16, 31, 32, 63};
    for (std::size_t n = ch4lite::util::backward_min; n <= maxn; ++n)
        for (std::size_t so : offsets)
            for (std::size_t dof : offsets) {
                if (n % 7 != 0 && n % 128 > 2 && n % 128 < 126 && so != dof) continue;  // sample
                std::fill(dst.begin(), dst.end(), std::byte{0xEE});
                backward_copy(dst.data() + guard + dof, src.data() + guard + so, n);
                for (std::size_t i = 0; i < dst.size(); ++i) {
                    const bool inside = i >= guard + dof && i < guard + dof + n;
                    const std::byte want = inside ? src[i - dof + so] : std::byte{0xEE};
                    ASSERT_EQ(dst[i], want) << "n " << n << " src offset " << so << " dst offset "
                                            << dof << " byte " << i;
                }
            }
}
