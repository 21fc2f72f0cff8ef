// SPDX-License-Identifier: MIT
#include <gtest/gtest.h>

#include <mpi.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <vector>

#include "device/group.hpp"

using namespace ch4lite::dev;
using list = std::vector<int>;

namespace {

list lpids(const group& g) {
    list l;
    for (int r = 0; r < g.size(); ++r) l.push_back(g.lpid(r));
    return l;
}
bool has(const list& l, int x) { return std::find(l.begin(), l.end(), x) != l.end(); }
int index_of(const list& l, int x) {
    auto it = std::find(l.begin(), l.end(), x);
    return it == l.end() ? -1 : static_cast<int>(it - l.begin());
}

// A random group of `world` processes: k distinct lpids in random order.
list random_list(std::mt19937& rng, int world, int k) {
    list all(static_cast<std::size_t>(world));
    std::iota(all.begin(), all.end(), 0);
    std::shuffle(all.begin(), all.end(), rng);
    all.resize(static_cast<std::size_t>(k));
    return all;
}

TEST(Group, SetOperationsMatchTheReference) {
    std::mt19937 rng(11);
    for (int iter = 0; iter < 300; ++iter) {
        const int world = 1 + static_cast<int>(rng() % 40);
        const int me = static_cast<int>(rng() % world);
        const list la = random_list(rng, world, static_cast<int>(rng() % (world + 1)));
        const list lb = random_list(rng, world, static_cast<int>(rng() % (world + 1)));
        const group a = group::from_lpids(la, me), b = group::from_lpids(lb, me);
        ASSERT_EQ(a.my_rank(), index_of(la, me));
        list u = la, in, diff;
        for (int x : lb)
            if (!has(la, x)) u.push_back(x);
        for (int x : la) (has(lb, x) ? in : diff).push_back(x);
        const group gu = group_union(a, b), gi = group_intersection(a, b),
                    gd = group_difference(a, b);
        ASSERT_EQ(lpids(gu), u);
        ASSERT_EQ(lpids(gi), in);
        ASSERT_EQ(lpids(gd), diff);
        EXPECT_EQ(gu.my_rank(), index_of(u, me));
        EXPECT_EQ(gi.my_rank(), index_of(in, me));
        // compare
        list sa = la, sb = lb;
        std::sort(sa.begin(), sa.end());
        std::sort(sb.begin(), sb.end());
        const int want = la == lb ? MPI_IDENT : sa == sb ? MPI_SIMILAR : MPI_UNEQUAL;
        EXPECT_EQ(group_compare(a, b), want);
        list shuffled = la;
        std::shuffle(shuffled.begin(), shuffled.end(), rng);
        EXPECT_EQ(group_compare(a, group::from_lpids(shuffled, me)),
                  shuffled == la ? MPI_IDENT : MPI_SIMILAR);
        // translate every rank of a into b
        list ranks(la.size()), out(la.size());
        std::iota(ranks.begin(), ranks.end(), 0);
        group_translate(a, ranks.data(), static_cast<int>(ranks.size()), b, out.data());
        for (std::size_t i = 0; i < la.size(); ++i) ASSERT_EQ(out[i], index_of(lb, la[i]));
    }
}

TEST(Group, InclExclAndRanges) {
    std::mt19937 rng(5);
    for (int iter = 0; iter < 200; ++iter) {
        const int world = 1 + static_cast<int>(rng() % 50);
        const list lg = random_list(rng, world, world);
        const group g = group::from_lpids(lg, static_cast<int>(rng() % world));
        list pick = random_list(rng, world, static_cast<int>(rng() % (world + 1)));
        list inc, exc;
        for (int r : pick) inc.push_back(lg[r]);
        for (int r = 0; r < world; ++r)
            if (!has(pick, r)) exc.push_back(lg[r]);
        ASSERT_EQ(lpids(group_incl(g, pick.data(), static_cast<int>(pick.size()))), inc);
        ASSERT_EQ(lpids(group_excl(g, pick.data(), static_cast<int>(pick.size()))), exc);
        // One triplet in each direction, plus a single rank.
        const int first = static_cast<int>(rng() % world), last = static_cast<int>(rng() % world);
        const int stride = (first <= last ? 1 : -1) * (1 + static_cast<int>(rng() % 3));
        int ranges[2][3] = {{first, last, stride}, {0, 0, 1}};
        list rl;
        for (int r = first; stride > 0 ? r <= last : r >= last; r += stride) rl.push_back(r);
        const int nr = has(rl, 0) ? 1 : 2;  // ranks must stay distinct
        if (nr == 2) rl.push_back(0);
        list rinc, rexc;
        for (int r : rl) rinc.push_back(lg[r]);
        for (int r = 0; r < world; ++r)
            if (!has(rl, r)) rexc.push_back(lg[r]);
        ASSERT_EQ(lpids(group_range_incl(g, ranges, nr)), rinc);
        ASSERT_EQ(lpids(group_range_excl(g, ranges, nr)), rexc);
    }
}

TEST(Group, RangeLength) {
    EXPECT_EQ(range_length(0, 9, 1), 10);
    EXPECT_EQ(range_length(0, 9, 4), 3);
    EXPECT_EQ(range_length(9, 0, -3), 4);
    EXPECT_EQ(range_length(3, 3, 7), 1);
    EXPECT_EQ(range_length(3, 3, -7), 1);
    EXPECT_EQ(range_length(0, 9, 0), -1);
    EXPECT_EQ(range_length(9, 0, 1), -1);
    EXPECT_EQ(range_length(0, 9, -1), -1);
}

TEST(Group, SplitOrdersByKeyThenParentRank) {
    const list parent{10, 11, 12, 13, 14, 15};
    const int colors[] = {1, 0, 1, MPI_UNDEFINED, 1, 0};
    const int keys[] = {5, 0, 5, 0, -1, 0};
    const group g10 = group_split(group::from_lpids(parent, 10), colors, keys, MPI_UNDEFINED);
    EXPECT_EQ(lpids(g10), (list{14, 10, 12}));
    EXPECT_EQ(g10.my_rank(), 1);
    const group g15 = group_split(group::from_lpids(parent, 15), colors, keys, MPI_UNDEFINED);
    EXPECT_EQ(lpids(g15), (list{11, 15}));
    EXPECT_EQ(g15.my_rank(), 1);
    const group g13 = group_split(group::from_lpids(parent, 13), colors, keys, MPI_UNDEFINED);
    EXPECT_EQ(g13.size(), 0);
    EXPECT_EQ(g13.my_rank(), -1);
}

// ---- a simulated world of a million ranks (no processes) ----
constexpr int world = 1000000;

struct MillionRanks : ::testing::Test {
    // Checks size, lookups of a sample of ranks, inverse lookups and my rank
    // against the expected lpid formula, and O(1) memory.
    template <class F>
    void expect_regular(const group& g, int n, F lpid_of, const char* kind) {
        ASSERT_EQ(g.size(), n);
        EXPECT_STREQ(g.map().kind_name(), kind);
        EXPECT_EQ(g.map().heap_bytes(), 0u) << "a regular map must not allocate";
        for (int r = 0; r < n; r += 997) ASSERT_EQ(g.lpid(r), lpid_of(r)) << r;
        ASSERT_EQ(g.lpid(n - 1), lpid_of(n - 1));
        for (int r = 0; r < n; r += 1009) ASSERT_EQ(g.rank_of(lpid_of(r)), r);
        const int me = g.me();
        const int my = g.my_rank();
        if (my >= 0) {
            EXPECT_EQ(g.lpid(my), me);
        }
    }
};

TEST_F(MillionRanks, RegularGroupsAreConstantMemory) {
    const int me = 123457;  // odd
    const group w(rank_map::direct(world), me);
    expect_regular(w, world, [](int r) { return r; }, "direct");
    EXPECT_EQ(w.my_rank(), me);

    int half[1][3] = {{world / 2, world - 1, 1}};
    expect_regular(group_range_incl(w, half, 1), world / 2, [](int r) { return world / 2 + r; },
                   "offset");
    int odds[1][3] = {{1, world - 1, 2}};
    const group godd = group_range_incl(w, odds, 1);
    expect_regular(godd, world / 2, [](int r) { return 1 + 2 * r; }, "stride");
    EXPECT_EQ(godd.my_rank(), (me - 1) / 2);
    int down[1][3] = {{world - 1, 0, -3}};
    expect_regular(group_range_incl(w, down, 1), (world + 2) / 3,
                   [](int r) { return world - 1 - 3 * r; }, "stride");
    // 4 of every 10 ranks: a stride_block map, and its complement.
    std::vector<int> ranges;
    int blocks[1][3] = {{0, world - 1, 10}};
    const group starts = group_range_incl(w, blocks, 1);
    expect_regular(starts, world / 10, [](int r) { return 10 * r; }, "stride");
    std::vector<int> excl;
    for (int r = 0; r < world; ++r)
        if (r % 10 >= 4) excl.push_back(r);
    const group blk = group_excl(w, excl.data(), static_cast<int>(excl.size()));
    expect_regular(blk, world / 10 * 4, [](int r) { return (r / 4) * 10 + r % 4; },
                   "stride_block");
    // Set operations on regular groups that give regular results.
    int evens[1][3] = {{0, world - 2, 2}};
    const group geven = group_range_incl(w, evens, 1);
    const group both = group_union(geven, godd);  // evens then odds
    EXPECT_EQ(both.size(), world);
    EXPECT_EQ(both.lpid(world / 2), 1);
    EXPECT_STREQ(both.map().kind_name(), "lut");  // two interleaved strides: irregular
    expect_regular(group_difference(w, godd), world / 2, [](int r) { return 2 * r; }, "stride");
    expect_regular(group_intersection(w, geven), world / 2, [](int r) { return 2 * r; }, "stride");
    EXPECT_EQ(group_compare(group_intersection(w, geven), geven), MPI_IDENT);
    EXPECT_EQ(group_compare(both, w), MPI_SIMILAR);
    EXPECT_EQ(group_compare(geven, godd), MPI_UNEQUAL);
    // Translate a few ranks of the odd group to the world and back.
    const int rs[] = {0, 1, world / 2 - 1};
    int out[3];
    group_translate(godd, rs, 3, w, out);
    EXPECT_EQ(out[0], 1);
    EXPECT_EQ(out[2], world - 1);
    group_translate(w, out, 3, godd, out);
    EXPECT_EQ(out[1], 1);
}

TEST_F(MillionRanks, CommSplitIntoStridedHalves) {
    // MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank): every process's view.
    std::vector<int> colors(world), keys(world), rev(world);
    for (int r = 0; r < world; ++r) {
        colors[r] = r % 2;
        keys[r] = r;
        rev[r] = world - r;  // reverse order within each half
    }
    for (int me : {0, 1, 2, 499999, 500000, 999998, 999999}) {
        SCOPED_TRACE(me);
        const group w(rank_map::direct(world), me);
        const group half = group_split(w, colors.data(), keys.data(), MPI_UNDEFINED);
        const int c = me % 2;
        expect_regular(half, world / 2, [c](int r) { return c + 2 * r; }, "stride");
        EXPECT_EQ(half.my_rank(), me / 2);
        const group back = group_split(w, colors.data(), rev.data(), MPI_UNDEFINED);
        const int top = world - 2 + c;
        expect_regular(back, world / 2, [top](int r) { return top - 2 * r; }, "stride");
        EXPECT_EQ(back.my_rank(), (top - me) / 2);
        // Splitting the half again (rank % 2 of the half) gives stride 4.
        std::vector<int> c2(world / 2), k2(world / 2, 0);
        for (int r = 0; r < world / 2; ++r) c2[r] = r % 2;
        const group quarter = group_split(half, c2.data(), k2.data(), MPI_UNDEFINED);
        const int q0 = c + 2 * ((me / 2) % 2);
        expect_regular(quarter, world / 4, [q0](int r) { return q0 + 4 * r; }, "stride");
    }
}

TEST_F(MillionRanks, IrregularSplitUsesOneSharedTable) {
    std::vector<int> colors(world, 0), keys(world);
    for (int r = 0; r < world; ++r) keys[r] = static_cast<int>((int64_t{r} * 7919) % world);  // a permutation
    const group w(rank_map::direct(world), 42);
    const group g = group_split(w, colors.data(), keys.data(), MPI_UNDEFINED);
    EXPECT_STREQ(g.map().kind_name(), "lut");
    EXPECT_LE(g.map().heap_bytes(), world * sizeof(int) + 64);
    const group dup = g;  // a dup shares the table
    EXPECT_EQ(g.map().lut_holders(), 2);
    EXPECT_EQ(dup.lpid(keys[42]), 42);  // keys are distinct: new rank = key
    EXPECT_EQ(dup.my_rank(), keys[42]);
    EXPECT_EQ(dup.rank_of(7), keys[7]);
}

}  // namespace
