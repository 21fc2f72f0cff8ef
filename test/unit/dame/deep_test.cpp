// SPDX-License-Identifier: MIT
// Types nested a million levels deep. Lowering once recursed per level and
// overflowed the stack at ~65 000 contiguous or ~34 000 struct levels
// (~20 000 under ASan); now every walk of DAME is iterative, and such a type
// is built, committed, moved, counted, converted to external32 and released
// like any other. DAME_DEEP_LEVELS=n changes the million (and the levels of
// the per-constructor chains, a fiftieth of it).
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "dame/external32.hpp"
#include "helpers.hpp"
#include "oracle.hpp"

using namespace dame_test;

namespace {

int64_t million() {
    const char* e = std::getenv("DAME_DEEP_LEVELS");
    const int64_t n = e ? std::atoll(e) : 0;
    return n > 0 ? n : 1000000;
}

type* int_t() { return predefined_type(0x209); }   // MPI_INT
type* long_t() { return predefined_type(0x20a); }  // MPI_LONG (4 bytes in external32)

// One level over prev: a new type with one reference.
using level_fn = status (*)(type* prev, int64_t level, type** out);

status contig1(type* p, int64_t, type** o) { return make_contiguous(1, p, o); }
status vector1(type* p, int64_t, type** o) { return make_vector(1, 1, 1, false, p, o); }
status hvector1(type* p, int64_t, type** o) { return make_vector(1, 1, 0, true, p, o); }
status indexed1(type* p, int64_t, type** o) {
    const int64_t b[] = {1}, d[] = {0};
    return make_indexed(1, b, d, false, p, o);
}
// A second, empty block: normalization has to drop it at every level.
status hindexed_empty(type* p, int64_t, type** o) {
    const int64_t b[] = {1, 0}, d[] = {0, 8};
    return make_indexed(2, b, d, true, p, o);
}
status block1(type* p, int64_t, type** o) {
    const int64_t d[] = {0};
    return make_indexed_block(1, 1, d, false, p, o);
}
status struct1(type* p, int64_t, type** o) {
    const int64_t b[] = {1}, d[] = {0};
    type* k[] = {p};
    return make_struct(1, b, d, k, o);
}
// The level below twice, once empty: 2^n paths through n levels, which
// lowering must not follow (it did: an empty field was lowered anyway).
status struct_shared(type* p, int64_t, type** o) {
    const int64_t b[] = {1, 0}, d[] = {0, 8};
    type* k[] = {p, p};
    return make_struct(2, b, d, k, o);
}
status resized_same(type* p, int64_t, type** o) { return make_resized(p, p->lb(), p->extent(), o); }
status dup1(type* p, int64_t, type** o) { return make_dup(p, o); }
status subarray1(type* p, int64_t, type** o) {
    const int64_t s[] = {1}, sub[] = {1}, st[] = {0};
    return make_subarray(1, s, sub, st, true, p, o);
}
status darray1(type* p, int64_t, type** o) {
    const int64_t g[] = {1}, a[] = {darg_default}, ps[] = {1};
    const distrib d[] = {distrib::cyclic};
    return make_darray(1, 0, 1, g, d, a, ps, true, p, o);
}
const level_fn every[] = {contig1,   vector1, hvector1,     indexed1, hindexed_empty, block1, struct1,
                          struct_shared, resized_same, dup1, subarray1, darray1};
status mixed(type* p, int64_t i, type** o) { return every[i % std::size(every)](p, i, o); }

// n levels of f over base. Each level also records the one below as the
// type the user passed (as the MPI constructors do): two references per
// level for release() to drop.
type_ref chain(int64_t n, level_fn f, type* base) {
    type* cur = base;
    cur->retain();
    for (int64_t i = 0; i < n; ++i) {
        type* next = nullptr;
        const status s = f(cur, i, &next);
        if (s != status::ok) {
            ADD_FAILURE() << "level " << i << ": " << ch4lite::to_string(s);
            cur->release();
            return type_ref();
        }
        next->set_user_types(&cur, 1);
        cur->release();
        cur = next;
    }
    return type_ref(cur);
}

// What the deep type t must do: commit to a shallow program, and move,
// count and convert exactly as the oracle's type map says. Its elements are
// of one basic type; ext_elem: their external32 size, 4 (MPI_INT, MPI_LONG:
// then values that fit in 32 bits are converted and back), or 0 to skip.
void check(type& t, int ext_elem = 4) {
    ASSERT_EQ(t.commit(), status::ok);
    EXPECT_LE(t.prog()->depth(), 2);
    // The oracle walks the type once; more instances are that map shifted
    // (a walk of a million levels is a million cache misses).
    const int64_t count = 3;
    std::vector<elem> map = typemap(t, 1);
    const size_t one = map.size();
    for (int64_t c = 1; c < count; ++c)
        for (size_t i = 0; i < one; ++i) map.push_back({map[i].disp + c * t.extent(), map[i].len});
    ASSERT_EQ(static_cast<int64_t>(map.size()), count * t.elements());
    int64_t lo = 0, hi = 1;
    for (const elem& e : map) lo = std::min(lo, e.disp), hi = std::max(hi, e.disp + e.len);
    std::vector<char> mem(static_cast<size_t>(hi - lo) + 16);
    for (size_t i = 0; i < mem.size(); ++i) mem[i] = static_cast<char>(i * 37 + 11);
    char* buf = mem.data() + (8 - lo);
    const std::vector<char> want = oracle_pack(map, buf);
    std::vector<char> got(want.size());
    pack(t, buf, count, got.data());
    EXPECT_EQ(got, want);
    std::vector<char> back(mem.size(), 0);
    unpack(t, back.data() + (8 - lo), count, want.data());
    EXPECT_EQ(oracle_pack(map, back.data() + (8 - lo)), want);
    const std::vector<elem> segs = segments(map);
    EXPECT_EQ(iov_count(t, count), static_cast<int64_t>(segs.size()));
    // Element counts: every element is one basic type of the same size.
    const int64_t per = t.size() / t.elements(), total = count * t.size();
    EXPECT_EQ(elements_in(t, total - 1), (total - 1) / per);
    EXPECT_EQ(elements_in(t, t.size() + per), count > 1 ? t.elements() + 1 : 0);
    EXPECT_EQ(bytes_for_elements(t, count * t.elements() - 1), total - per);
    // external32: MPI_INT keeps 4 bytes, MPI_LONG becomes 4 (the walk of
    // the size and of the move: kinds that may narrow).
    int64_t esize = 0;
    ASSERT_EQ(ext32_size(t, &esize), status::ok);
    if (ext_elem == 0) return;
    EXPECT_EQ(esize, t.elements() * ext_elem);
    std::vector<char> small_values(mem.size(), 0);  // longs that fit in 32 bits
    for (const elem& e : map) small_values[static_cast<size_t>(e.disp + (8 - lo))] = 7;
    std::vector<char> ext(static_cast<size_t>(count * esize));
    ASSERT_EQ(ext32_pack(t, small_values.data() + (8 - lo), count, ext.data(), nullptr), status::ok);
    for (int64_t i = 0; i < count * t.elements(); ++i) EXPECT_EQ(ext[static_cast<size_t>(i * 4 + 3)], 7) << i;
    std::vector<char> round(mem.size(), 0);
    ASSERT_EQ(ext32_unpack(t, round.data() + (8 - lo), count, ext.data()), status::ok);
    EXPECT_EQ(round, small_values);
}

}  // namespace

