// SPDX-License-Identifier: MIT
// The kernel templates and the table builder, included by kernels.cpp (the
// baseline instruction set) and kernels_isa.inc (the same source compiled
// for x86-64-v3, AVX2, and x86-64-v4, AVX-512). Everything here is in an
// unnamed namespace, so each file keeps its own instantiations: none can
// stand in for another's at link time. The block copies it uses (copy.hpp)
// are all always inlined for the same reason.
#pragma once
#include <cstdint>
#include <type_traits>

#include "dame/kernels.hpp"

namespace ch4lite::dame {

// The tables of kernels_v3.cpp and kernels_v4.cpp (x86-64 only), which
// kernels.cpp installs.
#if defined(__x86_64__) && defined(CH4LITE_DAME_X86_LEVELS)
#define CH4LITE_DAME_HAVE_ISA 1
extern const std::array<kernel_fn, n_kernels> v3_pack_kernels;
extern const std::array<kernel_fn, n_kernels> v3_unpack_kernels;
int v3_copy_one(char* __restrict d, const char* __restrict s, int64_t n) noexcept;
extern const std::array<kernel_fn, n_kernels> v4_pack_kernels;
extern const std::array<kernel_fn, n_kernels> v4_unpack_kernels;
int v4_copy_one(char* __restrict d, const char* __restrict s, int64_t n) noexcept;
#else
#define CH4LITE_DAME_HAVE_ISA 0
#endif

namespace {

constexpr int64_t fixed_len[] = {1, 2, 4, 8, 12, 16, 24, 32, 40, 48, 64};
constexpr int n_fixed = 11;
constexpr int cls_short = 11, cls_medium = 12, cls_big = 13, cls_long = 14, n_cls = 15;
// The table's layout: where each family starts (id 0: no kernel). Families of
// block lengths have n_cls entries; the INDEXED kernels one per width. The
// nested family starts at first_nested_kernel (program.hpp).
// A BLKINDEX list with 64-bit displacements has one at 2^31 or more from its
// first (which normalization makes 0), so it always spreads over far_span:
// such lists take the far kernels only.
constexpr int first_vec = 1, first_blk32 = first_vec + n_cls, idx32_kernel = first_blk32 + n_cls,
              idx64_kernel = idx32_kernel + 1, first_far32 = idx64_kernel + 1, first_far64 = first_far32 + n_cls;
static_assert(far_span <= INT32_MAX);
static_assert(first_far64 + n_cls == first_nested_kernel);
// How many blocks ahead a far BLKINDEX pack prefetches.
constexpr int64_t prefetch_blocks = 16;

// How many adjacent blocks of L bytes make a cache line: the grouped
// transposes (vec2_kernel) walk that many outer copies together.
constexpr int64_t group_of(int64_t L) { return L <= 32 ? 64 / L : 1; }
// How many rows ahead a grouped pack prefetches (32-48 were best in a
// stand-alone copy of the loop at N = 256-1536; 16 was too short at 1024+),
// and from which row stride on.
constexpr int64_t prefetch_rows = 32;
constexpr int64_t prefetch_stride = 8192;
// How many blocks ahead unpack of line-aligned short blocks asks for the
// lines it will write (vec_kernel).
constexpr int64_t lines_ahead = 8;

template <int64_t L>
struct len_fixed {
    static constexpr int64_t group = group_of(L);
    static void copy(char* d, const char* s, int64_t) { copy_fixed<L>(d, s); }
    static int64_t n(int64_t) { return L; }
};
struct len_short {
    static constexpr int64_t group = 1;
    static void copy(char* d, const char* s, int64_t n) { copy_short(d, s, n); }
    static int64_t n(int64_t b) { return b; }
};
struct len_medium {
    static constexpr int64_t group = 1;
    static void copy(char* d, const char* s, int64_t n) { copy_medium(d, s, n); }
    static int64_t n(int64_t b) { return b; }
};
struct len_big {
    static constexpr int64_t group = 1;
    static void copy(char* d, const char* s, int64_t n) { copy_big(d, s, n); }
    static int64_t n(int64_t b) { return b; }
};
// From big_end bytes: copy_any, i.e. memcpy, or copy_big at a short distance.
struct len_long {
    static constexpr int64_t group = 1;
    static void copy(char* d, const char* s, int64_t n) { copy_any(d, s, n); }
    static int64_t n(int64_t b) { return b; }
};

template <dir D, class Len>
[[gnu::always_inline]] inline void blk(char* t, char* p, int64_t n) {
    if constexpr (D == dir::pack) Len::copy(p, t, n);
    else Len::copy(t, p, n);
}

// Short blocks whose length is a multiple of 64 bytes, all 64-byte aligned
// on both sides: whole 64-byte moves, no tail.
struct len_lines {
    static void copy(char* d, const char* s, int64_t n) {
        for (int64_t i = 0; i < n; i += 64) copy_fixed<64>(d + i, s + i);
    }
};

template <dir D, class Len>
void vec_kernel(const node& nd, char* t, char* p) {
    const int64_t n = Len::n(nd.blen), stride = nd.stride, cnt = nd.count;
    if constexpr (std::is_same_v<Len, len_short>) {
        // One test per call: the blocks then all sit on cache lines (vector
        // of 128-byte blocks: 64-byte moves instead of 32-byte ones, pack
        // 10-15 % faster). Other rows keep the 32-byte moves: 64-byte ones
        // straddling lines lost 4-12 % (WRF_y, rows 208 bytes apart).
        if (!((reinterpret_cast<uintptr_t>(t) | reinterpret_cast<uintptr_t>(p) | stride | n) & 63)) {
            int64_t i = 0;
            if constexpr (D == dir::unpack) {
                // Whole lines written at a stride: ask for the lines
                // lines_ahead blocks on (vector_b16 unpack 39.9 -> 44 GB/s,
                // level with Open MPI's memcpy per block, which it had
                // trailed by 3-5 %). For every block length this cost up to
                // 22 % on blocks of 8-40 bytes.
                for (; i + lines_ahead < cnt; ++i, t += stride, p += n) {
                    __builtin_prefetch(t + lines_ahead * stride, 1, 3);
                    blk<D, len_lines>(t, p, n);
                }
            }
#pragma GCC unroll 4
            for (; i < cnt; ++i, t += stride, p += n) blk<D, len_lines>(t, p, n);
            return;
        }
    }
    // Unrolled: short blocks are bound by loop overhead, not by the moves.
#pragma GCC unroll 4
    for (int64_t i = 0; i < cnt; ++i, t += stride, p += n) blk<D, Len>(t, p, n);
}

// VECTOR of VECTOR FINAL in one body: the outer node's disps points at the
// inner node (set at commit), so a 2-D face costs no call per row.
template <dir D, class Len>
void vec2_kernel(const node& nd, char* t, char* p) {
    const node& c = *static_cast<const node*>(nd.disps);
    const int64_t n = Len::n(c.blen), inner = c.count, cs = c.stride, os = nd.stride, outer = nd.count;
    t += c.disp;
    int64_t i = 0;
    if constexpr (Len::group > 1) {
        // A transpose (FFT receive): consecutive outer copies read adjacent
        // blocks of the same rows. Walking G of them together reads each row's
        // cache line once instead of G times (measured 4.6x on 16-byte
        // blocks at a 4 KiB stride) and writes G packed planes; the packed
        // stream is the same, only the order of the stores changes.
        if (os == n) {
            constexpr int64_t G = Len::group;
            const int64_t plane = inner * n;
            // Pack reads one line per row. When rows are 8 KiB or more apart
            // the hardware prefetchers miss them: ask for the row
            // prefetch_rows ahead (FFT2 receive, N = 1024 and 1536: about 2x
            // and 1.5x; N = 768 no longer drops to 4-7 GB/s in some runs).
            // At N = 256 (4 KiB rows) the prefetch cost 17 %, and unpack,
            // which writes those rows, was slower with it.
            constexpr int64_t ahead = D == dir::pack ? prefetch_rows : 0;
            const int64_t ahead_end = cs >= prefetch_stride && inner > ahead ? inner - ahead : 0;
            for (; i + G <= outer; i += G, t += G * os, p += G * plane) {
                char* s = t;
                char* q = p;
                int64_t j = 0;
                if constexpr (ahead > 0) {
                    for (; j < ahead_end; ++j, s += cs, q += n) {
                        __builtin_prefetch(s + ahead * cs, 0, 3);
                        for (int64_t g = 0; g < G; ++g) blk<D, Len>(s + g * n, q + g * plane, n);
                    }
                }
                for (; j < inner; ++j, s += cs, q += n)
                    for (int64_t g = 0; g < G; ++g) blk<D, Len>(s + g * n, q + g * plane, n);
            }
        }
    }
    for (; i < outer; ++i, t += os) {
        char* s = t;
#pragma GCC unroll 4
        for (int64_t j = 0; j < inner; ++j, s += cs, p += n) blk<D, Len>(s, p, n);
    }
}

// Far: the blocks spread over far_span bytes or more (chosen at commit), so
// they mostly miss L2 and nothing predicts the next address but the list;
// pack asks for the block prefetch_blocks ahead (SPECFEM3D_cm/177672: 5-6
// -> 7-11 GB/s in runs where it was slow without, level where it was not).
// Where they fit in L2 (SPECFEM3D_oc, LAMMPS) the prefetch cost 10-25 %,
// and unpack did not gain from it, so unpack tables hold the plain kernel.
template <dir D, class Len, class Disp, bool Far = false>
void blk_kernel(const node& nd, char* t, char* p) {
    const int64_t n = Len::n(nd.blen), cnt = nd.count;
    const Disp* __restrict d = static_cast<const Disp*>(nd.disps);
    int64_t i = 0;
    if constexpr (Far) {
#pragma GCC unroll 4
        for (; i + prefetch_blocks < cnt; ++i, p += n) {
            __builtin_prefetch(t + d[i + prefetch_blocks], 0, 3);
            blk<D, Len>(t + d[i], p, n);
        }
    }
#pragma GCC unroll 4
    for (; i < cnt; ++i, p += n) blk<D, Len>(t + d[i], p, n);
}

template <dir D, class Disp>
void idx_kernel(const node& nd, char* t, char* p) {
    const Disp* __restrict d = static_cast<const Disp*>(nd.disps);
    const int64_t* __restrict pre = nd.prefix;
    for (int64_t i = 0; i < nd.count; ++i) {
        const int64_t n = pre[i + 1] - pre[i];
        move_any<D>(t + d[i], p, n);
        p += n;
    }
}

template <dir D, template <dir, class> class K, size_t... I>
constexpr void fill_len(kernel_fn* out, std::index_sequence<I...>) {
    ((out[I] = &K<D, len_fixed<fixed_len[I]>>::run), ...);
}

template <dir D, class Len>
struct vec_k {
    static void run(const node& n, char* t, char* p) { vec_kernel<D, Len>(n, t, p); }
};
template <dir D, class Len>
struct vec2_k {
    static void run(const node& n, char* t, char* p) { vec2_kernel<D, Len>(n, t, p); }
};
template <dir D, class Len>
struct blk32_k {
    static void run(const node& n, char* t, char* p) { blk_kernel<D, Len, int32_t>(n, t, p); }
};
template <dir D, class Len>
struct blk64_k {
    static void run(const node& n, char* t, char* p) { blk_kernel<D, Len, int64_t>(n, t, p); }
};
template <dir D, class Len>
struct blk32far_k {
    static void run(const node& n, char* t, char* p) { blk_kernel<D, Len, int32_t, true>(n, t, p); }
};
template <dir D, class Len>
struct blk64far_k {
    static void run(const node& n, char* t, char* p) { blk_kernel<D, Len, int64_t, true>(n, t, p); }
};

template <dir D, template <dir, class> class K>
constexpr void fill_family(kernel_fn* out) {
    fill_len<D, K>(out, std::make_index_sequence<n_fixed>{});
    out[cls_short] = &K<D, len_short>::run;
    out[cls_medium] = &K<D, len_medium>::run;
    out[cls_big] = &K<D, len_big>::run;
    out[cls_long] = &K<D, len_long>::run;
}

template <dir D>
constexpr std::array<kernel_fn, n_kernels> make_table() {
    std::array<kernel_fn, n_kernels> t{};
    fill_family<D, vec_k>(&t[first_vec]);
    fill_family<D, blk32_k>(&t[first_blk32]);
    t[idx32_kernel] = &idx_kernel<D, int32_t>;
    t[idx64_kernel] = &idx_kernel<D, int64_t>;
    if constexpr (D == dir::pack) {
        fill_family<D, blk32far_k>(&t[first_far32]);
        fill_family<D, blk64far_k>(&t[first_far64]);
    } else {
        fill_family<D, blk32_k>(&t[first_far32]);
        fill_family<D, blk64_k>(&t[first_far64]);
    }
    fill_family<D, vec2_k>(&t[first_nested_kernel]);
    return t;
}

}  // namespace
}  // namespace ch4lite::dame
