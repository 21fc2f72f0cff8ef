// SPDX-License-Identifier: MIT
// coll::turns (the staging segment's broadcast slots, coll/stage.cpp): turns
// are served in ticket order; a turn given up early is skipped when the
// turns reach it, also several in a row and out of order.
#include <gtest/gtest.h>

#include "coll/turns.hpp"

using ch4lite::coll::turns;

TEST(Turns, ServedInTicketOrder) {
    turns t;
    const uint64_t a = t.take(), b = t.take(), c = t.take();
    EXPECT_TRUE(t.mine(a));
    EXPECT_FALSE(t.mine(b));
    t.pass(a);
    EXPECT_TRUE(t.mine(b));
    t.pass(b);
    EXPECT_TRUE(t.mine(c));
    t.pass(c);
    EXPECT_EQ(t.served(), 3u);
    EXPECT_EQ(t.waiting_given_up(), 0u);
}

TEST(Turns, GivenUpEarlyIsSkipped) {
    turns t;
    const uint64_t a = t.take(), b = t.take(), c = t.take(), d = t.take();
    t.pass(c);  // given up before its turn (a failed schedule)
    t.pass(b);
    EXPECT_TRUE(t.mine(a));
    EXPECT_EQ(t.waiting_given_up(), 2u);
    t.pass(a);  // a ends: b and c were given up, d is next
    EXPECT_TRUE(t.mine(d));
    EXPECT_EQ(t.waiting_given_up(), 0u);
    t.pass(d);
    EXPECT_EQ(t.served(), 4u);
}

TEST(Turns, GivenUpAfterAGap) {
    turns t;
    uint64_t k[6];
    for (auto& x : k) x = t.take();
    t.pass(k[4]);  // not adjacent to the served turn: waits
    t.pass(k[0]);
    EXPECT_TRUE(t.mine(k[1]));
    t.pass(k[1]);
    t.pass(k[2]);
    EXPECT_TRUE(t.mine(k[3]));
    t.pass(k[3]);
    EXPECT_TRUE(t.mine(k[5]));
    EXPECT_EQ(t.waiting_given_up(), 0u);
}
