// SPDX-License-Identifier: MIT
// Normal forms: equivalent constructions give identical programs, and the
// rules of normalize.cpp / traff.cpp do what docs/dame-ir.md says.
#include "helpers.hpp"
#include "dame/lists.hpp"
#include "dame/traff.hpp"
#include "oracle.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

using namespace dame_test;

TEST(DameNormalize, EquivalentConstructionsAreIdentical) {
    // 48 contiguous bytes, built six ways.
    const char* same48[] = {
        "contig(6, double)", "vector(2, 3, 3, double)", "hvector(3, 2, 16, double)",
        "indexed([2,1,3], [0,2,3], double)", "struct([2,4], [0,16], [double, double])",
        "blkidx(2, [0,2,4], double)", "subarray([6], [6], [0], C, double)",
        "contig(12, float)", "hindexed([16,32], [0,16], byte)"};
    for (const char* t : same48) EXPECT_EQ(normal(t), "leaf(48)") << t;
    // A strided layout, built five ways.
    const char* strided[] = {"vector(4, 1, 2, double)", "hvector(4, 1, 16, double)",
                             "blkidx(1, [0,2,4,6], double)", "hindexed([1,1,1,1], [0,16,32,48], double)",
                             "struct([1,1,1,1], [0,16,32,48], [double,double,double,double])"};
    for (const char* t : strided) EXPECT_EQ(normal(t), "vec(4,+16,leaf(8))") << t;
    // Nested vectors whose strides line up merge into one.
    EXPECT_EQ(normal("hvector(3, 1, 64, vector(4, 1, 2, double))"), "vec(12,+16,leaf(8))");
    // A 2-D face: vector of vectors that do not line up stays two levels.
    EXPECT_EQ(normal("hvector(8, 1, 8192, vector(16, 1, 32, double))"),
              "vec(8,+8192,vec(16,+256,leaf(8)))");
    // Subarray == the vector nest it describes (displacement and extent aside).
    EXPECT_EQ(normal("subarray([4,5,6], [2,3,4], [1,1,2], C, int)"),
              normal("hblkidx(1, [152], hvector(2, 1, 120, hvector(3, 1, 24, contig(4, int))))"));
    EXPECT_EQ(normal("subarray([6,5], [4,3], [2,1], F, int)"),
              normal("hblkidx(1, [32], hvector(3, 1, 24, contig(4, int)))"));
}

TEST(DameNormalize, StructOfOneBasicTypeBecomesIndex) {
    // Particles {char; double x[3]; int} -> byte runs (one INDEXED FINAL).
    EXPECT_EQ(normal("struct([1,3,1], [0,8,40], [char, double, int])"),
              "idx(3,+1,<0,8,40><1,24,4>,leaf(1))");
    // Touching fields merge into one run.
    EXPECT_EQ(normal("struct([1,3,1], [0,8,32], [char, double, int])"), "idx(2,+1,<0,8><1,28>,leaf(1))");
    // Pair types are two pieces: MPI_SHORT_INT (short at 0, int at 4).
    EXPECT_EQ(normal("short_int"), "idx(2,+1,<0,4><2,4>,leaf(1))");
    EXPECT_EQ(normal("double_int"), "leaf(12)");
    EXPECT_EQ(normal("contig(3, double_int)"), "vec(3,+16,leaf(12))");
}

TEST(DameNormalize, LoweringAppliesTheVectorRulesAsItBuilds) {
    // Lowering builds vectors with normalization's first rules applied
    // (vec_node) and hoists displacements into structs and block indexes:
    // a subarray or a struct of them (WRF's halo, fields repeated) is in
    // normal form already, so commit makes few nodes and one sweep.
    const char* wrf =
        "struct([1,1,1,1], [0,4000,9000,20000], [subarray([34,24],[3,16],[1,1],C,float),"
        " subarray([34,24],[3,16],[1,1],C,float), subarray([34,65,24],[3,65,16],[1,0,1],C,float),"
        " subarray([2,34,65,24],[1,3,65,16],[1,1,0,1],C,float)])";
    for (const char* text : {"subarray([2,34,65,24],[1,3,65,16],[1,1,0,1],C,float)",
                             "vector(3, 16, 24, float)", "hvector(4, 2, 40, contig(3, int))",
                             "blkidx(2, [3, 9, 20], contig(2, double))", wrf}) {
        dame_test::type_ref t = dame_test::committed(text);
        ASSERT_TRUE(t.get());
        ch4lite::dame::ir_ptr n = ch4lite::dame::lower(*t.get());
        const std::string lowered = ch4lite::dame::to_text(*n);
        EXPECT_EQ(lowered, normal_form(*t.get())) << text;
    }
    EXPECT_EQ(normal("subarray([2,34,65,24],[1,3,65,16],[1,1,0,1],C,float)"), "@218404:vec(195,+96,leaf(64))");
    EXPECT_EQ(normal(wrf),
              "@100:struct(<0,4000,15144,238304>,vec(3,+96,leaf(64)),vec(3,+96,leaf(64)),"
              "vec(195,+96,leaf(64)),vec(195,+96,leaf(64)))");
}

