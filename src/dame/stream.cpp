// SPDX-License-Identifier: MIT
// Streaming moves (stream.hpp).
#include "dame/stream.hpp"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>

#include "dame/kernels.hpp"
#include "util/env.hpp"
#include "util/stream_copy.hpp"

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
    if (v <= 0 || !util::stream_copy_streams) return never;
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

// The 16-byte loop with CH4LITE_DAME_ISA=base (as for the kernels), so
// that the unit tests run both.
void copy_nt(char* d, const char* s, int64_t n) noexcept {
    auto* to = reinterpret_cast<std::byte*>(d);
    const auto* from = reinterpret_cast<const std::byte*>(s);
    if (isa_forced_base()) util::stream_copy(to, from, static_cast<size_t>(n));
    else util::stream_copy_wide(to, from, static_cast<size_t>(n));
}

}  // namespace ch4lite::dame