TEST(DameDeep, AMillionLevelsOfEveryConstructorCommitAndMove) {
    // Every constructor in turn, a million levels (contiguous, vectors,
    // indexed with an empty block, block index, structs of one field and of
    // a shared empty one, resized, dup, subarray, darray).
    type_ref t = chain(million(), mixed, int_t());
    ASSERT_TRUE(t.get());
    EXPECT_EQ(t->size(), 4);
    EXPECT_EQ(normal_form(*t.get()), "leaf(4)");
    check(*t.get());
}

TEST(DameDeep, AMillionContiguousAndStructLevels) {
    // The two chains of the report, contiguous of contiguous and struct of
    // struct: commit, a move, and the release of the chain.
    for (level_fn f : {contig1, struct1}) {
        type_ref t = chain(million(), f, int_t());
        ASSERT_TRUE(t.get());
        ASSERT_EQ(t->commit(), status::ok);
        EXPECT_EQ(t->prog()->depth(), 1);
        const int v[2] = {12345, -7};
        int w[2] = {0, 0};
        pack(*t.get(), v, 2, w);
        EXPECT_EQ(std::memcmp(v, w, sizeof v), 0);
    }
}

TEST(DameDeep, EachConstructorChainCommitsAndMoves) {
    const int64_t n = std::max<int64_t>(million() / 50, 1);
    for (size_t k = 0; k < std::size(every); ++k) {
        SCOPED_TRACE(k);
        for (type* base : {int_t(), long_t()}) {
            type_ref t = chain(n, every[k], base);
            ASSERT_TRUE(t.get());
            check(*t.get());
        }
    }
}