TEST(DameNormalize, IndexListsPickTheCheaperForm) {
    // Regular index list -> vector; one arithmetic break -> TypePath finds the repeat.
    EXPECT_EQ(normal("blkidx(1, [0,4,8,12], int)"), "vec(4,+16,leaf(4))");
    // Three groups of 50 strided ints: TypePath finds vec(50) inside vec(3);
    // the DP keeps the two vectors (cheaper than a 150-entry list).
    std::string l = "blkidx(1, [";
    for (int g = 0; g < 3; ++g)
        for (int i = 0; i < 50; ++i) l += std::to_string(g * 1000 + 2 * i) + (g == 2 && i == 49 ? "], int)" : ",");
    EXPECT_EQ(normal(l.c_str()), "vec(3,+4000,vec(50,+8,leaf(4)))");
    // A list that is a vector nest becomes that nest, as the vectors would.
    EXPECT_EQ(normal("blkidx(1, [0,2,4,100,102,104,200,202,204], int)"),
              normal("hvector(3, 1, 400, vector(3, 1, 2, int))"));
    EXPECT_EQ(normal("hvector(3, 1, 400, vector(3, 1, 2, int))"), "vec(3,+400,vec(3,+8,leaf(4)))");
    // With an irregular level the DP decides: 3 x 3 flattens (one 9-entry list
    // beats a list of 3 over vectors of 3).
    EXPECT_EQ(normal("blkidx(1, [0,2,4,100,102,104,250,252,254], int)"),
              "blkidx(9,<0,8,16,400,408,416,1000,1008,1016>,leaf(4))");
    // A few touching blocks in a random list keep the fixed-length kernel.
    EXPECT_NE(normal("blkidx(1, [9,3,4,20,31,60,40,77], int)").find("blkidx(8,"), std::string::npos);
    // Mostly touching blocks become byte runs.
    EXPECT_EQ(normal("blkidx(1, [0,1,2,10,11,12,20,30], int)"),
              "idx(4,+1,<0,40,80,120><12,12,4,4>,leaf(1))");
    // ... and the same runs written as byte runs give the same program.
    EXPECT_EQ(normal("hindexed([12,12,4,4], [0,40,80,120], byte)"),
              normal("blkidx(1, [0,1,2,10,11,12,20,30], int)"));
}

TEST(DameTraff, TypePathOfThePapersExample) {
    // [2,4,6,8,9,11,13,15,17,1,3,5,7] is idx(3,<2,9,1>, vec(4,2)) in the paper
    // (there the leaf is con(1)); relative to the first index: <0,7,-1>.
    const int64_t x[] = {2, 4, 6, 8, 9, 11, 13, 15, 17, 1, 3, 5, 7};
    // 13 elements: the paper's example has blocks of length 4 and 5; TypePath
    // with a single count works on n = 12 (drop the 17 to make it regular).
    const int64_t y[] = {2, 4, 6, 8, 9, 11, 13, 15, 1, 3, 5, 7};
    path p = type_path(y, 12);
    ASSERT_EQ(p.size(), 2u);
    EXPECT_FALSE(p[0].is_vec);
    EXPECT_EQ(p[0].count, 3);
    EXPECT_EQ(p[0].disps, (pool_vec<int64_t>{0, 7, -1}));
    EXPECT_TRUE(p[1].is_vec);
    EXPECT_EQ(p[1].count, 4);
    EXPECT_EQ(p[1].stride, 2);
    path q = type_path(x, 13);  // 13 is prime: one index node
    ASSERT_EQ(q.size(), 1u);
    EXPECT_EQ(q[0].count, 13);
}

TEST(DameTraff, ShortestPeriodIsTheSmallestDivisorThatHolds) {
    // Against trying every c in 2..n-1, for periods that hold at multiples
    // of m (several divisors hold: the smallest must win) and for squares,
    // primes and their products; period(n) itself is never asked.
    for (int64_t m : {1, 2, 3, 5, 7, 12, 40, 97, 1024}) {
        for (int64_t n = 1; n <= 3000; ++n) {
            const auto holds = [&](int64_t c) {
                EXPECT_LT(c, n);
                return c % m == 0;
            };
            int64_t want = n;
            for (int64_t c = 2; c < n; ++c)
                if (n % c == 0 && holds(c)) {
                    want = c;
                    break;
                }
            ASSERT_EQ(shortest_period(n, holds), want) << "n " << n << " m " << m;
        }
    }
    EXPECT_EQ(shortest_period(int64_t{1} << 40, [](int64_t c) { return c == int64_t{1} << 39; }), int64_t{1} << 39);
    EXPECT_EQ(shortest_period(2147483647, [](int64_t) { return true; }), 2147483647);  // prime
}

namespace {
// The displacement sequence a path describes (relative to its first).
std::vector<int64_t> expand(const path& p) {
    std::vector<int64_t> cur{0};
    for (const piece& x : p) {
        std::vector<int64_t> next;
        for (int64_t a : cur)
            for (int64_t j = 0; j < x.count; ++j) next.push_back(a + (x.is_vec ? j * x.stride : x.disps[j]));
        cur = next;
    }
    return cur;
}
piece vec_piece(int64_t count, int64_t stride) { return {true, count, stride, {}}; }
piece idx_piece(std::initializer_list<int64_t> d) {
    return {false, static_cast<int64_t>(d.size()), 0, pool_vec<int64_t>(d)};
}
}  // namespace

