// SPDX-License-Identifier: MIT
// Predefined types, bad input, partial moves, IOV limits, types beyond 2 and
// 4 GiB, footprint, the kernels' instruction set.
#include <sys/mman.h>

#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "dame/copy.hpp"
#include "dame/dump.hpp"
#include "dame/kernels.hpp"
#include "dame/stream.hpp"
#include "helpers.hpp"
#include "oracle.hpp"

using namespace dame_test;

namespace {
const predefined_info* info(uintptr_t h) { return predefined(h); }
}  // namespace

// The x86-64-v4 kernels when the CPU has AVX-512, else the x86-64-v3 ones
// when it has AVX2; CH4LITE_DAME_ISA=base or v3 caps the level (tests
// unit.dame_base_isa and unit.dame_v3_isa run every test so).
TEST(DameKernels, InstructionSetFollowsTheCpuAndTheSwitch) {
    const char* isa = ch4lite::dame::kernel_isa();
    std::printf("kernels: %s\n", isa);
    const char* e = std::getenv("CH4LITE_DAME_ISA");
    const int cap = e && std::strcmp(e, "base") == 0 ? 0 : e && std::strcmp(e, "v3") == 0 ? 3 : 4;
    const char* want = "baseline";
#if defined(__x86_64__)
    __builtin_cpu_init();
    if (cap >= 4 && __builtin_cpu_supports("x86-64-v4")) want = "x86-64-v4";
    else if (cap >= 3 && __builtin_cpu_supports("x86-64-v3")) want = "x86-64-v3";
#endif
    EXPECT_STREQ(isa, want);
}

TEST(DamePredefined, SizesExtentsAlignment) {
    struct { uintptr_t h; int size, extent; } want[] = {
        {0x209, 4, 4},   {0x214, 8, 8},   {0x220, 16, 16}, {0x229, 12, 16}, {0x22c, 6, 8},
        {0x22d, 20, 32}, {0x228, 8, 8},   {0x22a, 12, 16}, {0x22b, 8, 8},   {0x230, 8, 8},
        {0x231, 16, 16}, {0x232, 8, 8},   {0x218, 4, 4},   {0x219, 4, 4},   {0x21a, 4, 4},
        {0x21b, 8, 8},   {0x21c, 8, 8},   {0x21d, 16, 16}, {0x21e, 1, 1},   {0x201, 8, 8},
        {0x202, 8, 8},   {0x203, 8, 8},   {0x207, 1, 1},   {0x212, 8, 8},   {0x216, 16, 16},
        {0x224, 32, 32}, {0x2eb, 32, 32}, {0x2db, 8, 8},   {0x2e1, 16, 16}, {0x247, 1, 1}};
    for (auto& w : want) {
        type* t = predefined_type(w.h);
        ASSERT_NE(t, nullptr) << std::hex << w.h;
        EXPECT_EQ(t->size(), w.size) << info(w.h)->name;
        EXPECT_EQ(t->extent(), w.extent) << info(w.h)->name;
        EXPECT_TRUE(t->committed());
        EXPECT_EQ(t->contiguous(), w.size == w.extent && w.h != 0x22c) << info(w.h)->name;
    }
    // Fixed-size ABI handles: size = 1 << ((h >> 3) & 7).
    for (uintptr_t h = 0x240; h < 0x300; ++h) {
        if (const predefined_info* p = predefined(h); p && (h & 0x40)) {
            EXPECT_EQ(p->size, 1 << ((h >> 3) & 7)) << p->name;
        }
    }
    EXPECT_EQ(predefined_type(0x200), nullptr);  // MPI_DATATYPE_NULL
    EXPECT_EQ(predefined_type(0x211), nullptr);  // unassigned
    EXPECT_EQ(predefined_type(0x229)->basic(), basic_kind::double_int);
    EXPECT_EQ(committed("contig(3, double_int)")->basic(), basic_kind::double_int);
    EXPECT_EQ(committed("struct([1,1],[0,8],[double,int])")->basic(), basic_kind::mixed);
    EXPECT_EQ(committed("contig(0, double)")->basic(), basic_kind::none);  // no elements
}

