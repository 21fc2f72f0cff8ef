// SPDX-License-Identifier: MIT
// Block copies for the move kernels, all always inlined (kernels_impl.hpp is
// compiled for two instruction sets). Fixed lengths compile to plain loads
// and stores; short variable lengths use two overlapping moves of the next
// power of two (no call, no byte loop); only long blocks call memcpy (seed
// 000: "memcpy is not always faster than a simple loop").
#pragma once
#include <cstdint>
#include <cstring>

#include "util/small_copy.hpp"

namespace ch4lite::dame {

enum class dir { pack, unpack };

// One copy of a variable length: from here on memcpy wins (measured,
// docs/results/dame.md; a single 480-byte block: 43 GB/s against 36 with the
// 32-byte loop of copy_short).
constexpr int64_t long_block = 256;
// A kernel's loop over many blocks of one length copies them inline from
// long_block up to big_end bytes (copy_medium, then from big_begin
// copy_big) and calls memcpy only for longer ones. There the call and
// memcpy's dispatch on the size (`rep movsb` from 2112 bytes on this VM) cost
// more than the moves: NAS_MG_y/34 and NAS_MG_z/34 (256-byte blocks) pack
// 1.1-1.2x, unpack 1.2-1.3x faster; NAS_MG_z/514 (4 KiB blocks) pack 1.12x;
// FFT2_send/512 (4 KiB) 1.08x. copy_big's line-aligned stores took
// NAS_MG_z/514 unpack (blocks 16 bytes off the line) from 44 to 47 GB/s;
// on 256-byte blocks its extra moves cost 10-30 %. Above 8 KiB too: blocks
// of 8-256 KiB at twice their length apart (4-8 MiB packed, in L3) packed
// 1.05-1.2x faster than with memcpy per block, unpacked 1.0-1.07x, and a
// typed side 8 bytes off the line unpacked 64 KiB blocks 2x faster; from
// 1 MiB, where the blocks come from memory, both are level.
constexpr int64_t big_begin = 1024, big_end = int64_t{1} << 20;

template <int64_t L>
[[gnu::always_inline]] inline void copy_fixed(char* __restrict d, const char* __restrict s) {
    std::memcpy(d, s, L);
}

[[gnu::always_inline]] inline void copy_short(char* __restrict d, const char* __restrict s,
                                              int64_t n) {
    if (n >= 32) {
        int64_t i = 0;
        for (; i + 32 <= n; i += 32) copy_fixed<32>(d + i, s + i);
        if (i < n) copy_fixed<32>(d + n - 32, s + n - 32);
    } else if (n >= 16) {
        copy_fixed<16>(d, s);
        copy_fixed<16>(d + n - 16, s + n - 16);
    } else if (n >= 8) {
        copy_fixed<8>(d, s);
        copy_fixed<8>(d + n - 8, s + n - 8);
    } else if (n >= 4) {
        copy_fixed<4>(d, s);
        copy_fixed<4>(d + n - 4, s + n - 4);
    } else if (n >= 2) {
        copy_fixed<2>(d, s);
        copy_fixed<2>(d + n - 2, s + n - 2);
    } else if (n == 1) {
        *d = *s;
    }
}

// Blocks of long_block to big_begin bytes: 128-byte steps, then 32-byte
// steps and an overlapping last move; n >= 32.
[[gnu::always_inline]] inline void copy_medium(char* __restrict d, const char* __restrict s,
                                               int64_t n) {
    int64_t i = 0;
    for (; i + 128 <= n; i += 128) copy_fixed<128>(d + i, s + i);
    for (; i + 32 <= n; i += 32) copy_fixed<32>(d + i, s + i);
    if (i < n) copy_fixed<32>(d + n - 32, s + n - 32);
}

// Blocks of big_begin to big_end bytes: one 64-byte move, then 128-byte
// steps from d's first 64-byte boundary, so that no store straddles a cache
// line, then one or two 64-byte moves that end at the last byte (they may
// rewrite a few bytes); n >= 128.
[[gnu::always_inline]] inline void copy_big(char* __restrict d, const char* __restrict s, int64_t n) {
    copy_fixed<64>(d, s);
    int64_t i = 64 - static_cast<int64_t>(reinterpret_cast<uintptr_t>(d) & 63);
    for (; i + 128 <= n; i += 128) copy_fixed<128>(d + i, s + i);
    if (n - i > 64) copy_fixed<64>(d + i, s + i);
    copy_fixed<64>(d + n - 64, s + n - 64);
}

// A move from big_begin bytes whose destination lies 1-63 bytes after its
// source modulo 4096 (util::short_distance: there memcpy's `rep movsb`
// runs at 2-3 GB/s) takes copy_big, 24-29 GB/s: an unpack into a typed
// buffer 8 bytes past where the packed one sits in its page,
// bench/dame/blocks.c rows "+8". The test costs a subtraction per long move.
using util::short_distance;

[[gnu::always_inline]] inline void copy_any(char* __restrict d, const char* __restrict s,
                                            int64_t n) {
    if (n < long_block) copy_short(d, s, n);
    else if (n >= big_begin && short_distance(d, s)) copy_big(d, s, n);
    else std::memcpy(d, s, static_cast<size_t>(n));
}

// Direction-aware: typed memory <-> packed stream.
template <dir D>
[[gnu::always_inline]] inline void move_any(char* typed, char* packed, int64_t n) {
    if constexpr (D == dir::pack) copy_any(packed, typed, n);
    else copy_any(typed, packed, n);
}

}  // namespace ch4lite::dame
