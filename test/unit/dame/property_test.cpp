// SPDX-License-Identifier: MIT
// Randomized property tests over generated type trees, against the oracle.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>

#include "dame/dame.hpp"
#include "dame/external32.hpp"
#include "dame/ir.hpp"
#include "dame/program.hpp"
#include "gen.hpp"
#include "oracle.hpp"

using namespace dame_test;

namespace {

struct sample {
    type_ref t;
    int64_t count;
    std::vector<elem> map;
    int64_t lo, hi;  // byte span touched by the type map (relative to buf)
};

// A random committed type with a bounded type map, or false.
bool draw(gen& g, sample& s) {
    s.t = g.make(static_cast<int>(g.range(1, 5)));
    if (s.t->size() > (1 << 16) || s.t->extent() > (1 << 20) || s.t->extent() < -(1 << 20) ||
        s.t->true_extent() > (1 << 20))
        return false;
    if (s.t->commit() != status::ok) return false;
    s.count = g.range(1, 3);
    s.map = typemap(*s.t.get(), s.count);
    s.lo = 0, s.hi = 1;
    for (const elem& e : s.map) s.lo = std::min(s.lo, e.disp), s.hi = std::max(s.hi, e.disp + e.len);
    // A type's extent can be small while its true lb lies far away (an
    // hindexed displacement): keep the buffer the map spans small too.
    return s.hi - s.lo <= (1 << 22);
}

struct buffer {
    std::vector<char> mem;
    int64_t origin;
    buffer(const sample& s, uint8_t seed) : mem(s.hi - s.lo + 64), origin(-s.lo + 32) {
        for (size_t i = 0; i < mem.size(); ++i) mem[i] = static_cast<char>(i * 131 + seed);
    }
    char* buf() { return mem.data() + origin; }
};

const int n_samples = samples(3000);

}  // namespace

TEST(DameProperty, PackMatchesOracleAndBoundsAgree) {
    gen g(seed(1));
    int tested = 0;
    for (int k = 0; k < n_samples; ++k) {
        sample s;
        if (!draw(g, s)) continue;
        ++tested;
        buffer b(s, 7);
        const std::vector<char> want = oracle_pack(s.map, b.buf());
        ASSERT_EQ(static_cast<int64_t>(want.size()), s.count * s.t->size());
        std::vector<char> got(want.size() + 1, 'Z');
        pack(*s.t.get(), b.buf(), s.count, got.data());
        ASSERT_EQ(got.back(), 'Z') << "pack wrote past the stream";
        got.pop_back();
        ASSERT_EQ(got, want) << normal_form(*s.t.get());
        if (!s.map.empty() && s.count == 1) {
            int64_t tl = INT64_MAX, tu = INT64_MIN;
            for (const elem& e : s.map) tl = std::min(tl, e.disp), tu = std::max(tu, e.disp + e.len);
            if (s.t->size() > 0) {
                EXPECT_EQ(s.t->true_lb(), tl) << normal_form(*s.t.get());
                EXPECT_EQ(s.t->true_ub(), tu);
            }
        }
    }
    EXPECT_GT(tested, n_samples / 3);
}

TEST(DameProperty, UnpackRestoresAndTouchesOnlyTheTypeMap) {
    gen g(seed(2));
    for (int k = 0; k < n_samples; ++k) {
        sample s;
        if (!draw(g, s) || overlapping(s.map)) continue;
        buffer src(s, 3), dst(s, 99);
        std::vector<char> packed(s.count * s.t->size());
        pack(*s.t.get(), src.buf(), s.count, packed.data());
        std::vector<char> expect = dst.mem;  // dst with the map's bytes taken from src
        for (const elem& e : s.map)
            std::memcpy(expect.data() + dst.origin + e.disp, src.buf() + e.disp, e.len);
        unpack(*s.t.get(), dst.buf(), s.count, packed.data());
        ASSERT_EQ(dst.mem, expect) << normal_form(*s.t.get());
    }
}

TEST(DameProperty, ChunkedPackAndUnpackConcatenate) {
    gen g(seed(3));
    for (int k = 0; k < n_samples; ++k) {
        sample s;
        if (!draw(g, s)) continue;
        const bool ovl = overlapping(s.map);
        buffer b(s, 5);
        const int64_t total = s.count * s.t->size();
        std::vector<char> full(total), parts(total);
        pack(*s.t.get(), b.buf(), s.count, full.data());
        ASSERT_EQ(full, oracle_pack(s.map, b.buf())) << normal_form(*s.t.get());
        move_state st;
        while (st.offset < total) {
            const int64_t want = g.range(1, 64);
            const int64_t got = pack_next(st, *s.t.get(), b.buf(), s.count, parts.data() + st.offset, want);
            ASSERT_EQ(got, std::min(want, total - (st.offset - got)));
        }
        ASSERT_EQ(parts, full) << normal_form(*s.t.get());
        if (ovl) continue;  // unpacking into overlapping places: last write wins, order differs
        buffer d(s, 77), d2(s, 77);
        unpack(*s.t.get(), d.buf(), s.count, full.data());
        move_state us;
        while (us.offset < total) {
            const int64_t n = std::min<int64_t>(g.range(1, 64), total - us.offset);
            unpack_next(us, *s.t.get(), d2.buf(), s.count, full.data() + us.offset, n);
        }
        ASSERT_EQ(d.mem, d2.mem) << normal_form(*s.t.get());
    }
}

