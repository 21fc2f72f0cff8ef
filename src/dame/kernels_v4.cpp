// SPDX-License-Identifier: MIT
// The kernels of kernels_impl.hpp compiled for x86-64-v4 (AVX-512; the
// build passes -march=x86-64-v4 for this file only). kernels.cpp installs
// them at start-up when the CPU has that level, with v4_copy_one as
// dame::copy_one.
#include "dame/kernels_impl.hpp"

#if CH4LITE_DAME_HAVE_V4
#include <immintrin.h>

namespace ch4lite::dame {
constinit const std::array<kernel_fn, n_kernels> v4_pack_kernels = make_table<dir::pack>();
constinit const std::array<kernel_fn, n_kernels> v4_unpack_kernels = make_table<dir::unpack>();

namespace {
// 32-byte vectors, explicit: GCC turns a loop of fixed-size memcpys of this
// file into `rep movsq` or a memcpy call.
[[gnu::always_inline]] inline __m256i load32(const char* s) noexcept {
    return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s));
}
[[gnu::always_inline]] inline void store32(char* d, __m256i v) noexcept {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(d), v);
}
}  // namespace

// Below 16 KiB the 128-byte loop beats memcpy, which turns to `rep movsb`
// from 2112 bytes on this VM: one move of 4096 bytes through MPI_Pack took
// 36 ns against 46 with memcpy, 8192 bytes 71 against 81; 480 bytes
// 6.5-7.1 against 6.8-7.4. From 64 KiB both are level. The vectors that
// end at the last byte are loaded before anything is stored, as memcpy
// does, so they need not wait behind the stores: 1320 bytes 13.9 -> 13.4
// ns, 200 bytes 5.1-5.2 -> 4.9.
int v4_copy_one(char* __restrict d, const char* __restrict s, int64_t n) noexcept {
    constexpr int64_t loop_end = 16 << 10;
    if (n <= 32) {
        if (n >= 16) {
            copy_fixed<16>(d, s);
            copy_fixed<16>(d + n - 16, s + n - 16);
        } else {
            copy_short(d, s, n);
        }
    } else if (n <= 64) {
        const __m256i a = load32(s), z = load32(s + n - 32);
        store32(d, a);
        store32(d + n - 32, z);
    } else if (n <= 128) {
        const __m256i a = load32(s), b = load32(s + 32), y = load32(s + n - 64), z = load32(s + n - 32);
        store32(d, a);
        store32(d + 32, b);
        store32(d + n - 64, y);
        store32(d + n - 32, z);
    } else if (n < loop_end) {
        // 128-byte steps, then the last 128 bytes, which may overlap the
        // step before (rewriting the same bytes)
        const char* const te = s + n;
        const __m256i w = load32(te - 128), x = load32(te - 96), y = load32(te - 64), z = load32(te - 32);
        for (int64_t i = 0; i + 128 < n; i += 128) {
            const __m256i a = load32(s + i), b = load32(s + i + 32), c = load32(s + i + 64),
                          e = load32(s + i + 96);
            store32(d + i, a);
            store32(d + i + 32, b);
            store32(d + i + 64, c);
            store32(d + i + 96, e);
        }
        char* const de = d + n;
        store32(de - 128, w);
        store32(de - 96, x);
        store32(de - 64, y);
        store32(de - 32, z);
    } else {
        std::memcpy(d, s, static_cast<size_t>(n));
    }
    return 0;
}
}  // namespace ch4lite::dame
#endif
