// SPDX-License-Identifier: MIT
// Copies with non-temporal (streaming) stores, which write to memory without
// first reading the destination lines into the cache. The caller fences
// (stream_fence) before it publishes the bytes with a release store.
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>

#if defined(__x86_64__)
#include <emmintrin.h>
#endif

namespace ch4lite::util {

// Whether stream_copy really streams here (elsewhere it is a memcpy).
#if defined(__x86_64__)
inline constexpr bool stream_copy_streams = true;
#else
inline constexpr bool stream_copy_streams = false;
#endif

// 16-byte streaming stores (x86: movntdq; other targets: memcpy). The shm
// rings copy into their data chunks this way: the sender does not first take
// the lines the receiver still holds from the ring's last lap, and the
// receiver then reads them from memory instead of from the sender's cache
// (docs/shm-protocols.md, "The eager limit and the vCPU placement").
inline void stream_copy(std::byte* dst, const std::byte* src, std::size_t n) noexcept {
#if defined(__x86_64__)
    std::size_t i = 0;
    const std::size_t head = (16 - (reinterpret_cast<uintptr_t>(dst) & 15)) & 15;
    if (head) {
        std::memcpy(dst, src, std::min(head, n));
        i = std::min(head, n);
    }
    for (; i + 64 <= n; i += 64) {
        const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i));
        const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i + 16));
        const __m128i c = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i + 32));
        const __m128i d = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i + 48));
        _mm_stream_si128(reinterpret_cast<__m128i*>(dst + i), a);
        _mm_stream_si128(reinterpret_cast<__m128i*>(dst + i + 16), b);
        _mm_stream_si128(reinterpret_cast<__m128i*>(dst + i + 32), c);
        _mm_stream_si128(reinterpret_cast<__m128i*>(dst + i + 48), d);
    }
    if (i < n) std::memcpy(dst + i, src + i, n - i);
#else
    std::memcpy(dst, src, n);
#endif
}

// Orders streamed (non-temporal) stores before the release store that
// publishes them; nothing to do where stream_copy is a memcpy.
inline void stream_fence() noexcept {
#if defined(__x86_64__)
    _mm_sfence();
#endif
}

// 32-byte streaming stores where the CPU has AVX2, else stream_copy. DAME's
// streaming moves (docs/dame-programs.md): copying 12 KiB blocks of a 19 MB pack
// (FFT2_send/1536) on the development VM's Zen 4, this ran at 16-26 GB/s,
// 16-byte stores at 12-19 and memcpy at 16-17.
void stream_copy_wide(std::byte* dst, const std::byte* src, std::size_t n) noexcept;

}  // namespace ch4lite::util