TEST(DameTraff, TheWorkedExamplesOfSection2) {
    // [5,6,8,9,10,12,13,14,16] is idx(1,<5>, vec(3,4, idx(3,<0,1,3>, con(1)))):
    // relative to its first index, the path vec(3,4) idx(3,<0,1,3>).
    const int64_t x[] = {5, 6, 8, 9, 10, 12, 13, 14, 16};
    const path p = type_path(x, 9);
    EXPECT_EQ(p, (path{vec_piece(3, 4), idx_piece({0, 1, 3})}));
    // Its storage cost K_vec + K_idx + 3, against one idx(9): K_idx + 9.
    // With K_idx = 3, K_vec = 4 the path is the least-cost one (10 < 12);
    // with K_idx = K_vec = 10 one list is (19 < 23).
    const cost_model small = cost_model::paper_storage(4, 3), equal = cost_model::paper_storage(10, 10);
    EXPECT_EQ(path_cost(p, small), 10);
    EXPECT_EQ(optimal_path(p, small), p);
    const path one = optimal_path(p, equal);
    EXPECT_EQ(one, (path{idx_piece({0, 1, 3, 4, 5, 7, 8, 9, 11})}));
    EXPECT_EQ(path_cost(one, equal), 19);
    // An MPI vector over C of extent e, count c, stride s, blocklength b is
    // vec(c, s*e, vec(b, e, C)): C a resized int of extent 16, so that
    // nothing merges: vector(3, 2, 5, C) -> vec(3, 80, vec(2, 16, leaf(4))).
    EXPECT_EQ(normal("vector(3, 2, 5, resized(0, 16, int))"), "vec(3,+80,vec(2,+16,leaf(4)))");
}

TEST(DameTraff, Table1CostsOfCombiningTwoNodes) {
    // Each row of Table 1 under the storage model (K_idx = 3, K_vec = 4 and
    // K_idx = K_vec = 10): the two nodes, the combined node, and the DP
    // taking the cheaper. The leaf below (con) costs the same either way.
    for (const auto& [kvec, kidx] : {std::pair{4.0, 3.0}, std::pair{10.0, 10.0}}) {
        const cost_model m = cost_model::paper_storage(kvec, kidx);
        struct row {
            path nodes, combined;
            double cost_nodes, cost_combined;
        };
        const row rows[] = {
            // idx(c_k) idx(c_k+1): 2 K_idx + c_k + c_k+1 -> K_idx + c_k c_k+1
            {{idx_piece({0, 50}), idx_piece({0, 1, 3})},
             {idx_piece({0, 1, 3, 50, 51, 53})}, 2 * kidx + 5, kidx + 6},
            // idx(c_k) vec(c_k+1): K_idx + K_vec + c_k -> K_idx + c_k c_k+1
            {{idx_piece({0, 50}), vec_piece(3, 2)}, {idx_piece({0, 2, 4, 50, 52, 54})}, kidx + kvec + 2, kidx + 6},
            // vec(c_k) idx(c_k+1): K_vec + K_idx + c_k+1 -> K_idx + c_k c_k+1
            {{vec_piece(2, 50), idx_piece({0, 1, 3})}, {idx_piece({0, 1, 3, 50, 51, 53})}, kvec + kidx + 3, kidx + 6},
            // vec vec whose strides line up (c_k+1 d_k+1 = d_k): 2 K_vec -> K_vec
            {{vec_piece(2, 30), vec_piece(3, 10)}, {vec_piece(6, 10)}, 2 * kvec, kvec},
            // vec vec otherwise: 2 K_vec -> K_idx + c_k c_k+1
            {{vec_piece(2, 40), vec_piece(3, 10)}, {idx_piece({0, 10, 20, 40, 50, 60})}, 2 * kvec, kidx + 6},
        };
        for (const row& r : rows) {
            EXPECT_EQ(expand(r.nodes), expand(r.combined));
            EXPECT_EQ(path_cost(r.nodes, m), r.cost_nodes);
            EXPECT_EQ(path_cost(r.combined, m), r.cost_combined);
            const path best = optimal_path(r.nodes, m);
            EXPECT_EQ(path_cost(best, m), std::min(r.cost_nodes, r.cost_combined));
            EXPECT_EQ(best, r.cost_combined < r.cost_nodes ? r.combined : r.nodes);
        }
    }
}