TEST(DameBadInput, ConstructorsRefuseAndDetectOverflow) {
    type* d = predefined_type(0x214);
    type* out = nullptr;
    int64_t bl[2] = {1, -1}, disp[2] = {0, 1};
    EXPECT_EQ(make_contiguous(-1, d, &out), status::invalid);
    EXPECT_EQ(make_vector(1, -2, 1, false, d, &out), status::invalid);
    EXPECT_EQ(make_indexed(2, bl, disp, false, d, &out), status::invalid);
    EXPECT_EQ(make_indexed(2, nullptr, disp, false, d, &out), status::invalid);
    EXPECT_EQ(make_struct(1, bl, disp, nullptr, &out), status::invalid);
    EXPECT_EQ(make_contiguous(1, nullptr, &out), status::invalid);
    int64_t sz[1] = {4}, sub[1] = {5}, st[1] = {0};
    EXPECT_EQ(make_subarray(1, sz, sub, st, true, d, &out), status::invalid);
    // 2^61 doubles overflow int64 bytes; so does a stride beyond it.
    EXPECT_EQ(make_contiguous(int64_t{1} << 61, d, &out), status::range);
    EXPECT_EQ(make_vector(3, 1, INT64_MAX / 2, true, d, &out), status::range);
    type* big = nullptr;
    ASSERT_EQ(make_contiguous(int64_t{1} << 40, predefined_type(0x247), &big), status::ok);
    EXPECT_EQ(make_contiguous(int64_t{1} << 40, big, &out), status::range);
    big->release();
    // Index lists scaled by the old type's extent: any displacement whose
    // product overflows is rejected, whichever its place in the list.
    const int64_t far_hi[3] = {0, INT64_MAX / 4, 5}, far_lo[3] = {7, INT64_MIN / 4, 0};
    EXPECT_EQ(make_indexed_block(3, 1, far_hi, false, d, &out), status::range);
    EXPECT_EQ(make_indexed_block(3, 1, far_lo, false, d, &out), status::range);
    type* back = nullptr;  // extent -8: the highest displacement gives the lowest bound
    ASSERT_EQ(make_resized(d, 0, -8, &back), status::ok);
    EXPECT_EQ(make_indexed_block(3, 1, far_hi, false, back, &out), status::range);
    const int64_t near[3] = {1, 3, 2};
    ASSERT_EQ(make_indexed_block(3, 1, near, false, back, &out), status::ok);
    EXPECT_EQ(out->true_lb(), -24);
    EXPECT_EQ(out->true_extent(), 24);
    EXPECT_EQ(out->disps(), (ch4lite::dame::pool_vec<int64_t>{-8, -24, -16}));
    out->release();
    back->release();
    std::string err;
    EXPECT_EQ(parse_type("vector(1,2", &out, &err), status::invalid);
    EXPECT_NE(err.find("offset"), std::string::npos);
    EXPECT_EQ(parse_type("nosuchtype", &out), status::invalid);
    EXPECT_EQ(parse_type("contig(99999999999999999999, int)", &out), status::range);
}

// A subarray is the nest of hvectors the standard describes, placed at the
// corner and resized to the whole array, made of ndims types (2 for one
// dimension): the same bounds, size and normal form as that nest built
// type by type (contiguous run, hvectors, hindexed_block of the corner,
// resized), on bases with a lower bound and with an extent beyond their data.
TEST(DameSubarray, IsTheNestOfVectorsItStandsFor) {
    type* padded = nullptr;  // a double with lb -4, extent 16
    ASSERT_EQ(make_resized(predefined_type(0x214), -4, 16, &padded), status::ok);
    type_ref pad(padded);
    struct shape_case {
        int nd;
        int64_t sizes[4], subs[4], starts[4];
        bool c;
    };
    const shape_case cases[] = {{1, {9}, {4}, {3}, true},
                                {2, {6, 5}, {4, 3}, {2, 1}, true},
                                {3, {4, 5, 6}, {2, 3, 4}, {1, 1, 2}, false},
                                {4, {2, 34, 65, 24}, {1, 3, 65, 16}, {1, 1, 0, 1}, true},
                                {4, {3, 1, 4, 2}, {3, 1, 2, 1}, {0, 0, 1, 1}, false}};
    for (type* base : {predefined_type(0x214), padded}) {
        for (const shape_case& k : cases) {
            type* sa = nullptr;
            ASSERT_EQ(make_subarray(k.nd, k.sizes, k.subs, k.starts, k.c, base, &sa), status::ok);
            type_ref s(sa);
            // The nest, type by type, fastest dimension first.
            auto dim = [&](int i) { return k.c ? k.nd - 1 - i : i; };
            type* cur = nullptr;
            ASSERT_EQ(make_contiguous(k.subs[dim(0)], base, &cur), status::ok);
            int64_t stride = k.sizes[dim(0)] * base->extent(), offset = k.starts[dim(0)] * base->extent();
            for (int i = 1; i < k.nd; ++i) {
                type* next = nullptr;
                ASSERT_EQ(make_vector(k.subs[dim(i)], 1, stride, true, cur, &next), status::ok);
                cur->release();
                cur = next;
                offset += k.starts[dim(i)] * stride;
                stride *= k.sizes[dim(i)];
            }
            type *placed = nullptr, *ref = nullptr;
            ASSERT_EQ(make_indexed_block(1, 1, &offset, true, cur, &placed), status::ok);
            cur->release();
            ASSERT_EQ(make_resized(placed, 0, stride, &ref), status::ok);
            placed->release();
            type_ref r(ref);
            const std::string what = "subarray of " + std::to_string(k.nd) + " dims";
            EXPECT_EQ(sa->size(), ref->size()) << what;
            EXPECT_EQ(sa->lb(), ref->lb()) << what;
            EXPECT_EQ(sa->ub(), ref->ub()) << what;
            EXPECT_EQ(sa->true_lb(), ref->true_lb()) << what;
            EXPECT_EQ(sa->true_ub(), ref->true_ub()) << what;
            EXPECT_EQ(sa->elements(), ref->elements()) << what;
            EXPECT_EQ(sa->alignment(), ref->alignment()) << what;
            EXPECT_TRUE(sa->explicit_bounds()) << what;
            EXPECT_EQ(sa->comb(), combiner::subarray) << what;
            ASSERT_EQ(sa->commit(), status::ok);
            ASSERT_EQ(ref->commit(), status::ok);
            EXPECT_EQ(normal_form(*sa), normal_form(*ref)) << what;
            int types = 0;
            for (const type* t = sa; !t->is_predefined(); t = t->kids()[0]) ++types;
            EXPECT_EQ(types - (base == padded), std::max(k.nd, 2)) << what;
        }
    }
}

