// SPDX-License-Identifier: MIT
#include "device/attr.hpp"

#include <memory>
#include <new>

namespace ch4lite::dev {

namespace {

// Handle = base | gen << 20 | index: a stale handle of a reused slot fails
// the generation check.
constexpr int base = 1 << 30;
constexpr int gen_mask = 0x1ff;

struct slot {
    std::unique_ptr<keyval> k;
    int gen = 0;
};
std::vector<slot> g_slots;
std::vector<int> g_free;

}  // namespace

int keyval_create(const keyval& proto) noexcept {
    std::unique_ptr<keyval> k(new (std::nothrow) keyval(proto));
    if (!k) return 0;
    int idx;
    if (!g_free.empty()) {
        idx = g_free.back();
        g_free.pop_back();
    } else {
        if (g_slots.size() >= (1u << 20)) return 0;
        idx = static_cast<int>(g_slots.size());
        try {
            // g_free holds at most one entry per slot: with this reserve,
            // keyval_release never allocates.
            g_free.reserve(g_slots.size() + 1);
            g_slots.emplace_back();
        } catch (const std::bad_alloc&) {
            return 0;
        }
    }
    slot& s = g_slots[static_cast<std::size_t>(idx)];
    s.k = std::move(k);
    return base | (s.gen << 20) | idx;
}

keyval* keyval_lookup(int h) noexcept {
    if (h < base) return nullptr;
    const int idx = h & ((1 << 20) - 1), gen = (h >> 20) & gen_mask;
    if (static_cast<std::size_t>(idx) >= g_slots.size()) return nullptr;
    slot& s = g_slots[static_cast<std::size_t>(idx)];
    return s.k && s.gen == gen ? s.k.get() : nullptr;
}

void keyval_release(int h) noexcept {
    keyval* k = keyval_lookup(h);
    if (!k || --k->refs > 0) return;
    const int idx = h & ((1 << 20) - 1);
    slot& s = g_slots[static_cast<std::size_t>(idx)];
    s.k.reset();
    s.gen = (s.gen + 1) & gen_mask;
    g_free.push_back(idx);
}

std::size_t keyvals_live() noexcept {
    std::size_t n = 0;
    for (const slot& s : g_slots) n += s.k != nullptr;
    return n;
}

attr_entry* attr_find(attr_list& l, int kv) noexcept {
    for (attr_entry& e : l)
        if (e.keyval == kv) return &e;
    return nullptr;
}

}  // namespace ch4lite::dev
