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
// 32-byte moves, explicit: GCC turns a loop of fixed-size memcpys of this
// file into `rep movsq` or a memcpy call.
[[gnu::always_inline]] inline void move32(char* d, const char* s) noexcept {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(d),
                        _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s)));
}
[[gnu::always_inline]] inline void move128(char* d, const char* s) noexcept {
    const __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s));
    const __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s + 32));
    const __m256i c = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s + 64));
    const __m256i e = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s + 96));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(d), a);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(d + 32), b);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(d + 64), c);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(d + 96), e);
}
}  // namespace

// Below 16 KiB the 128-byte loop beats memcpy, which turns to `rep movsb`
// from 2112 bytes on this VM: one move of 4096 bytes through MPI_Pack took
// 36 ns against 46 with memcpy, 8192 bytes 71 against 81; 480 bytes
// 6.5-7.1 against 6.8-7.4. From 64 KiB both are level.
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
        move32(d, s);
        move32(d + n - 32, s + n - 32);
    } else if (n <= 128) {
        move32(d, s);
        move32(d + 32, s + 32);
        move32(d + n - 64, s + n - 64);
        move32(d + n - 32, s + n - 32);
    } else if (n < loop_end) {
        // 128-byte steps, then the last 128 bytes, which may overlap the
        // step before (rewriting the same bytes)
        for (int64_t i = 0; i + 128 < n; i += 128) move128(d + i, s + i);
        move128(d + n - 128, s + n - 128);
    } else {
        std::memcpy(d, s, static_cast<size_t>(n));
    }
    return 0;
}
}  // namespace ch4lite::dame
#endif