TEST(DameMove, RangesStartAnywhereAndStopAnywhere) {
    type_ref t = committed("struct([2,1,3],[0,40,-24],[vector(3,1,2,int), short_int, hvector(2,2,100,float)])");
    const int64_t count = 5, total = count * t->size();
    std::vector<char> buf(4096);
    for (size_t i = 0; i < buf.size(); ++i) buf[i] = static_cast<char>(i * 7 + 1);
    char* base = buf.data() + 1024;
    std::vector<char> full(total);
    pack(*t.get(), base, count, full.data());
    for (int64_t off = 0; off < total; off += 3)
        for (int64_t len = 1; off + len <= total && len < 70; len += 7) {
            std::vector<char> part(len);
            ASSERT_EQ(pack_range(*t.get(), base, count, off, len, part.data()), len);
            ASSERT_EQ(0, std::memcmp(part.data(), full.data() + off, len)) << off << "+" << len;
        }
    // Clipping at the end, and nothing past it.
    char tail[8];
    EXPECT_EQ(pack_range(*t.get(), base, count, total - 2, 8, tail), 2);
    EXPECT_EQ(pack_range(*t.get(), base, count, total, 8, tail), 0);
    static_assert(sizeof(move_state) <= 128);
}

TEST(DameIov, LimitsAndCoalescing) {
    type_ref t = committed("vector(100, 2, 4, int)");  // 100 runs of 8 bytes, 8-byte gaps
    std::vector<char> buf(2000);
    EXPECT_EQ(iov_count(*t.get(), 1), 100);
    // The last run of an instance ends at its extent, where the next begins.
    EXPECT_EQ(iov_count(*t.get(), 3), 298);
    iov_seg seg[10];
    iov_result r = to_iov(*t.get(), buf.data(), 1, 0, seg, 10, INT64_MAX);
    EXPECT_EQ(r.segs, 10);
    EXPECT_EQ(r.bytes, 80);
    r = to_iov(*t.get(), buf.data(), 1, 4, seg, 10, 10);  // byte budget cuts a segment
    EXPECT_EQ(r.bytes, 10);
    EXPECT_EQ(r.segs, 2);
    EXPECT_EQ(seg[0].len, 4u);
    EXPECT_EQ(seg[1].len, 6u);
    type_ref c = committed("resized(0, 8, contig(2, int))");  // instances touch: one segment
    EXPECT_EQ(iov_count(*c.get(), 1000), 1);
    EXPECT_TRUE(c->contiguous());
    r = to_iov(*c.get(), buf.data(), 200, 0, seg, 1, INT64_MAX);
    EXPECT_EQ(r.segs, 1);
    EXPECT_EQ(r.bytes, 1600);
}

