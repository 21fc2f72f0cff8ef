// SPDX-License-Identifier: MIT
// 32-byte streaming stores (stream_copy.hpp), picked at load when the CPU
// has AVX2.
#include "util/stream_copy.hpp"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace ch4lite::util {
namespace {

#if defined(__x86_64__)
// Like stream_copy, 32 bytes per store, two cache lines per step.
[[gnu::target("avx2")]] void stream_avx2(std::byte* dst, const std::byte* src, std::size_t n) noexcept {
    const std::size_t head = std::min(n, (32 - (reinterpret_cast<uintptr_t>(dst) & 31)) & 31);
    std::memcpy(dst, src, head);
    std::size_t i = head;
    for (; i + 128 <= n; i += 128) {
        const __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + i));
        const __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + i + 32));
        const __m256i c = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + i + 64));
        const __m256i d = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + i + 96));
        _mm256_stream_si256(reinterpret_cast<__m256i*>(dst + i), a);
        _mm256_stream_si256(reinterpret_cast<__m256i*>(dst + i + 32), b);
        _mm256_stream_si256(reinterpret_cast<__m256i*>(dst + i + 64), c);
        _mm256_stream_si256(reinterpret_cast<__m256i*>(dst + i + 96), d);
    }
    std::memcpy(dst + i, src + i, n - i);
}

using copy_fn = void (*)(std::byte*, const std::byte*, std::size_t) noexcept;
copy_fn pick() noexcept {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") ? stream_avx2 : stream_copy;
}
const copy_fn g_wide = pick();
#endif

}  // namespace

void stream_copy_wide(std::byte* dst, const std::byte* src, std::size_t n) noexcept {
#if defined(__x86_64__)
    g_wide(dst, src, n);
#else
    stream_copy(dst, src, n);
#endif
}

}  // namespace ch4lite::util
