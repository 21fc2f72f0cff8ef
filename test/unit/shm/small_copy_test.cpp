// SPDX-License-Identifier: MIT
// util::small_copy (shm cell payloads, fine-grained RMA): every length of
// every size class and past it, at every alignment, copies exactly n bytes
// and touches nothing around the destination.
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