TEST(DameTraff, Table2IsReproduced) {
    // Table 2: a partial path (column 1), the path with the longest vector
    // (column 2, what TypePath builds) and the split-and-combined path
    // (column 3), with their storage costs 2 K_idx + 6 + 2 K_vec,
    // 2 K_idx + 6 + K_vec and 2 K_idx + 12.
    const path col1{idx_piece({0, 100, 250}), vec_piece(2, 20), vec_piece(2, 10), idx_piece({0, 1, 3})};
    const path col2{idx_piece({0, 100, 250}), vec_piece(4, 10), idx_piece({0, 1, 3})};
    const path col3{idx_piece({0, 20, 100, 120, 250, 270}), idx_piece({0, 1, 3, 10, 11, 13})};
    EXPECT_EQ(expand(col1), expand(col2));
    EXPECT_EQ(expand(col3), expand(col2));
    EXPECT_EQ(type_path(expand(col2).data(), 36), col2);  // TypePath finds column 2
    // "With K_idx = 3, K_vec = 4": 20, 16, 18.
    const cost_model a = cost_model::paper_storage(4, 3);
    EXPECT_EQ(path_cost(col1, a), 20);
    EXPECT_EQ(path_cost(col2, a), 16);
    EXPECT_EQ(path_cost(col3, a), 18);
    // "With K_idx = K_vec = 10": 46, 36, 32.
    const cost_model b = cost_model::paper_storage(10, 10);
    EXPECT_EQ(path_cost(col1, b), 46);
    EXPECT_EQ(path_cost(col2, b), 36);
    EXPECT_EQ(path_cost(col3, b), 32);
    // "The dynamic programming step (applied to the path in Column 2) in
    // any case finds the least-cost path": column 2 itself under the first
    // costs, column 3 (the vector split at 2, each half combined with its
    // index neighbour) under the second. From column 1 too.
    for (const path& from : {col2, col1}) {
        EXPECT_EQ(optimal_path(from, a), col2);
        EXPECT_EQ(optimal_path(from, b), col3);
    }
    EXPECT_EQ(path_cost(optimal_path(col2, a), a), 16);
    EXPECT_EQ(path_cost(optimal_path(col2, b), b), 32);
}

TEST(DameTraff, ProcessingCostsOfSection4) {
    // cost(T_k) = c_0 ... c_k-1 (K_T + c_k C_T): column 2 costs
    // (K + 3) + 3 (K + 4) + 12 (K + 3) with K = 4, C = 1, i.e. 115; paths
    // "tend to collapse into single nodes": the DP gives one idx(36), 40.
    const cost_model m = cost_model::paper_processing(4, 1, 4, 1);
    const path col2{idx_piece({0, 100, 250}), vec_piece(4, 10), idx_piece({0, 1, 3})};
    EXPECT_EQ(path_cost(col2, m), 115);
    const path best = optimal_path(col2, m);
    ASSERT_EQ(best.size(), 1u);
    EXPECT_FALSE(best[0].is_vec);
    EXPECT_EQ(best[0].count, 36);
    EXPECT_EQ(path_cost(best, m), 40);
    EXPECT_EQ(expand(best), expand(col2));
    // The cost of a node does not depend on the grouping above it, which
    // keeps the DP exact: idempotent on its result.
    EXPECT_EQ(optimal_path(best, m), best);
}

TEST(DameTraff, CommitKeepsItsTunedModel) {
    // Commit does not use the paper's constants: the default model is the
    // processing model (K = 8 per visit, 1 per vector copy, 1.5 per index
    // copy) plus a word per stored displacement, tuned on the DDTBench
    // layouts. On column 2 it flattens to one 36-entry list (98 against
    // 131 for column 3 and 204.5 for column 2), where the paper's storage
    // model keeps column 2 or column 3.
    const cost_model tuned{};
    const path col2{idx_piece({0, 100, 250}), vec_piece(4, 10), idx_piece({0, 1, 3})};
    const path col3{idx_piece({0, 20, 100, 120, 250, 270}), idx_piece({0, 1, 3, 10, 11, 13})};
    EXPECT_EQ(path_cost(col2, tuned), 204.5);
    EXPECT_EQ(path_cost(col3, tuned), 131);
    const path best = optimal_path(col2);
    ASSERT_EQ(best.size(), 1u);
    EXPECT_EQ(best[0].count, 36);
    EXPECT_EQ(path_cost(best, tuned), 98);
    // The same index list committed as a type: one 36-entry block index.
    std::string l = "blkidx(1, [";
    const std::vector<int64_t> d = expand(col2);
    for (size_t i = 0; i < d.size(); ++i) l += std::to_string(2 * d[i]) + (i + 1 < d.size() ? "," : "], int)");  // no block touches the next
    EXPECT_EQ(normal(l.c_str()).substr(0, 10), "blkidx(36,");
}

