// SPDX-License-Identifier: MIT
// backward_copy (small_copy.hpp): the copy of shared-memory payloads from
// 256 bytes on. Picked once at load: AVX2 backward blocks, else memcpy
// (in pieces of at most 2 KiB between 2112 and 4095 bytes).
#include "util/small_copy.hpp"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace ch4lite::util {

namespace {

// memcpy as a call the compiler cannot expand inline (it would expand a
// call of bounded size as `rep movsq`).
void* (*const volatile library_memcpy)(void*, const void*, std::size_t) = std::memcpy;

void memcpy_pieces(std::byte* d, const std::byte* s, std::size_t n) noexcept {
    constexpr std::size_t piece = 2048;
    if (n < 2112 || n > 4095) {
        library_memcpy(d, s, n);
        return;
    }
    for (std::size_t off = 0; off < n; off += piece)
        library_memcpy(d + off, s + off, n - off < piece ? n - off : piece);
}

#if defined(__x86_64__)
[[gnu::target("avx2")]] inline void block128(std::byte* d, const std::byte* s) noexcept {
    const __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s));
    const __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s + 32));
    const __m256i c = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s + 64));
    const __m256i e = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s + 96));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(d), a);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(d + 32), b);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(d + 64), c);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(d + 96), e);
}

// Blocks from the end; the first block overlaps the second when n is not a
// multiple of 128 (the bytes it rewrites are the same). n >= 128.
[[gnu::target("avx2")]] void backward_avx2(std::byte* d, const std::byte* s, std::size_t n) noexcept {
    std::size_t i = n;
    while (i > 128) {
        i -= 128;
        block128(d + i, s + i);
    }
    block128(d, s);
}

using copy_fn = void (*)(std::byte*, const std::byte*, std::size_t) noexcept;
copy_fn pick() noexcept {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") ? backward_avx2 : memcpy_pieces;
}
const copy_fn g_backward = pick();
#endif

}  // namespace

void backward_copy(std::byte* d, const std::byte* s, std::size_t n) noexcept {
#if defined(__x86_64__)
    g_backward(d, s, n);
#else
    memcpy_pieces(d, s, n);
#endif
}

}  // namespace ch4lite::util
