// SPDX-License-Identifier: MIT
// Copies of a few dozen bytes without a libc call, for the hot paths that
// move tiny payloads (shm cells, fine-grained RMA): each size class is two
// (possibly overlapping) loads, then two stores; above 64 bytes, bulk_copy.
#pragma once
#include <cstddef>
#include <cstring>

namespace ch4lite::util {

namespace detail {
template <std::size_t K>
[[gnu::always_inline]] inline void copy_two(std::byte* d, const std::byte* s, std::size_t n) noexcept {
    struct block {
        std::byte b[K];
    };
    block a, b;
    std::memcpy(&a, s, K);
    std::memcpy(&b, s + n - K, K);
    std::memcpy(d, &a, K);
    std::memcpy(d + n - K, &b, K);
}
}  // namespace detail

// Copies between buffers another process reads or wrote (shared-memory
// payloads). glibc's memcpy (2.36) switches from its vector loop to
// `rep movsb` at 2112 bytes on CPUs with fast short rep moves, and for
// such data that ran slower here from 2.1 KiB on (a 2560-byte ping-pong
// 0.46 -> 0.34 us with glibc's threshold raised; docs/shm.md, "Copy
// routine"). So those copies, up to the 4 KiB where the rings' timed
// stores take over, go as library calls of at most 2 KiB each,
// through a pointer the compiler cannot see through: it would otherwise
// expand a call of bounded size inline as `rep movsq`.
inline constexpr std::size_t piece_copy_min = 2112, piece_copy_max = 4095, copy_piece = 2048;
void piece_copy(std::byte* d, const std::byte* s, std::size_t n) noexcept;
[[gnu::always_inline]] inline void bulk_copy(void* dst, const void* src, std::size_t n) noexcept {
    if (n >= piece_copy_min && n <= piece_copy_max)
        piece_copy(static_cast<std::byte*>(dst), static_cast<const std::byte*>(src), n);
    else
        std::memcpy(dst, src, n);
}

[[gnu::always_inline]] inline void small_copy(void* dst, const void* src, std::size_t n) noexcept {
    auto* d = static_cast<std::byte*>(dst);
    const auto* s = static_cast<const std::byte*>(src);
    if (n > 64) {
        bulk_copy(d, s, n);
    } else if (n >= 16) {
        if (n >= 32)
            detail::copy_two<32>(d, s, n);
        else
            detail::copy_two<16>(d, s, n);
    } else if (n >= 8) {
        detail::copy_two<8>(d, s, n);
    } else if (n >= 4) {
        detail::copy_two<4>(d, s, n);
    } else if (n) {  // 1..3
        const std::byte a = s[0], b = s[n / 2], c = s[n - 1];
        d[0] = a;
        d[n / 2] = b;
        d[n - 1] = c;
    }
}

}  // namespace ch4lite::util