TEST(DameTraff, OptimalPathPreservesSequencesOnRandomPaths) {
    gen g(seed(11));
    for (int k = 0; k < 500; ++k) {
        path p;
        const int d = static_cast<int>(g.range(1, 4));
        for (int i = 0; i < d; ++i) {
            if (g.coin(50)) {
                p.push_back({true, g.range(2, 6), g.range(1, 50) * 8, {}});
            } else {
                piece x{false, g.range(2, 5), 0, {0}};
                for (int64_t j = 1; j < x.count; ++j) x.disps.push_back(g.range(-500, 500));
                p.push_back(x);
            }
        }
        std::vector<int64_t> a{0}, b{0};
        auto expand = [](const path& q, std::vector<int64_t>& cur) {
            for (const piece& x : q) {
                std::vector<int64_t> next;
                for (int64_t v : cur)
                    for (int64_t j = 0; j < x.count; ++j) next.push_back(v + (x.is_vec ? j * x.stride : x.disps[j]));
                cur = next;
            }
        };
        const path best = optimal_path(p);
        expand(p, a);
        expand(best, b);
        ASSERT_EQ(a, b);
        ASSERT_LE(path_cost(best), path_cost(p) + 1e-9);
        // TypePath of the flattened sequence, then DP, gives the same optimum.
        const path tp = type_path(a.data(), static_cast<int64_t>(a.size()));
        std::vector<int64_t> c{0};
        expand(tp, c);
        for (int64_t& v : c) v += a[0];
        ASSERT_EQ(c, a);
    }
}

TEST(DameNormalize, VectorAndIndexPathsAreCanonical) {
    // A random chain of hvector / hindexed_block levels over a block of bytes
    // and the list of every byte it touches (an hindexed_block of MPI_BYTE)
    // describe the same type map: they must give the same program.
    gen g(seed(21));
    type* byte = predefined_type(0x247);
    int checked = 0;
    for (int k = 0; k < 400; ++k) {
        type* t = nullptr;
        ASSERT_EQ(make_contiguous(g.range(1, 12), byte, &t), status::ok);
        const int levels = static_cast<int>(g.range(1, 3));
        for (int l = 0; l < levels; ++l) {
            type* next = nullptr;
            const int64_t n = g.range(1, 5);
            if (g.coin(50)) {
                ASSERT_EQ(make_vector(n, 1, g.range(-3, 6) * 16 + g.range(0, 1) * 8, true, t, &next), status::ok);
            } else {
                std::vector<int64_t> d(n);
                for (int64_t& x : d) x = g.range(-40, 40) * 4;
                ASSERT_EQ(make_indexed_block(n, 1, d.data(), true, t, &next), status::ok);
            }
            t->release();
            t = next;
        }
        type_ref a(t);
        const std::vector<elem> map = typemap(*a.get(), 1);
        if (map.size() > 4000) continue;
        std::vector<int64_t> disps;
        for (const elem& e : map) disps.push_back(e.disp);
        type* f = nullptr;
        ASSERT_EQ(make_indexed_block(static_cast<int64_t>(disps.size()), 1, disps.data(), true, byte, &f),
                  status::ok);
        type_ref b(f);
        ASSERT_EQ(normal_form(*a.get()), normal_form(*b.get())) << "case " << k;
        ++checked;
    }
    EXPECT_GT(checked, 300);
}

TEST(DameIrPool, LiveBlocksNeverOverlapAcrossThreads) {
    // IR nodes, kid lists and displacement lists come from per-thread pools
    // (alloc.cpp): small classes and cached large blocks. Fill
    // every live block with its own byte; a block handed out twice, or a
    // class too small for the request, overwrites another's bytes. Blocks
    // freed on another thread join that thread's list.
    using ch4lite::dame::detail::pool_alloc;
    using ch4lite::dame::detail::pool_free;
    struct live {
        unsigned char* p;
        size_t n;
        unsigned char v;
    };
    auto churn = [](std::vector<live>& keep, unsigned seed) {
        std::vector<live> all;
        for (int round = 0; round < 4; ++round) {
            // The 16-byte classes, the classes of 129 bytes to a page (every
            // boundary and sizes between), then the large-block cache.
            std::vector<size_t> sizes;
            for (size_t n = 1; n < 4096; n += (n < 140 ? 1 : 29)) sizes.push_back(n);
            for (size_t k = 128; k < 4096; k *= 2)
                for (size_t n : {k + k / 2, k + k / 2 + 1, 2 * k, 2 * k + 1}) sizes.push_back(n);
            for (size_t n : {4095, 4096, 4097, 8191, 12248, 24496, 70001}) sizes.push_back(n);
            for (size_t n : sizes) {
                auto* p = static_cast<unsigned char*>(pool_alloc(n));
                const auto v = static_cast<unsigned char>(seed + all.size());
                std::memset(p, v, n);
                all.push_back({p, n, v});
            }
            for (size_t i = round % 2; i < all.size(); i += 2) {  // free half, keep half
                for (size_t b = 0; b < all[i].n; ++b) ASSERT_EQ(all[i].p[b], all[i].v);
                pool_free(all[i].p, all[i].n);
                all[i].p = nullptr;
            }
            std::erase_if(all, [](const live& l) { return !l.p; });
        }
        keep = std::move(all);
    };
    std::vector<live> a, b;
    std::thread t([&] { churn(a, 7); });
    churn(b, 101);
    t.join();
    for (auto* set : {&a, &b})
        for (const live& l : *set) {
            for (size_t i = 0; i < l.n; ++i) ASSERT_EQ(l.p[i], l.v);
            pool_free(l.p, l.n);  // a's blocks go to this thread's list
        }
    std::vector<live> c;
    churn(c, 55);  // reuses them
    for (const live& l : c) pool_free(l.p, l.n);
}

