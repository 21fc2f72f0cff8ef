// SPDX-License-Identifier: MIT
// Streaming moves (stream.hpp).
#include "dame/stream.hpp"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>

#include "util/env.hpp"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define CH4LITE_DAME_NT 1
#else
#define CH4LITE_DAME_NT 0
#endif

namespace ch4lite::dame {
namespace {

// Bytes of the last-level cache of CPU 0 from sysfs, 0 if unknown. (glibc's
// sysconf(_SC_LEVEL3_CACHE_SIZE) reads cpuid, which a VM may report wrong:
// 320 MiB on the development VM, whose sysfs and lscpu say 32 MiB.)
int64_t last_level_cache() noexcept {
    int64_t best = 0;
    int best_level = 0;
    for (int i = 0; i < 16; ++i) {
        char path[96], text[32];
        auto read = [&](const char* leaf) {
            std::snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/%s", i, leaf);
            std::FILE* f = std::fopen(path, "r");
            if (!f) return false;
            const bool ok = std::fgets(text, sizeof text, f) != nullptr;
            std::fclose(f);
            return ok;
        };
        if (!read("level")) break;
        const int level = std::atoi(text);
        if (!read("type") || std::strncmp(text, "Instruction", 11) == 0) continue;
        if (!read("size")) continue;
        char* end = nullptr;
        int64_t size = std::strtoll(text, &end, 10);
        if (end && (*end == 'K' || *end == 'k')) size <<= 10;
        else if (end && (*end == 'M' || *end == 'm')) size <<= 20;
        if (size > 0 && level >= best_level) best = size, best_level = level;
    }
    return best;
}

constexpr int64_t never = std::numeric_limits<int64_t>::max();

int64_t clamp_min(int64_t v) noexcept {
    if (v <= 0 || !CH4LITE_DAME_NT) return never;
    return v < stream_floor ? stream_floor : v;
}

int64_t default_stream_min() noexcept {
    int64_t llc = last_level_cache();
    if (llc <= 0) llc = int64_t{32} << 20;
    return clamp_min(util::env_int("CH4LITE_DAME_STREAM_MIN", llc / 2));
}

std::atomic<int64_t> g_min{-1};  // -1: not read yet
std::atomic<int64_t> g_moves{0};

}  // namespace

int64_t stream_min() noexcept {
    int64_t v = g_min.load(std::memory_order_relaxed);
    if (v < 0) {
        v = default_stream_min();
        g_min.store(v, std::memory_order_relaxed);
    }
    return v;
}

void set_stream_min(int64_t bytes) noexcept {
    g_min.store(bytes < 0 ? -1 : clamp_min(bytes), std::memory_order_relaxed);
}

int64_t stream_moves() noexcept { return g_moves.load(std::memory_order_relaxed); }
void count_stream_move() noexcept { g_moves.fetch_add(1, std::memory_order_relaxed); }

namespace {
#if CH4LITE_DAME_NT
// The body of d (from its first 16-byte boundary) with non-temporal stores,
// two cache lines per iteration; no fence. AVX2 when the CPU has it: with
// 16-byte stores the same loop ran at 12-19 GB/s against 16-26 (32-byte) on
// the development VM's Zen 4, copying 12 KiB blocks of 19 MB
// (FFT2_send/1536), where memcpy ran at 16-17.
[[gnu::target("avx2")]] void nt_avx2(char* d, const char* s, int64_t n) noexcept {
    const int64_t head = std::min<int64_t>(n, (32 - (reinterpret_cast<uintptr_t>(d) & 31)) & 31);
    std::memcpy(d, s, static_cast<size_t>(head));
    d += head, s += head, n -= head;
    int64_t i = 0;
    for (; i + 128 <= n; i += 128) {
        const __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s + i));
        const __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s + i + 32));
        const __m256i c = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s + i + 64));
        const __m256i e = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s + i + 96));
        _mm256_stream_si256(reinterpret_cast<__m256i*>(d + i), a);
        _mm256_stream_si256(reinterpret_cast<__m256i*>(d + i + 32), b);
        _mm256_stream_si256(reinterpret_cast<__m256i*>(d + i + 64), c);
        _mm256_stream_si256(reinterpret_cast<__m256i*>(d + i + 96), e);
    }
    std::memcpy(d + i, s + i, static_cast<size_t>(n - i));
}
void nt_sse2(char* d, const char* s, int64_t n) noexcept {
    const int64_t head = std::min<int64_t>(n, (16 - (reinterpret_cast<uintptr_t>(d) & 15)) & 15);
    std::memcpy(d, s, static_cast<size_t>(head));
    d += head, s += head, n -= head;
    int64_t i = 0;
    for (; i + 64 <= n; i += 64) {
        const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i));
        const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i + 16));
        const __m128i c = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i + 32));
        const __m128i e = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i + 48));
        _mm_stream_si128(reinterpret_cast<__m128i*>(d + i), a);
        _mm_stream_si128(reinterpret_cast<__m128i*>(d + i + 16), b);
        _mm_stream_si128(reinterpret_cast<__m128i*>(d + i + 32), c);
        _mm_stream_si128(reinterpret_cast<__m128i*>(d + i + 48), e);
    }
    std::memcpy(d + i, s + i, static_cast<size_t>(n - i));
}
using nt_fn = void (*)(char*, const char*, int64_t) noexcept;
// CH4LITE_DAME_ISA=base (as for the kernels) takes the SSE2 loop, so that
// the unit tests run both.
nt_fn pick_nt() noexcept {
    const char* e = std::getenv("CH4LITE_DAME_ISA");
    if (e && std::strcmp(e, "base") == 0) return nt_sse2;
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") ? nt_avx2 : nt_sse2;
}
#endif
}  // namespace

void copy_nt(char* d, const char* s, int64_t n) noexcept {
#if CH4LITE_DAME_NT
    static const nt_fn f = pick_nt();
    f(d, s, n);
#else
    std::memcpy(d, s, static_cast<size_t>(n));
#endif
}

void stream_fence() noexcept {
#if CH4LITE_DAME_NT
    _mm_sfence();
#endif
}

}  // namespace ch4lite::dame