TEST(DameLarge, BeyondTwoAndFourGiB) {
    // A 6 GiB typed region reserved but only touched where we move data.
    const size_t span = size_t{6} << 30;
    void* mem = mmap(nullptr, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (mem == MAP_FAILED) GTEST_SKIP() << "cannot reserve 6 GiB of address space";
    char* base = static_cast<char*>(mem);
    // 3 blocks of 1.5 GiB with 0.5 GiB gaps: size 4.5 GiB > 2^32, extent 5.5 GiB.
    type* blk = nullptr;
    ASSERT_EQ(make_contiguous(int64_t{3} << 29, predefined_type(0x247), &blk), status::ok);
    type* t = nullptr;
    ASSERT_EQ(make_vector(3, 1, int64_t{1} << 31, true, blk, &t), status::ok);
    blk->release();
    type_ref owner(t);
    ASSERT_EQ(t->commit(), status::ok);
    EXPECT_EQ(t->size(), int64_t{9} << 29);
    EXPECT_EQ(t->extent(), (int64_t{2} << 31) + (int64_t{3} << 29));
    EXPECT_EQ(iov_count(*t, 1), 3);
    iov_seg seg[4];
    iov_result r = to_iov(*t, base, 1, (int64_t{3} << 29) + 5, seg, 4, INT64_MAX);
    ASSERT_EQ(r.segs, 2);
    EXPECT_EQ(static_cast<char*>(seg[0].base) - base, (int64_t{1} << 31) + 5);
    EXPECT_EQ(seg[1].len, size_t{3} << 29);
    // Move a few bytes around stream offsets 2^31 and 2^32 + 7.
    const int64_t offs[] = {(int64_t{1} << 31) - 3, (int64_t{1} << 32) + 7};
    for (int64_t off : offs) {
        char in[16] = "0123456789abcde", out[16] = {};
        ASSERT_EQ(unpack_range(*t, base, 1, off, 16, in), 16);
        ASSERT_EQ(pack_range(*t, base, 1, off, 16, out), 16);
        EXPECT_EQ(0, std::memcmp(in, out, 16));
        // Where did it land? block k = off / 1.5 GiB, at k * 2 GiB + rest.
        const int64_t k = off / (int64_t{3} << 29), rest = off % (int64_t{3} << 29);
        EXPECT_EQ(base[k * (int64_t{1} << 31) + rest], in[0]);
    }
    // Counts above INT_MAX.
    type* big = nullptr;
    ASSERT_EQ(make_contiguous(int64_t{INT_MAX} + 10, predefined_type(0x247), &big), status::ok);
    EXPECT_EQ(big->size(), int64_t{INT_MAX} + 10);
    EXPECT_EQ(elements_in(*big, int64_t{INT_MAX} + 5), int64_t{INT_MAX} + 5);
    big->release();
    munmap(mem, span);
}

TEST(DameFootprint, NodesAndDisplacementLists) {
    type_ref v = committed("hvector(8, 1, 4096, vector(16, 1, 32, double))");
    EXPECT_LE(v->prog()->footprint(), 2 * 64u);  // two regular nodes, 64 B each
    std::string list = "blkidx(1, [";
    for (int i = 0; i < 1000; ++i) list += std::to_string((i * 7919) % 100003) + (i < 999 ? "," : "], double)");
    type_ref b = committed(list.c_str());
    EXPECT_LE(b->prog()->footprint(), 64u + 4 * 1000);  // 32-bit displacements
    EXPECT_NE(dump(*b.get()).find("disps(i32)"), std::string::npos);
}

TEST(DameElements, GetElementsAndItsInverse) {
    type_ref t = committed("struct([1,3,1],[0,8,32],[char,double,int])");
    EXPECT_EQ(t->elements(), 5);
    EXPECT_EQ(elements_in(*t.get(), 29 + 1 + 8), 7);
    EXPECT_EQ(bytes_for_elements(*t.get(), 7), 29 + 1 + 8);
    EXPECT_EQ(elements_in(*t.get(), 29 * 3), 15);
}

TEST(DameCopy, TypedToTyped) {
    type_ref a = committed("vector(10, 1, 3, int)"), b = committed("hvector(5, 2, 20, int)");
    std::vector<int> src(30), dst(25, -1);
    for (int i = 0; i < 30; ++i) src[i] = i;
    EXPECT_EQ(copy(*a.get(), src.data(), 1, *b.get(), dst.data(), 1), 40);
    for (int k = 0; k < 5; ++k) {
        EXPECT_EQ(dst[5 * k], 6 * k);
        EXPECT_EQ(dst[5 * k + 1], 6 * k + 3);
        EXPECT_EQ(dst[5 * k + 2], -1);
    }
}

TEST(DameKernels, FarBlockIndexMatchesTheOracle) {
    // Blocks spread over >= 512 KiB: the far kernels (pack prefetches 16
    // blocks ahead), with more blocks than that and fewer, 32- and 64-bit
    // displacement lists; a near list keeps the plain kernel. The typed
    // buffers are reserved, and only the mapped bytes are touched.
    std::string many = "[";
    for (int i = 0; i < 40; ++i) many += std::to_string((i * 7919) % 40000 * 16) + (i < 39 ? ", " : "]");
    const std::pair<std::string, const char*> cases[] = {
        {"hblkidx(12, " + many + ", byte)", "blk/i32/far_12"},
        {"contig(2, hblkidx(3, [0, 600000, 24, 300000, 48], float))", "blk/i32/far_12"},
        {"hblkidx(1, [0, 9, 5000000000, 45], double)", "blk/i64/far_8"},
        {"hblkidx(12, [0, 500000, 24], byte)", "blk/i32_12"}};
    const size_t span = size_t{6} << 30;
    const int flags = MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE;
    void* m1 = mmap(nullptr, span, PROT_READ | PROT_WRITE, flags, -1, 0);
    void* m2 = mmap(nullptr, span, PROT_READ | PROT_WRITE, flags, -1, 0);
    if (m1 == MAP_FAILED || m2 == MAP_FAILED) {
        if (m1 != MAP_FAILED) munmap(m1, span);
        if (m2 != MAP_FAILED) munmap(m2, span);
        GTEST_SKIP() << "cannot reserve 2 x 6 GiB of address space";
    }
    char *src = static_cast<char*>(m1), *dst = static_cast<char*>(m2);
    for (const auto& [text, kernel] : cases) {
        type_ref t = committed(text.c_str());
        EXPECT_NE(dump(*t.get()).find(std::string("kernel=") + kernel + " "), std::string::npos) << text;
        const std::vector<elem> map = typemap(*t.get(), 1);
        for (const elem& e : map)
            for (int64_t i = 0; i < e.len; ++i) src[e.disp + i] = static_cast<char>((e.disp + i) * 13 + 1);
        const std::vector<char> want = oracle_pack(map, src);
        std::vector<char> got(want.size());
        pack(*t.get(), src, 1, got.data());
        ASSERT_EQ(got, want) << text;
        for (int64_t off = 0; off < static_cast<int64_t>(want.size()); off += 7) {
            std::vector<char> part(20);
            const int64_t n = pack_range(*t.get(), src, 1, off, 20, part.data());
            ASSERT_EQ(0, std::memcmp(part.data(), want.data() + off, n)) << text << " @" << off;
        }
        unpack(*t.get(), dst, 1, want.data());
        for (const elem& e : map) ASSERT_EQ(0, std::memcmp(dst + e.disp, src + e.disp, e.len)) << text;
    }
    munmap(m1, span);
    munmap(m2, span);
}

TEST(DameKernels, TransposeGroupsMatchTheOracle) {
    // Outer stride == block length: the grouped transpose path (64/L copies at
    // once) plus its remainder, whole and in ranges, both directions.
    const char* types[] = {"contig(19, resized(0, 8, vector(7, 1, 20, double)))",
                           "contig(9, resized(0, 16, vector(5, 1, 9, contig(2, double))))",
                           "contig(33, resized(0, 4, vector(3, 1, 40, float)))",
                           "contig(4, resized(0, 32, vector(6, 1, 3, contig(4, double))))",
                           // rows >= 8 KiB apart: pack prefetches 32 rows ahead,
                           // with more rows than that and with fewer
                           "contig(9, resized(0, 16, vector(40, 1, 600, contig(2, double))))",
                           "contig(5, resized(0, 16, vector(20, 1, 600, contig(2, double))))"};
    for (const char* text : types) {
        type_ref t = committed(text);
        EXPECT_NE(dump(*t.get()).find("vec2_"), std::string::npos) << text;
        const std::vector<elem> map = typemap(*t.get(), 2);
        int64_t hi = 0;
        for (const elem& e : map) hi = std::max(hi, e.disp + e.len);
        std::vector<char> src(hi), dst(hi, 0);
        for (int64_t i = 0; i < hi; ++i) src[i] = static_cast<char>(i * 13 + 1);
        const std::vector<char> want = oracle_pack(map, src.data());
        std::vector<char> got(want.size());
        pack(*t.get(), src.data(), 2, got.data());
        ASSERT_EQ(got, want) << text;
        for (int64_t off = 0; off < static_cast<int64_t>(want.size()); off += 37) {
            std::vector<char> part(50);
            const int64_t n = pack_range(*t.get(), src.data(), 2, off, 50, part.data());
            ASSERT_EQ(0, std::memcmp(part.data(), want.data() + off, n)) << text << " @" << off;
        }
        unpack(*t.get(), dst.data(), 2, want.data());
        for (const elem& e : map) ASSERT_EQ(0, std::memcmp(dst.data() + e.disp, src.data() + e.disp, e.len));
    }
}

TEST(DameKernels, LineAlignedShortBlocksMatchTheOracle) {
    // vec_short moves whole 64-byte lines when the buffers, the stride and the
    // block length are all multiples of 64; otherwise 32-byte moves. Both,
    // with the typed buffer on a line and 8 bytes past one, both directions.
    const char* types[] = {"vector(37, 16, 32, double)", "vector(21, 24, 40, double)",
                           "hvector(20, 1, 320, contig(56, float))", "hvector(25, 1, 208, contig(32, float))",
                           "vector(17, 17, 40, double)"};
    for (const char* text : types) {
        type_ref t = committed(text);
        EXPECT_NE(dump(*t.get()).find("kernel=vec_short"), std::string::npos) << text;
        const std::vector<elem> map = typemap(*t.get(), 2);
        int64_t hi = 0;
        for (const elem& e : map) hi = std::max(hi, e.disp + e.len);
        for (int64_t shift : {0, 8}) {
            std::vector<char> src_mem(hi + 128), dst_mem(hi + 128, 0);
            auto line = [&](std::vector<char>& m) {
                const auto a = reinterpret_cast<uintptr_t>(m.data());
                return m.data() + ((64 - a % 64) % 64) + shift;
            };
            char *src = line(src_mem), *dst = line(dst_mem);
            for (int64_t i = 0; i < hi; ++i) src[i] = static_cast<char>(i * 13 + 1);
            const std::vector<char> want = oracle_pack(map, src);
            std::vector<char> got(want.size() + 64);
            char* out = got.data() + ((64 - reinterpret_cast<uintptr_t>(got.data()) % 64) % 64);
            pack(*t.get(), src, 2, out);
            ASSERT_EQ(0, std::memcmp(out, want.data(), want.size())) << text << " shift " << shift;
            std::memcpy(out, want.data(), want.size());
            unpack(*t.get(), dst, 2, out);
            for (const elem& e : map)
                ASSERT_EQ(0, std::memcmp(dst + e.disp, src + e.disp, e.len)) << text << " shift " << shift;
        }
    }
}

TEST(DameKernels, MediumAndBigBlocksMatchTheOracle) {
    // Blocks of 256-1023 bytes: the medium kernels (128-byte steps, 32-byte
    // steps, an overlapping last move); 1 KiB-1 MiB: the big ones (a head,
    // then line-aligned steps, one or two moves ending at the last byte),
    // with the typed blocks at every offset from a line; in every family;
    // from 1 MiB the long ones (memcpy).
    const std::pair<const char*, const char*> cases[] = {
        {"hvector(9, 1, 300, contig(256, byte))", "vec_medium"},
        {"hvector(7, 1, 1100, contig(1023, byte))", "vec_medium"},
        {"hvector(5, 1, 800, contig(777, byte))", "vec_medium"},
        {"hblkidx(1, [0, 3000, 1200, 9000], contig(520, byte))", "blk/i32_medium"},
        {"hvector(3, 1, 9000, hvector(4, 1, 700, contig(300, byte)))", "vec2_medium"},
        {"hvector(6, 1, 1031, contig(1024, byte))", "vec_big"},
        {"hvector(5, 1, 4133, contig(4097, byte))", "vec_big"},
        {"hvector(4, 1, 8200, contig(8191, byte))", "vec_big"},
        {"hvector(5, 1, 1100, contig(1090, byte))", "vec_big"},
        {"hblkidx(1, [0, 9000, 3001, 20000], contig(2999, byte))", "blk/i32_big"},
        {"hvector(2, 1, 30000, hvector(3, 1, 5000, contig(4100, byte)))", "vec2_big"},
        {"hvector(3, 1, 8500, contig(8192, byte))", "vec_big"},
        {"hvector(3, 1, 70001, contig(65537, byte))", "vec_big"},
        {"hvector(3, 1, 1048600, contig(131072, double))", "vec_long"},
        {"hvector(8, 1, 1024, contig(1024, byte))", ""}};  // contiguous
    for (const auto& [text, kernel] : cases) {
        type_ref t = committed(text);
        if (*kernel) {
            EXPECT_NE(dump(*t.get()).find(std::string("kernel=") + kernel), std::string::npos) << text;
        }
        const std::vector<elem> map = typemap(*t.get(), 2);
        int64_t hi = 0;
        for (const elem& e : map) hi = std::max(hi, e.disp + e.len);
        std::vector<char> src(hi + 8), dst(hi + 8, 0);
        for (int64_t i = 0; i < hi; ++i) src[i] = static_cast<char>(i * 13 + 1);
        const std::vector<char> want = oracle_pack(map, src.data() + 3);
        std::vector<char> got(want.size() + 8);
        pack(*t.get(), src.data() + 3, 2, got.data() + 1);
        ASSERT_EQ(0, std::memcmp(got.data() + 1, want.data(), want.size())) << text;
        unpack(*t.get(), dst.data() + 3, 2, got.data() + 1);
        for (const elem& e : map) ASSERT_EQ(0, std::memcmp(dst.data() + 3 + e.disp, src.data() + 3 + e.disp, e.len)) << text;
    }
}

TEST(DameKernels, LongMovesAtAShortDistanceModuloAPageMoveExactlyTheirBytes) {
    // A destination 1-63 bytes after its source modulo 4096 takes the
    // inline loops instead of memcpy (util::short_distance): in copy_one,
    // in copy_any (a leaf, a piece of a partial move) and in the kernels of
    // blocks of 1 MiB and more. Both ends sit in one page-aligned mapping,
    // the destination whole pages after the source, at distances on both
    // sides of 1 and 63; the bytes around must stay.
    constexpr int64_t guard = 160, page = 4096, span = (int64_t{1} << 20) + 2 * page;
    std::vector<char> mem(static_cast<size_t>(6 << 20));
    char* const base = mem.data() + (page - reinterpret_cast<uintptr_t>(mem.data()) % page);
    char* const src = base;
    for (int64_t i = 0; i < span; ++i) src[i] = static_cast<char>(i * 31 + (i >> 11) + 3);
    std::vector<char> want(static_cast<size_t>(span));
    for (int64_t n : {1024, 2112, 4101, 16384, 16385, 65539, 300000, (1 << 20) + 7}) {
        for (int64_t dist : {0, 1, 8, 31, 32, 63, 64, 100}) {
            char* const dst = base + span + dist;  // span: whole pages, past src + n + guard
            for (int via = 0; via < 2; ++via) {
                std::memset(dst - guard, 0x5d, static_cast<size_t>(n + 2 * guard));
                std::memcpy(want.data(), dst - guard, static_cast<size_t>(n + 2 * guard));
                std::memcpy(want.data() + guard, src, static_cast<size_t>(n));
                if (via == 0) ASSERT_EQ(0, copy_one(dst, src, n));
                else copy_any(dst, src, n);
                ASSERT_EQ(0, std::memcmp(dst - guard, want.data(), static_cast<size_t>(n + 2 * guard)))
                    << (via ? "copy_any" : "copy_one") << " n=" << n << " distance " << dist;
            }
        }
    }
    // vec_long: two blocks of 1 MiB + 8 bytes, 1 MiB + 64 apart, unpacked
    // 8 bytes after the packed stream's place in its page and packed back.
    type_ref t = committed("hvector(2, 1, 1048640, contig(1048584, byte))");
    EXPECT_NE(dump(*t.get()).find("kernel=vec_long"), std::string::npos);
    constexpr int64_t blk = 1048584, stride = 1048640;
    char* const packed = base;  // 2 blocks: 2 MiB + 16 bytes
    char* const typed = base + (3 << 20) + 8;  // to 5 MiB + 136
    for (int64_t i = 0; i < 2 * blk; ++i) packed[i] = static_cast<char>(i * 7 + (i >> 13));
    std::memset(typed, 0, static_cast<size_t>(stride + blk));
    unpack(*t.get(), typed, 1, packed);
    ASSERT_EQ(0, std::memcmp(typed, packed, blk));
    ASSERT_EQ(0, std::memcmp(typed + stride, packed + blk, blk));
    std::vector<char> out(static_cast<size_t>(2 * blk));
    pack(*t.get(), typed, 1, out.data());
    ASSERT_EQ(0, std::memcmp(out.data(), packed, out.size()));
}

TEST(DameKernels, CopyOneMovesExactlyItsBytes) {
    // dame::copy_one (the copy of MPI_Pack's fast path) for the kernels'
    // instruction set: every length to 600 bytes, then the edges of its
    // x86-64-v4 branches (32, 64, 128, 16 KiB) and beyond, from and to every
    // offset in a 32-byte vector for short lengths. The bytes around the
    // copy must stay as they were.
    std::vector<int64_t> lens;
    for (int64_t n = 0; n <= 600; ++n) lens.push_back(n);
    for (int64_t n : {1000, 1023, 1024, 1320, 2111, 2112, 4095, 4096, 8191, 8192, 8193, 16383,
                      16384, 16385, 65536 + 3, 300000})
        lens.push_back(n);
    constexpr int64_t guard = 160;
    std::vector<char> src(300000 + 2 * guard), dst(src.size()), want(src.size());
    for (size_t i = 0; i < src.size(); ++i) src[i] = static_cast<char>(i * 29 + (i >> 9) + 5);
    for (int64_t n : lens) {
        const int step = n <= 600 ? 1 : 7;
        for (int so = 0; so < 32; so += step) {
            for (int d_off = 0; d_off < 32; d_off += step + 2) {
                std::memset(dst.data(), 0x6b, static_cast<size_t>(n + 2 * guard));
                std::memcpy(want.data(), dst.data(), static_cast<size_t>(n + 2 * guard));
                std::memcpy(want.data() + guard + d_off, src.data() + so, static_cast<size_t>(n));
                ASSERT_EQ(0, copy_one(dst.data() + guard + d_off, src.data() + so, n));
                ASSERT_EQ(0, std::memcmp(dst.data(), want.data(), static_cast<size_t>(n + 2 * guard)))
                    << "n=" << n << " from +" << so << " to +" << d_off << " (" << kernel_isa() << ")";
            }
        }
    }
}

TEST(DameStream, LargeMovesOfLongBlocksStreamAndMatchTheOracle) {
    // Whole moves of at least stream_min() bytes whose blocks average
    // >= stream_min_block write with non-temporal stores (stream.hpp). The
    // threshold is lowered to its floor (1 MiB) so that small buffers take
    // the path; buffers and packed stream are off 16-byte alignment, and a
    // block length of 1027 leaves heads and tails to the plain copies.
    using namespace ch4lite::dame;
    set_stream_min(stream_floor);
    struct tcase {
        const char* text;
        int64_t count, shift;
        bool streams;
    } cases[] = {{"contig(131075, double)", 1, 5, true},
                 {"hvector(1100, 1, 2056, contig(1027, byte))", 2, 3, true},
                 {"hvector(70000, 1, 32, contig(2, double))", 1, 0, false}};  // 16-byte blocks
    for (const tcase& c : cases) {
        type_ref t = committed(c.text);
        const std::vector<elem> map = typemap(*t.get(), c.count);
        int64_t hi = 0;
        for (const elem& e : map) hi = std::max(hi, e.disp + e.len);
        std::vector<char> src_mem(hi + 64), dst_mem(hi + 64, 0), out_mem(t->size() * c.count + 64);
        char *src = src_mem.data() + c.shift, *dst = dst_mem.data() + c.shift + 1;
        char* out = out_mem.data() + 7;
        for (int64_t i = 0; i < hi; ++i) src[i] = static_cast<char>(i * 13 + 1);
        const std::vector<char> want = oracle_pack(map, src);
        const int64_t before = stream_moves();
        pack(*t.get(), src, c.count, out);
        ASSERT_EQ(0, std::memcmp(out, want.data(), want.size())) << c.text;
        unpack(*t.get(), dst, c.count, out);
        for (const elem& e : map) ASSERT_EQ(0, std::memcmp(dst + e.disp, src + e.disp, e.len)) << c.text;
        EXPECT_EQ(stream_moves() - before, c.streams ? 2 : 0) << c.text;
    }
    // Off (CH4LITE_DAME_STREAM_MIN=0 does the same): the plain copy.
    set_stream_min(0);
    type_ref t = committed("contig(131075, double)");
    std::vector<char> a(t->size(), 1), b(t->size(), 2);
    const int64_t before = stream_moves();
    pack(*t.get(), a.data(), 1, b.data());
    EXPECT_EQ(stream_moves(), before);
    EXPECT_EQ(a, b);
    set_stream_min(-1);
    EXPECT_GE(stream_min(), stream_floor);
}
