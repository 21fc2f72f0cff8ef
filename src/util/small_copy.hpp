// SPDX-License-Identifier: MIT
// Copies of a few dozen bytes without a libc call, for the hot paths that
// move tiny payloads (shm cells, fine-grained RMA): each size class is two
// (possibly overlapping) loads, then two stores; above 64 bytes, memcpy.
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

[[gnu::always_inline]] inline void small_copy(void* dst, const void* src, std::size_t n) noexcept {
    auto* d = static_cast<std::byte*>(dst);
    const auto* s = static_cast<const std::byte*>(src);
    if (n > 64) {
        std::memcpy(d, s, n);
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
