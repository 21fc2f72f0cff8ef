// SPDX-License-Identifier: MIT
#include "device/context_id.hpp"

#include <bit>
#include <cstring>

#include "dame/type.hpp"
#include "coll/coll.hpp"
#include "device/device.hpp"
#include "device/progress.hpp"
#include "util/api_lock.hpp"

namespace ch4lite::dev {

namespace {
constexpr int words = max_context_ids / 64;
constexpr int first_words = 8;
uint64_t g_mask[words];
int g_offers = 0;  // blocking agreements waiting for their AND (offer_scope)

// MPI_THREAD_MULTIPLE (offer_scope): the eager ids (the first word) and
// whether an agreement's first attempt holds them; the keys of the
// agreements past their first attempt, and whether one of them holds the
// rest of the mask for its current attempt.
constexpr int eager_words = 1;
bool g_eager_held = false;
uint64_t g_keys[64];
int g_nkeys = 0;
bool g_mask_held = false;

}  // namespace

offer_scope::offer_scope(uint64_t key, int need) noexcept
    : key_(key), need_(need), eager_phase_(util::g_thread_multiple) {
    ++g_offers;
}

offer_scope::~offer_scope() {
    --g_offers;
    if (!util::g_thread_multiple) return;
    if (turn_) g_mask_held = false;
    if (eager_) g_eager_held = false;
    if (!registered_) return;
    for (int i = 0; i < g_nkeys; ++i)
        if (g_keys[i] == key_) {
            g_keys[i] = g_keys[--g_nkeys];
            break;
        }
}

void offer_scope::enter_turns() noexcept {
    // More than 64 threads agreeing at once: the others wait for a slot.
    while (g_nkeys == 64) {
        unsigned idle = 0;
        (void)progress();
        idle_step(idle);
    }
    g_keys[g_nkeys++] = key_;
    registered_ = true;
}

void offer_scope::fill(uint64_t* out, int words, bool offer) noexcept {
    if (eager_phase_) {
        // First attempt under MULTIPLE: the eager ids, if no other first
        // attempt here holds them; no turns. The turn word is unused.
        eager_ = offer && !g_eager_held;
        if (eager_) g_eager_held = true;
        for (int w = 0; w < words; ++w) out[w] = eager_ && w < eager_words ? g_mask[w] : 0;
        out[words] = ~uint64_t{0};
        return;
    }
    turn_ = true;
    if (util::g_thread_multiple) {
        for (int i = 0; i < g_nkeys; ++i)
            if (g_keys[i] < key_) turn_ = false;
        if (g_mask_held) turn_ = false;
        if (turn_) g_mask_held = true;
    }
    // Under MULTIPLE the eager ids are only ever offered by first attempts.
    const int from = util::g_thread_multiple ? eager_words : 0;
    for (int w = 0; w < words; ++w) out[w] = offer && turn_ && w >= from ? g_mask[w] : 0;
    out[words] = turn_ ? ~uint64_t{0} : 0;
}

bool offer_scope::final(const uint64_t* common, int words) noexcept {
    if (eager_phase_) {
        if (eager_) g_eager_held = false;
        eager_ = false;
        eager_phase_ = false;
        // Every member sees the same AND, so all decide alike.
        int found = 0;
        for (int w = 0; w < words; ++w) found += std::popcount(common[w]);
        if (found >= need_) return true;
        enter_turns();
        return false;
    }
    if (turn_ && util::g_thread_multiple) g_mask_held = false;
    turn_ = false;
    if (common[words] == ~uint64_t{0}) return true;
    // Another agreement has the turn somewhere. An attempt over a group of
    // one (or whose members all answered at once) never waited, so never
    // let the other threads in: do it now, or this retry loop would spin
    // holding the lock while the agreement on turn cannot move.
    unsigned idle = 0;
    (void)progress();
    idle_step(idle);
    return false;
}

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
    uint64_t common[words + 1];
    offer_scope busy(parent.context_id);  // a nonblocking agreement must not take what we offer
    for (int n : {first_words, words}) {
        do {
            busy.fill(common, n, offer);
            if (const status s = coll::allreduce(nullptr, common, n + 1, band, parent); s != status::ok) {
                (void)busy.final(common, n);
                return s;
            }
        } while (!busy.final(common, n));
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