// A freed block of `first` bytes comes back for `same` bytes (the same pool
// class or whole pages) and not for `other`, while glibc, asked for `steal`
// bytes in between, would have handed out the block had the pool given it
// back. Returns the block given out for `same` (freed). The tests that use
// it skip where the pools keep nothing (sanitizer builds,
// CH4LITE_DAME_POOL=0): there is no reuse to check.
static void* expect_comes_back(size_t first, size_t steal, size_t same, size_t other) {
    using ch4lite::dame::detail::pool_alloc;
    using ch4lite::dame::detail::pool_free;
    void* a = pool_alloc(first);
    std::memset(a, 1, first);
    pool_free(a, first);
    void* s = std::malloc(steal);
    void* b = pool_alloc(same);
    void* c = pool_alloc(other);
    EXPECT_NE(s, a);
    EXPECT_EQ(b, a);
    EXPECT_NE(c, a);
    std::free(s);
    std::memset(b, 2, same);
    std::memset(c, 3, other);
    pool_free(b, same);
    pool_free(c, other);
    return b;
}

TEST(DameIrPool, MidSizeBlocksComeBackWithinTheirClass) {
    // Blocks of 129 bytes to a page have two classes per power of two (129-192,
    // 193-256, 257-384, ...): a freed 190-byte block (a type object is 256)
    // comes back for 130 bytes, which glibc would serve from another bin,
    // and not for 193, the next class.
    if (!ch4lite::dame::detail::pools_on()) GTEST_SKIP() << "the pools keep nothing here";
    expect_comes_back(190, 190, 130, 193);
}

TEST(DameIrPool, LargeBlocksComeBackForTheSameWholePages) {
    // A freed block of 4 KiB or more is kept and handed out again for a
    // request of the same size in whole pages (what commit asks for when it
    // builds the same type again): 20479 bytes are 5 pages, as 20000; after
    // that nothing is kept for 20000.
    if (!ch4lite::dame::detail::pools_on()) GTEST_SKIP() << "the pools keep nothing here";
    void* b = expect_comes_back(20000, 20480, 20479, 20000);
    using ch4lite::dame::detail::pool_alloc;
    using ch4lite::dame::detail::pool_free;
    void* d = pool_alloc(4096 * 7);  // another size: a block of its own
    EXPECT_NE(d, b);
    std::memset(d, 4, 4096 * 7);
    pool_free(d, 4096 * 7);
}

TEST(DameLists, MatchPlainLoopsAtEveryLength) {
    // lists.cpp's loops (vectorized in the x86-64-v3 build; the base build
    // runs under CH4LITE_DAME_ISA=base) against one-element-at-a-time
    // answers, at every length up to 70 (vector bodies and remainders), with
    // extremes of int32 and int64 and extents that are powers of two or not.
    namespace lists = ch4lite::dame::lists;
    uint64_t seed = 12345;
    auto next = [&] { return seed = seed * 6364136223846793005ull + 1442695040888963407ull; };
    for (size_t n = 1; n <= 70; ++n) {
        std::vector<int32_t> d32(n);
        std::vector<int64_t> d64(n), out(n);
        for (size_t i = 0; i < n; ++i) {
            d32[i] = static_cast<int32_t>(next() >> 32);
            d64[i] = (next() & 3) == 0 ? (i > 0 ? d64[i - 1] + 24 : 0) : static_cast<int64_t>(next() >> 2) - (int64_t{1} << 61);
        }
        if (n > 3) d32[n / 2] = INT32_MIN, d32[n - 1] = INT32_MAX, d64[1] = INT64_MIN / 2;
        int64_t lo = 0, hi = 0;
        lists::bounds(d32.data(), n, &lo, &hi);
        EXPECT_EQ(lo, *std::min_element(d32.begin(), d32.end())) << n;
        EXPECT_EQ(hi, *std::max_element(d32.begin(), d32.end())) << n;
        lists::bounds(d64.data(), n, &lo, &hi);
        EXPECT_EQ(lo, *std::min_element(d64.begin(), d64.end())) << n;
        EXPECT_EQ(hi, *std::max_element(d64.begin(), d64.end())) << n;
        int64_t steps = 0;
        for (size_t i = 1; i < n; ++i) steps += d64[i] - d64[i - 1] == 24;
        EXPECT_EQ(lists::count_steps(d64.data(), n, 24), steps) << n;
        for (int64_t e : {int64_t{1}, int64_t{8}, int64_t{12}, int64_t{-8}, int64_t{-3}, int64_t{1} << 31}) {
            lists::scale(out.data(), d32.data(), n, e);
            for (size_t i = 0; i < n; ++i) ASSERT_EQ(out[i], int64_t{d32[i]} * e) << n << " " << e;
            std::vector<int64_t> small(n);
            for (size_t i = 0; i < n; ++i) small[i] = d32[i] / 4;
            lists::scale(out.data(), small.data(), n, e);
            for (size_t i = 0; i < n; ++i) ASSERT_EQ(out[i], small[i] * e) << n << " " << e;
        }
        std::vector<int64_t> fit(d32.begin(), d32.end());
        std::vector<int32_t> narrowed(n);
        lists::narrow(narrowed.data(), fit.data(), n);
        EXPECT_EQ(narrowed, d32) << n;
    }
}