TEST(DameProperty, IovCoversTheOracleSegmentsInOrder) {
    gen g(seed(4));
    for (int k = 0; k < n_samples; ++k) {
        sample s;
        if (!draw(g, s)) continue;
        buffer b(s, 1);
        const std::vector<elem> want = segments(s.map);
        const int64_t total = s.count * s.t->size();
        ASSERT_EQ(iov_count(*s.t.get(), s.count), static_cast<int64_t>(want.size()))
            << normal_form(*s.t.get());
        // Emit in random pieces (segment limit and byte budget) and re-coalesce.
        std::vector<elem> got;
        int64_t off = 0;
        iov_seg seg[8];
        while (off < total) {
            const iov_result r = to_iov(*s.t.get(), b.buf(), s.count, off, seg, g.range(1, 8),
                                        g.range(1, 200));
            ASSERT_GT(r.bytes, 0);
            int64_t sum = 0;
            for (int64_t i = 0; i < r.segs; ++i) {
                const int64_t d = static_cast<char*>(seg[i].base) - b.buf();
                const int64_t l = static_cast<int64_t>(seg[i].len);
                sum += l;
                if (!got.empty() && got.back().disp + got.back().len == d) got.back().len += l;
                else got.push_back({d, l});
            }
            ASSERT_EQ(sum, r.bytes);
            off += r.bytes;
        }
        ASSERT_EQ(got.size(), want.size());
        for (size_t i = 0; i < want.size(); ++i) {
            ASSERT_EQ(got[i].disp, want[i].disp);
            ASSERT_EQ(got[i].len, want[i].len);
        }
        // One unlimited call yields exactly iov_count segments.
        if (total > 0) {
            std::vector<iov_seg> all(want.size() + 1);
            const iov_result r = to_iov(*s.t.get(), b.buf(), s.count, 0, all.data(),
                                        static_cast<int64_t>(all.size()), total);
            ASSERT_EQ(r.segs, static_cast<int64_t>(want.size()));
            ASSERT_EQ(r.bytes, total);
        }
    }
}

TEST(DameProperty, NormalizationIsIdempotent) {
    gen g(seed(5));
    for (int k = 0; k < n_samples; ++k) {
        sample s;
        if (!draw(g, s)) continue;
        ir_ptr n = lower(*s.t.get());
        normalize(n);
        ir_ptr again = clone(*n);
        normalize(again);
        ASSERT_TRUE(same(*n, *again)) << to_text(*n) << "\n vs " << to_text(*again);
    }
}

TEST(DameProperty, ElementsCountPartialStreams) {
    gen g(seed(6));
    for (int k = 0; k < n_samples; ++k) {
        sample s;
        if (!draw(g, s) || s.t->size() == 0) continue;
        // Oracle element boundaries: with the leaf pieces of predefined types.
        const int64_t total = s.count * s.t->size();
        const int64_t bytes = g.range(0, total);
        int64_t n = 0, acc = 0;
        for (const elem& e : s.map) {
            // pair types contribute one element per piece
            if (acc + e.len > bytes) break;
            acc += e.len;
            ++n;
        }
        ASSERT_EQ(elements_in(*s.t.get(), bytes), n);
    }
}

TEST(DameProperty, External32IsEachPieceBigEndianAndRoundTrips) {
    // Leaves whose external32 form is each piece byte-reversed at its native
    // size (byte, int, double, float, short, MPI_DOUBLE_INT, MPI_SHORT_INT,
    // MPI_2INT, MPI_REAL4): the stream must be the oracle's pieces in
    // type-map order, each reversed, and unpacking it must restore exactly
    // the type map's bytes.
    gen g(seed(8), {0x247, 0x209, 0x214, 0x210, 0x208, 0x229, 0x22c, 0x22b, 0x2d2});
    int tested = 0;
    for (int k = 0; k < n_samples; ++k) {
        sample s;
        if (!draw(g, s)) continue;
        ++tested;
        int64_t one = -1;
        ASSERT_EQ(ext32_size(*s.t.get(), &one), status::ok);
        ASSERT_EQ(one, s.t->size()) << normal_form(*s.t.get());
        buffer b(s, 7);
        std::vector<char> want;
        for (const elem& e : s.map)
            for (int64_t i = e.len - 1; i >= 0; --i) want.push_back(b.buf()[e.disp + i]);
        std::vector<char> got(want.size() + 1, 'Z');
        ASSERT_EQ(ext32_pack(*s.t.get(), b.buf(), s.count, got.data(), nullptr), status::ok);
        ASSERT_EQ(got.back(), 'Z') << "external32 pack wrote past the stream";
        got.pop_back();
        ASSERT_EQ(got, want) << normal_form(*s.t.get());
        if (overlapping(s.map)) continue;
        buffer dst(s, 99);
        std::vector<char> expect = dst.mem;
        for (const elem& e : s.map)
            std::memcpy(expect.data() + dst.origin + e.disp, b.buf() + e.disp, e.len);
        ASSERT_EQ(ext32_unpack(*s.t.get(), dst.buf(), s.count, got.data()), status::ok);
        ASSERT_EQ(dst.mem, expect) << normal_form(*s.t.get());
    }
    EXPECT_GT(tested, n_samples / 3);
}