TEST(DameDeep, DupChainSharesOneProgram) {
    // A dup of a committed type is committed with its child's program: a
    // chain of dups costs O(1) per level (it had lowered the whole chain at
    // every level: 40 000 levels took 64 s).
    type_ref base = committed("vector(3, 2, 5, double)");
    ASSERT_TRUE(base.get());
    type* cur = base.get();
    cur->retain();
    for (int64_t i = 0; i < million(); ++i) {
        type* next = nullptr;
        ASSERT_EQ(make_dup(cur, &next), status::ok);
        ASSERT_TRUE(next->committed());
        cur->release();
        cur = next;
    }
    type_ref top(cur);
    EXPECT_EQ(top->prog(), base->prog());
    // Resized to the same extent shares it too; to another extent it cannot.
    type* same = nullptr;
    type* other = nullptr;
    ASSERT_EQ(make_resized(top.get(), -8, top->extent(), &same), status::ok);
    ASSERT_EQ(make_resized(top.get(), 0, top->extent() + 8, &other), status::ok);
    type_ref s(same), o(other);
    ASSERT_EQ(s->commit(), status::ok);
    ASSERT_EQ(o->commit(), status::ok);
    EXPECT_EQ(s->prog(), base->prog());
    EXPECT_NE(o->prog(), base->prog());
    EXPECT_EQ(o->prog()->extent(), top->extent() + 8);
    check(*s.get(), 0);
}

TEST(DameDeep, IrWalksOfAMillionLevels) {
    // A hand-built IR a million vec(1) levels deep: its size, depth, copy,
    // comparison, text, normalization and destruction, all without recursion.
    const int64_t n = million();
    ir_ptr deep = make_leaf(4);
    for (int64_t i = 0; i < n; ++i) deep = make_vec(1, 4, std::move(deep));
    EXPECT_EQ(deep->size(), 4);
    EXPECT_EQ(depth_of(*deep), n + 1);
    ir_ptr copy = clone(*deep);
    EXPECT_TRUE(same(*deep, *copy));
    const std::string text = to_text(*copy);
    EXPECT_EQ(text.size(), static_cast<size_t>(n) * std::strlen("vec(1,+4,)") + std::strlen("leaf(4)"));
    EXPECT_EQ(text.substr(0, 20), "vec(1,+4,vec(1,+4,ve");
    normalize(copy);
    EXPECT_EQ(to_text(*copy), "leaf(4)");
    EXPECT_FALSE(same(*deep, *copy));
}

TEST(DameDeep, SharedStructFieldsAreSummedOnce) {
    // struct{T, T} nested 50 levels of MPI_LONG: 2^50 elements, 2^50 paths
    // to the bottom. The external32 size sums each type once (it walked
    // every path: a hang), and element counting follows one path.
    type* cur = long_t();
    for (int i = 0; i < 50; ++i) {
        const int64_t b[] = {1, 1}, d[] = {0, cur->extent()};
        type* k[] = {cur, cur};
        type* next = nullptr;
        ASSERT_EQ(make_struct(2, b, d, k, &next), status::ok);
        cur->release();
        cur = next;
    }
    type_ref t(cur);
    EXPECT_EQ(t->elements(), int64_t{1} << 50);
    int64_t esize = 0;
    ASSERT_EQ(ext32_size(*t.get(), &esize), status::ok);
    EXPECT_EQ(esize, int64_t{4} << 50);
    EXPECT_EQ(elements_in(*t.get(), (int64_t{8} << 49) + 12), (int64_t{1} << 49) + 1);
    EXPECT_EQ(bytes_for_elements(*t.get(), (int64_t{1} << 49) + 1), (int64_t{8} << 49) + 8);
}

TEST(DameDeep, TheDeepestNormalFormsCommit) {
    // Vectors of 2 whose strides never line up (one and a half extents
    // apart) stay one level each, until the extent overflows (about 45
    // levels), far under max_program_depth. The constructor that would
    // overflow refuses (status::range).
    type* cur = int_t();
    int levels = 0;
    for (;;) {
        type* next = nullptr;
        const status s = make_vector(2, 1, (cur->extent() + cur->extent() / 2) / 4 * 4 + 4, true, cur, &next);
        if (s != status::ok) {
            EXPECT_EQ(s, status::range);
            break;
        }
        cur->release();
        cur = next;
        ++levels;
    }
    type_ref t(cur);
    EXPECT_GE(levels, 40);
    ASSERT_EQ(t->commit(), status::ok);
    EXPECT_EQ(t->prog()->depth(), levels);
    EXPECT_LT(levels, max_program_depth);
    // The first and the last elements, through the partial-move seek.
    int64_t at = 0;
    iov_seg seg[2];
    const iov_result r = to_iov(*t.get(), nullptr, 1, t->size() - 8, seg, 2, 8);
    ASSERT_EQ(r.segs, 2);
    at = reinterpret_cast<intptr_t>(seg[1].base);
    EXPECT_EQ(at + 4, t->true_extent());
    // The same through the language: nest() parses the level again each time.
    type* p = nullptr;
    std::string err;
    EXPECT_EQ(parse_type("nest(100, int, contig(2, _))", &p, &err), status::range) << err;
    EXPECT_EQ(parse_type("nest(100, int, contig(1, _)", &p, &err), status::invalid);
    EXPECT_NE(err.find("expected ')'"), std::string::npos) << err;
    EXPECT_EQ(parse_type("contig(2, _)", &p, &err), status::invalid);
    EXPECT_NE(err.find("outside nest()"), std::string::npos) << err;
}
