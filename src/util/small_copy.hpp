// SPDX-License-Identifier: MIT
// Copies of a few dozen bytes without a libc call, for the hot paths that
// move tiny payloads (shm cells, fine-grained RMA): each size class is two
// (possibly overlapping) loads, then two stores; above 64 bytes, bulk_copy.
#pragma once
#include <cstddef>
#include <cstdint>
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
// payloads: the rings' data chunks, fine-grained RMA). From backward_min
// bytes they go backward, last 128-byte block first, in 32-byte vectors
// (x86 with AVX2; docs/shm-protocols.md, "Copy routine"): with the two ranks on one
// core's two hardware threads, a forward copy into or out of a ring chunk
// ran 1.3-1.5x slower than a backward one (4 KiB ping-pong 0.43-0.59 ->
// 0.32-0.36 us). Without AVX2, copies of 2112..4095 bytes go as library
// memcpy calls of at most 2 KiB (glibc's `rep movsb` from 2112 bytes was
// slower for such data), others as one memcpy.
// The reading side (bulk_copy) copies backward only below backward_rx_max:
// larger chunks may have been written with streamed stores (the rings'
// adaptive stores) and are then read from memory, where the backward copy
// measured 10-20 % slower (8-32 KiB, slow placement). The writing side
// (shm::copy_for_reader) copies backward at every size from backward_min.
inline constexpr std::size_t backward_min = 256, backward_rx_max = 4096;
// n >= backward_min; non-overlapping buffers.
void backward_copy(std::byte* d, const std::byte* s, std::size_t n) noexcept;
// Whether dst lies 1-63 bytes after src modulo 4096. glibc's memcpy copies
// 2112 bytes to ~256 KiB with `rep movsb` on the development VM (AMD EPYC),
// and there that ran at 2-3 GB/s instead of 30-90 (measured slow at 1-31
// bytes; 0 and 32-4095 fast). A receive into a malloc()ed buffer (16 bytes
// past a page) from a page-aligned ring chunk is such a move: shm bandwidth
// 16 KiB-1 MiB 1.8-4.1 GB/s against 8.6-17.4 into a page-aligned buffer
// (docs/shm-protocols.md, "Copy routine"). The kernel's copy for process_vm_readv
// does the same, so such receives do not take the single copy
// (dev::accept_rts). bulk_copy and copy_bytes copy backward there from
// backward_min bytes (with AVX2; without it backward_copy is memcpy from
// 4 KiB); the DAME kernels inline (dame/copy.hpp).
[[gnu::always_inline]] inline bool short_distance(const void* dst, const void* src) noexcept {
    const std::uintptr_t k =
        (reinterpret_cast<std::uintptr_t>(dst) - reinterpret_cast<std::uintptr_t>(src)) & 4095;
    return k - 1 < 63;  // 1 <= k <= 63 (k = 0 wraps around)
}
// memcpy, except at a short distance (above): a payload's copy into the
// user's buffer (pipelined chunks, unexpected messages).
[[gnu::always_inline]] inline void copy_bytes(void* dst, const void* src, std::size_t n) noexcept {
    if (n >= backward_min && short_distance(dst, src))
        backward_copy(static_cast<std::byte*>(dst), static_cast<const std::byte*>(src), n);
    else
        std::memcpy(dst, src, n);
}
// A copy out of a ring chunk: backward from backward_min up to
// backward_rx_max bytes (above), then as copy_bytes.
[[gnu::always_inline]] inline void bulk_copy(void* dst, const void* src, std::size_t n) noexcept {
    if (n >= backward_min && n < backward_rx_max)
        backward_copy(static_cast<std::byte*>(dst), static_cast<const std::byte*>(src), n);
    else
        copy_bytes(dst, src, n);
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