TEST(DameNormalize, OverlappingCopiesAreNotByteRuns) {
    // A resized int of extent 1: its copies overlap, so an index list of
    // them at stride 1 is not a list of byte runs. The byte-run rule once
    // took it for one and packed 1-byte blocks (size 5 of 16 bytes; found by
    // dt_random_args). Pack must match the type map element by element.
    const char* texts[] = {"indexed([1, 1, 2], [2, 1, 3], resized(1, 1, int))",
                           "indexed([1, 1, 1, 2, 0], [2, 1, 6, 3, 2147483647], resized(1, 1, int))",
                           "indexed([2, 1, 3], [0, 9, 4], resized(0, 2, double))"};
    for (const char* text : texts) {
        type_ref t = committed(text);
        EXPECT_EQ(normal(text).find("leaf(1)"), std::string::npos) << text << ": " << normal(text);
        const std::vector<elem> map = typemap(*t.get(), 1);
        std::vector<char> mem(64);
        for (size_t i = 0; i < mem.size(); ++i) mem[i] = static_cast<char>(i * 13 + 1);
        const std::vector<char> want = oracle_pack(map, mem.data() + 8);
        ASSERT_EQ(static_cast<int64_t>(want.size()), t.get()->size()) << text;
        std::vector<char> got(want.size());
        pack(*t.get(), mem.data() + 8, 1, got.data());
        EXPECT_EQ(got, want) << text;
    }
}

