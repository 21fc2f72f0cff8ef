// SPDX-License-Identifier: MIT
// MPICH's PMI_process_mapping format: parsing (incl. wrap-around and
// malformed input) and what mpiexec publishes for -ppn.
#include <gtest/gtest.h>

#include "util/pmi_wire.hpp"

using ch4lite::util::make_process_mapping;
using ch4lite::util::parse_process_mapping;

namespace {
std::vector<int> nodes(const char* map, int size, int expect_nodes) {
    std::vector<int> n;
    EXPECT_EQ(parse_process_mapping(map, size, n), expect_nodes) << map;
    return n;
}
}  // namespace

TEST(ProcessMapping, OneNode) { EXPECT_EQ(nodes("(vector,(0,1,4))", 4, 1), (std::vector<int>{0, 0, 0, 0})); }

TEST(ProcessMapping, Blocked) {
    EXPECT_EQ(nodes("(vector,(0,2,2))", 4, 2), (std::vector<int>{0, 0, 1, 1}));
    EXPECT_EQ(nodes("(vector,(0,2,2))", 3, 2), (std::vector<int>{0, 0, 1}));
}

TEST(ProcessMapping, RoundRobinWrapsAround) {
    EXPECT_EQ(nodes("(vector,(0,2,1))", 5, 2), (std::vector<int>{0, 1, 0, 1, 0}));
}

TEST(ProcessMapping, SeveralBlocksAndSparseIds) {
    EXPECT_EQ(nodes("(vector,(0,1,3),(1,1,1))", 4, 2), (std::vector<int>{0, 0, 0, 1}));
    EXPECT_EQ(nodes("(vector,(7,2,1),(3,1,2))", 4, 3), (std::vector<int>{0, 1, 2, 2}));
}

TEST(ProcessMapping, RejectsMalformed) {
    std::vector<int> n;
    for (const char* bad : {"", "(vector)", "(vector,)", "(vector,(0,1))", "(vector,(0,1,2)",
                            "(vector,(a,1,2))", "(vector,(0,1,2))x", "(vector,(0,0,0))",
                            "(vector,(-1,1,2))", "vector,(0,1,2)", "(vector,(0,1,99999999999))",
                            "(vector, (0,1,2))"})
        EXPECT_EQ(parse_process_mapping(bad, 4, n), -1) << bad;
    EXPECT_EQ(parse_process_mapping("(vector,(0,1,2))", 0, n), -1);
}

TEST(ProcessMapping, WhatMpiexecPublishes) {
    EXPECT_EQ(make_process_mapping(4, 4), "(vector,(0,1,4))");
    EXPECT_EQ(make_process_mapping(4, 2), "(vector,(0,2,2))");
    EXPECT_EQ(make_process_mapping(5, 2), "(vector,(0,3,2))");
    EXPECT_EQ(make_process_mapping(3, 0), "(vector,(0,1,3))");
    EXPECT_EQ(nodes(make_process_mapping(5, 2).c_str(), 5, 3), (std::vector<int>{0, 0, 1, 1, 2}));
}
