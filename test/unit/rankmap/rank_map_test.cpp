// SPDX-License-Identifier: MIT
#include <gtest/gtest.h>

#include <numeric>
#include <random>
#include <vector>

#include "device/rank_map.hpp"

using ch4lite::dev::rank_map;
using K = rank_map::kind;

namespace {

// Checks lpid() and rank_of() against the list, and rank_of() of non-members.
void check_map(const rank_map& m, const std::vector<int>& l, int world) {
    ASSERT_EQ(m.size(), static_cast<int>(l.size()));
    std::vector<int> rank(static_cast<std::size_t>(world), -1);
    for (std::size_t r = 0; r < l.size(); ++r) rank[l[r]] = static_cast<int>(r);
    for (std::size_t r = 0; r < l.size(); ++r) ASSERT_EQ(m.lpid(static_cast<int>(r)), l[r]) << r;
    for (int p = -3; p < world + 3; ++p)
        ASSERT_EQ(m.rank_of(p), p >= 0 && p < world ? rank[p] : -1) << "lpid " << p;
}

TEST(RankMap, DetectsEveryKind) {
    struct tc {
        std::vector<int> l;
        K k;
    };
    const std::vector<tc> cases = {
        {{0, 1, 2, 3, 4}, K::direct},
        {{3, 4, 5}, K::offset},
        {{7}, K::offset},
        {{0}, K::direct},
        {{1, 3, 5, 7}, K::stride},
        {{9, 6, 3, 0}, K::stride},           // negative stride
        {{4, 0}, K::stride},
        {{0, 1, 4, 5, 8, 9}, K::stride_block},
        {{2, 3, 4, 12, 13, 14, 22}, K::stride_block},  // partial last block
        {{0, 2, 3}, K::lut},
        {{5, 1, 3, 0}, K::lut},
        {{0, 1, 1000, 1001, 1002}, K::lut},   // unequal blocks
    };
    for (const auto& c : cases) {
        const rank_map m = rank_map::detect(c.l.data(), static_cast<int>(c.l.size()));
        EXPECT_EQ(m.map_kind(), c.k) << "first lpid " << c.l[0] << ", got " << m.kind_name();
        check_map(m, c.l, 1100);
        EXPECT_EQ(m.heap_bytes() == 0, c.k != K::lut);
    }
}

TEST(RankMap, EmptyAndDirect) {
    const rank_map e = rank_map::detect(nullptr, 0);
    EXPECT_EQ(e.size(), 0);
    EXPECT_EQ(e.rank_of(0), -1);
    const rank_map d = rank_map::direct(4);
    EXPECT_EQ(d.rank_of(3), 3);
    EXPECT_EQ(d.rank_of(4), -1);
}

TEST(RankMap, LargeStrideDoesNotOverflowDetection) {
    // The stride candidate times the rank exceeds int before the mismatch.
    std::vector<int> l{0, 1 << 30, 5, 6};
    const rank_map m = rank_map::detect(l.data(), 4);
    EXPECT_EQ(m.map_kind(), K::lut);
}

TEST(RankMap, MillionRankRegularMapsAreConstantMemory) {
    constexpr int world = 1000000;
    std::vector<int> l(world);
    std::iota(l.begin(), l.end(), 0);
    struct tc {
        const char* name;
        std::vector<int> l;
        K k;
    };
    std::vector<tc> cases;
    cases.push_back({"world", l, K::direct});
    cases.push_back({"upper half", std::vector<int>(l.begin() + world / 2, l.end()), K::offset});
    std::vector<int> even, odd_rev, blocks;
    for (int i = 0; i < world; i += 2) even.push_back(i);
    for (int i = world - 1; i > 0; i -= 2) odd_rev.push_back(i);
    for (int i = 0; i < world; ++i)
        if ((i / 16) % 4 == 1) blocks.push_back(i);  // 16 of every 64
    cases.push_back({"even", even, K::stride});
    cases.push_back({"odd reversed", odd_rev, K::stride});
    cases.push_back({"blocks", blocks, K::stride_block});
    for (const auto& c : cases) {
        SCOPED_TRACE(c.name);
        const rank_map m = rank_map::detect(c.l.data(), static_cast<int>(c.l.size()));
        EXPECT_EQ(m.map_kind(), c.k) << m.kind_name();
        EXPECT_EQ(m.heap_bytes(), 0u);
        EXPECT_LE(sizeof(m), 48u);
        for (std::size_t r = 0; r < c.l.size(); ++r)
            ASSERT_EQ(m.lpid(static_cast<int>(r)), c.l[r]) << r;
        // Inverse of every world rank, members and non-members.
        std::size_t found = 0;
        for (int p = 0; p < world; ++p) {
            const int r = m.rank_of(p);
            if (r >= 0) {
                ASSERT_EQ(c.l[static_cast<std::size_t>(r)], p);
                ++found;
            }
        }
        EXPECT_EQ(found, c.l.size());
    }
}

TEST(RankMap, LutIsSharedByCopiesAndHasAnInverse) {
    std::vector<int> l(1000);
    std::iota(l.begin(), l.end(), 0);
    std::shuffle(l.begin(), l.end(), std::mt19937(7));
    const rank_map m = rank_map::detect(l.data(), 1000);
    ASSERT_EQ(m.map_kind(), K::lut);
    EXPECT_EQ(m.lut_holders(), 1);
    const std::size_t bytes = m.heap_bytes();
    EXPECT_GE(bytes, 1000 * sizeof(int));
    {
        rank_map dup1 = m, dup2 = m;  // dups of a communicator share the table
        EXPECT_EQ(m.lut_holders(), 3);
        EXPECT_TRUE(dup1.same_order(m));
        check_map(dup2, l, 1000);  // builds the shared inverse once
    }
    EXPECT_EQ(m.lut_holders(), 1);
    EXPECT_GT(m.heap_bytes(), bytes);  // the inverse now lives with the table
    std::vector<int> l2 = l;
    std::swap(l2[0], l2[1]);
    EXPECT_FALSE(rank_map::detect(l2.data(), 1000).same_order(m));
    EXPECT_TRUE(rank_map::detect(l.data(), 1000).same_order(m));
}

TEST(RankMap, SameOrderOfRegularMapsIsExact) {
    std::vector<int> a{1, 3, 5}, b{1, 3, 5}, c{1, 3}, d{7};
    const rank_map ma = rank_map::detect(a.data(), 3), mb = rank_map::detect(b.data(), 3);
    EXPECT_TRUE(ma.same_order(mb));
    EXPECT_FALSE(ma.same_order(rank_map::detect(c.data(), 2)));
    EXPECT_TRUE(rank_map::detect(d.data(), 1).same_order(rank_map::detect(d.data(), 1)));
    std::vector<int> z{0};
    EXPECT_TRUE(rank_map::direct(1).same_order(rank_map::detect(z.data(), 1)));
}

}  // namespace
