// SPDX-License-Identifier: MIT
// util::small_copy (shm cell payloads, fine-grained RMA) and
// util::backward_copy (ring chunks): every length of every size class and
// past it, at every alignment, copies exactly n bytes and touches nothing
// around the destination.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
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

// short_distance: the destination 1-63 bytes after the source modulo 4096,
// where memcpy's `rep movsb` is slow; copy_bytes and bulk_copy then copy
// backward at any length (beyond the sizes the test above walks), else
// call memcpy. Both must move exactly n bytes either way.
TEST(ShortDistance, OneToSixtyThreeBytesAfterModuloAPage) {
    using ch4lite::util::short_distance;
    std::vector<std::byte> mem(3 << 20);
    std::byte* const base =
        mem.data() + (4096 - reinterpret_cast<std::uintptr_t>(mem.data()) % 4096);
    const struct {
        std::ptrdiff_t d;
        bool want;
    } cases[] = {{0, false}, {1, true}, {8, true}, {31, true}, {63, true}, {64, false},
                 {4095, false}, {4096, false}, {4097, true}, {-1, false}, {-4095, true}};
    for (const auto& c : cases)
        EXPECT_EQ(short_distance(base + 8192 + c.d, base + 8192), c.want) << "distance " << c.d;
    constexpr std::size_t guard = 64, span = std::size_t{1} << 20;
    std::byte* const src = base;
    for (std::size_t i = 0; i < span; ++i) src[i] = static_cast<std::byte>(i * 11 + (i >> 12));
    std::vector<std::byte> want(span + 2 * guard);
    for (std::size_t n : {256, 4095, 4096, 16385, 300000, 1 << 20})
        for (std::size_t dist : {0, 8, 16, 63, 64})
            for (int via = 0; via < 2; ++via) {
                std::byte* const dst = base + span + 4096 + dist;
                std::memset(dst - guard, 0xEE, n + 2 * guard);
                std::memcpy(want.data(), dst - guard, n + 2 * guard);
                std::memcpy(want.data() + guard, src, n);
                if (via == 0) ch4lite::util::copy_bytes(dst, src, n);
                else ch4lite::util::bulk_copy(dst, src, n);
                ASSERT_TRUE(std::equal(dst - guard, dst + n + guard, want.begin()))
                    << (via ? "bulk_copy" : "copy_bytes") << " n " << n << " distance " << dist;
            }
}
