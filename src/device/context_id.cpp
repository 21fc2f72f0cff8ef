// SPDX-License-Identifier: MIT
#include "device/context_id.hpp"

#include <bit>
#include <cstring>

#include "dame/type.hpp"
#include "coll/coll.hpp"
#include "device/device.hpp"

namespace ch4lite::dev {

namespace {
constexpr int words = max_context_ids / 64;
constexpr int first_words = 8;
uint64_t g_mask[words];
int g_offers = 0;  // blocking agreements waiting for their AND (offer_scope)
}  // namespace

offer_scope::offer_scope() noexcept { ++g_offers; }
offer_scope::~offer_scope() { --g_offers; }
bool context_id_offers_pending() noexcept { return g_offers > 0; }

bool context_id_reserve(uint32_t id) noexcept {
    if (id >= max_context_ids) return false;
    const uint64_t bit = uint64_t{1} << (id % 64);
    if (!(g_mask[id / 64] & bit)) return false;
    g_mask[id / 64] &= ~bit;
    return true;
}

void context_ids_init() noexcept {
    std::memset(g_mask, 0xff, sizeof g_mask);
    g_mask[0] &= ~uint64_t{0xf};  // world, self, the bridges
    // The last id is reserved: its collective context (0xffff) carries the
    // device's direct tagged data of large native messages (typed.hpp).
    g_mask[words - 1] &= ~(uint64_t{1} << 63);
}

status context_id_allocate(comm& parent, uint32_t& id, bool offer) noexcept {
    coll::reduction band;
    band.id = op_id::band;
    band.t = dame::predefined_type(reinterpret_cast<uintptr_t>(MPI_UINT64_T));
    band.dt = MPI_UINT64_T;
    band.elem = sizeof(uint64_t);
    // Most programs keep few communicators: agree on the first 512 ids
    // (64 bytes) and look at the whole mask only when those are all taken.
    // Every member sees the same result, so all take the same branch.
    static constexpr uint64_t none[words] = {};
    uint64_t common[words];
    const offer_scope busy;  // a nonblocking agreement must not take what we offer
    for (int n : {first_words, words}) {
        const uint64_t* mine = offer ? g_mask : none;
        if (const status s = coll::allreduce(mine, common, n, band, parent); s != status::ok)
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
    if (id >= 4 && id < max_context_ids - 1) g_mask[id / 64] |= uint64_t{1} << (id % 64);
}

void context_id_mask(uint64_t* out, int words, bool offer) noexcept {
    for (int w = 0; w < words; ++w) out[w] = offer ? g_mask[w] : 0;
}

bool context_id_take(const uint64_t* common, int words, uint32_t* ids, int n) noexcept {
    int found = 0;
    for (int w = 0; w < words && found < n; ++w)
        for (uint64_t m = common[w]; m && found < n; m &= m - 1)
            ids[found++] = static_cast<uint32_t>(w * 64 + std::countr_zero(m));
    if (found < n) return false;
    for (int i = 0; i < n; ++i) g_mask[ids[i] / 64] &= ~(uint64_t{1} << (ids[i] % 64));
    return true;
}

bool context_stale(uint32_t ctx) noexcept {
    const uint32_t id = ctx >> 1;
    // A blocking allocation in progress (offer_scope) or a nonblocking one
    // (MPI_Comm_idup's agreement runs as a collective schedule) may be about
    // to take the id while peers that finished it already send on it.
    return g_offers == 0 && g_dev.sched_active == 0 && id < max_context_ids && (g_mask[id / 64] >> (id % 64) & 1);
}

int context_ids_free() noexcept {
    int n = 0;
    for (uint64_t w : g_mask) n += std::popcount(w);
    return n;
}

}  // namespace ch4lite::dev