TEST(DameNormalize, ChainsDecideRunsAsTheirBlockListDoes) {
    // Chains and structs of chains against their byte lists. A vector nest
    // whose blocks continue each other across copies and the byte list of
    // the same type map must give one program (found by
    // VectorAndIndexPathsAreCanonical with DAME_PROPERTY_SEED=1, case 87).
    // Blocks at 0, 56, 64, 120, 128, 184, 192, 248: 3 of 8 continue the one
    // before (more than a quarter), so both are byte runs.
    const char* runs = "idx(5,+1,<0,56,120,184,248><8,16,16,16,8>,leaf(1))";
    EXPECT_EQ(normal("hvector(4, 1, 64, hvector(2, 1, 56, double))"), runs);
    EXPECT_EQ(normal("hindexed([8,16,16,16,8], [0,56,120,184,248], byte)"), runs);
    // ... also as the inner level of a vector whose copies do not touch.
    EXPECT_EQ(normal("hvector(5, 1, 24, hvector(4, 1, 64, hvector(2, 1, 56, double)))"),
              "vec(5,+24,idx(5,+1,<0,56,120,184,248><8,16,16,16,8>,leaf(1)))");
    // One touch in 8 blocks (a quarter or less): both stay the vector nest.
    const char* nest = "vec(2,+56,vec(4,+16,leaf(8)))";
    EXPECT_EQ(normal("hvector(2, 1, 56, hvector(4, 1, 16, double))"), nest);
    EXPECT_EQ(normal("hindexed([8,8,8,16,8,8,8], [0,16,32,48,72,88,104], byte)"), nest);
    // A block index over byte runs whose third copy continues the second
    // (132 + 12 = 144) is one list of runs, as its byte list is (seed 177).
    const char* merged = "idx(5,+1,<0,124,8,132,268><4,12,4,16,12>,leaf(1))";
    EXPECT_EQ(normal("hblkidx(1, [0,8,144], hindexed([4,12], [0,124], byte))"), merged);
    EXPECT_EQ(normal("hindexed([4,12,4,16,12], [0,124,8,132,268], byte)"), merged);
    EXPECT_EQ(normal("hblkidx(1, [0,8,145], hindexed([4,12], [0,124], byte))"),
              "blkidx(3,<0,8,145>,idx(2,+1,<0,124><4,12>,leaf(1)))");
    // A large vector nest is not listed out: 2^19 pairs whose second block
    // touches the next pair stay two nodes, not 2^19 + 1 runs.
    EXPECT_EQ(normal("hvector(524288, 1, 24, hvector(2, 1, 16, double))"),
              "vec(524288,+24,vec(2,+16,leaf(8)))");
    EXPECT_EQ(normal("hvector(128, 1, 24, hvector(2, 1, 16, double))").substr(0, 9), "idx(129,+");
    // An index list of strided copies (not byte runs) is listed out: its
    // blocks are decided as the byte list's are. Blocks of 3 and 2 shorts
    // 24 bytes apart, and blocks of 1 and 2 pairs of ints 48 bytes apart.
    EXPECT_EQ(normal("hindexed([3,2], [0,6], resized(0, 24, short))"), "blkidx(5,<0,24,48,6,30>,leaf(2))");
    EXPECT_EQ(normal("hindexed([2,2,2,2,2], [0,24,48,6,30], byte)"), "blkidx(5,<0,24,48,6,30>,leaf(2))");
    EXPECT_EQ(normal("hindexed([1,2], [0,6], resized(0, 48, hvector(2, 1, 16, int)))"),
              "blkidx(6,<0,16,6,22,54,70>,leaf(4))");
    EXPECT_EQ(normal("hindexed([4,4,4,4,4,4], [0,16,6,22,54,70], byte)"), "blkidx(6,<0,16,6,22,54,70>,leaf(4))");
    // A vector over a list that is itself two copies of a shorter list (seed
    // 1339): vec(3, 5184) vec(2, 2592) is vec(6, 2592), which the DP splits
    // at 2, as it does for the flat list of the 48 blocks.
    const char* nest3 =
        "hvector(3, 1, 5184, hblkidx(1, [0,864,1008,1152,1296,2160,2304,2448,2592,3456,3600,3744,3888,4752,4896,5040], contig(12, byte)))";
    const char* flat48 =
        "hblkidx(1, [0,864,1008,1152,1296,2160,2304,2448,2592,3456,3600,3744,3888,4752,4896,5040,5184,6048,6192,6336,6480,7344,7488,7632,7776,8640,8784,8928,9072,9936,10080,10224,10368,11232,11376,11520,11664,12528,12672,12816,12960,13824,13968,14112,14256,15120,15264,15408], contig(12, byte))";
    EXPECT_EQ(normal(nest3), normal(flat48));
    EXPECT_EQ(normal(flat48).substr(0, 25), "vec(2,+7776,blkidx(24,<0,");
    // A struct whose fields are chains is its list of runs: three 12-byte
    // blocks 16 apart and an int after them are 3 runs, the last 16 bytes.
    const char* three = "idx(3,+1,<0,16,32><12,12,16>,leaf(1))";
    EXPECT_EQ(normal("struct([1,1], [0,44], [hvector(3, 1, 16, contig(3, int)), int])"), three);
    EXPECT_EQ(normal("hindexed([12,12,16], [0,16,32], byte)"), three);
    // Fields in any order, one a list over a vector: runs at 64, 0 and 4.
    EXPECT_EQ(normal("struct([1,1], [64,0], [float, hindexed([1,1], [0,4], hvector(2, 1, 16, int))])"),
              normal("hindexed([4,4,4,4,4], [64,0,16,4,20], byte)"));
    // Over 256 blocks in all, a struct of block lists keeps one list per field.
    EXPECT_EQ(normal("struct([1,1], [0,4096], [hvector(200, 1, 16, int), hvector(57, 1, 16, double)])"),
              "struct(<0,4096>,vec(200,+16,leaf(4)),vec(57,+16,leaf(8)))");
    // The rewritten programs pack the type map.
    for (const char* text : {"struct([1,1], [64,0], [float, hindexed([1,1], [0,4], hvector(2, 1, 16, int))])",
                             "hvector(5, 1, 24, hvector(4, 1, 64, hvector(2, 1, 56, double)))",
                             "hblkidx(1, [0,8,144], hindexed([4,12], [0,124], byte))",
                             "hindexed([3,2], [0,6], resized(0, 24, short))",
                             "hindexed([1,2], [0,6], resized(0, 48, hvector(2, 1, 16, int)))"}) {
        type_ref t = committed(text);
        const std::vector<elem> map = typemap(*t.get(), 2);
        std::vector<char> mem(1024);
        for (size_t i = 0; i < mem.size(); ++i) mem[i] = static_cast<char>(i * 13 + 1);
        const std::vector<char> want = oracle_pack(map, mem.data());
        std::vector<char> got(want.size());
        pack(*t.get(), mem.data(), 2, got.data());
        EXPECT_EQ(got, want) << text;
    }
}

TEST(DameNormalize, RandomTreesMatchTheirByteList) {
    // Any random tree (every constructor, resized, negative displacements)
    // and the hindexed of bytes of its coalesced type map must give one
    // program. Overlapping maps have no byte list.
    // Found with DAME_PROPERTY_SEED sweeps: index lists of strided copies and
    // vector nests whose blocks continue across copies (the chain rules),
    // structs whose fields are not all leaves (the struct runs rule).
    gen g(seed(31));
    type* byte = predefined_type(0x247);
    int checked = 0;
    for (int k = 0; k < samples(3000); ++k) {
        type_ref a = g.make(static_cast<int>(g.range(1, 4)));
        if (a->size() == 0 || a->size() > 4096 || a->commit() != status::ok) continue;
        const std::vector<elem> map = typemap(*a.get(), 1);
        // Over 256 elements, the chain rules may keep a large nest whole.
        if (map.size() > 256 || overlapping(map)) continue;
        std::vector<int64_t> bl, d;
        for (const elem& e : segments(map)) bl.push_back(e.len), d.push_back(e.disp);
        type* f = nullptr;
        ASSERT_EQ(make_indexed(static_cast<int64_t>(bl.size()), bl.data(), d.data(), true, byte, &f), status::ok);
        type_ref b(f);
        ASSERT_EQ(b->commit(), status::ok);
        ASSERT_EQ(normal_form(*a.get()), normal_form(*b.get())) << "case " << k;
        ++checked;
    }
    EXPECT_GT(checked, 800);
}
