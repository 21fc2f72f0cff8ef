// SPDX-License-Identifier: MIT
#include "device/context_id.hpp"

#include <bit>
#include <cstring>

#include "dame/type.hpp"
#include "device/coll.hpp"

namespace ch4lite::dev {

namespace {
constexpr int words = max_context_ids / 64;
constexpr int first_words = 8;
uint64_t g_mask[words];
int g_allocating = 0;  // context_id_allocate calls in progress
}  // namespace

void context_ids_init() noexcept {
    std::memset(g_mask, 0xff, sizeof g_mask);
    g_mask[0] &= ~uint64_t{3};
    // The last id is reserved: its collective context (0xffff) carries the
    // device's direct tagged data of large native messages (typed.hpp).
    g_mask[words - 1] &= ~(uint64_t{1} << 63);
}

status context_id_allocate(comm& parent, uint32_t& id, bool offer) noexcept {
    reduction band;
    band.id = op_id::band;
    band.t = dame::predefined_type(reinterpret_cast<uintptr_t>(MPI_UINT64_T));
    band.dt = MPI_UINT64_T;
    band.elem = sizeof(uint64_t);
    // Most programs keep few communicators: agree on the first 512 ids
    // (64 bytes) and look at the whole mask only when those are all taken.
    // Every member sees the same result, so all take the same branch.
    static constexpr uint64_t none[words] = {};
    uint64_t common[words];
    ++g_allocating;
    struct done {
        ~done() { --g_allocating; }
    } on_exit;
    for (int n : {first_words, words}) {
        const uint64_t* mine = offer ? g_mask : none;
        if (const status s = coll_allreduce(mine, common, n, band, parent); s != status::ok)
            return s;
        for (int w = 0; w < n; ++w) {
            if (!common[w]) continue;
            const int bit = std::countr_zero(common[w]);
            g_mask[w] &= ~(uint64_t{1} << bit);
            id = static_cast<uint32_t>(w * 64 + bit);
            return status::ok;
        }
    }
    return status::exhausted;
}

void context_id_release(uint32_t id) noexcept {
    if (id >= 2 && id < max_context_ids - 1) g_mask[id / 64] |= uint64_t{1} << (id % 64);
}

bool context_stale(uint32_t ctx) noexcept {
    const uint32_t id = ctx >> 1;
    return g_allocating == 0 && id < max_context_ids && (g_mask[id / 64] >> (id % 64) & 1);
}

int context_ids_free() noexcept {
    int n = 0;
    for (uint64_t w : g_mask) n += std::popcount(w);
    return n;
}

}  // namespace ch4lite::dev
