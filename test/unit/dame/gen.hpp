// SPDX-License-Identifier: MIT
// Random type trees for property tests: depth <= 5, every constructor,
// negative displacements, resized types. Sizes are kept small so that the
// oracle (element by element) stays fast.
#pragma once
#include <cstdlib>
#include <random>
#include <vector>

#include "dame/type.hpp"

namespace dame_test {

using namespace ch4lite::dame;
using ch4lite::status;

struct type_ref {  // RAII owner of one reference
    type* t = nullptr;
    type_ref() = default;
    explicit type_ref(type* x) : t(x) {}
    type_ref(type_ref&& o) noexcept : t(o.t) { o.t = nullptr; }
    type_ref& operator=(type_ref&& o) noexcept {
        std::swap(t, o.t);
        return *this;
    }
    ~type_ref() {
        if (t) t->release();
    }
    type* get() const { return t; }
    type* operator->() const { return t; }
};

// Seed of a test's generator: its own number, moved by DAME_PROPERTY_SEED
// (default 0) so that a developer can sweep other type trees:
//   for s in $(seq 1 200); do DAME_PROPERTY_SEED=$s test-bin/unit_dame ...; done
inline uint64_t seed(uint64_t own) {
    const char* e = std::getenv("DAME_PROPERTY_SEED");
    return own + (e ? std::strtoull(e, nullptr, 10) * 1000 : 0);
}

// How many samples a property test draws: its default, or DAME_PROPERTY_SAMPLES.
inline int samples(int fallback) {
    const char* e = std::getenv("DAME_PROPERTY_SAMPLES");
    const int n = e ? std::atoi(e) : 0;
    return n > 0 ? n : fallback;
}

class gen {
  public:
    explicit gen(uint64_t seed) : rng_(seed) {}
    // Leaves drawn from these predefined handles only.
    gen(uint64_t seed, std::vector<uintptr_t> basics) : rng_(seed), basics_(std::move(basics)) {}
    int64_t range(int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng_); }
    bool coin(int pct) { return range(0, 99) < pct; }

    type* basic() {
        if (!basics_.empty())
            return predefined_type(basics_[static_cast<size_t>(range(0, static_cast<int64_t>(basics_.size()) - 1))]);
        static const uintptr_t h[] = {0x247, 0x209, 0x214, 0x210, 0x208, 0x229, 0x22c, 0x220,
                                      0x22b, 0x216, 0x20a, 0x2d2};
        return predefined_type(h[range(0, sizeof h / sizeof h[0] - 1)]);
    }

    // A new type with one reference; depth counts remaining levels.
    type_ref make(int depth) {
        if (depth == 0 || coin(20)) {
            type* b = basic();
            type* out = nullptr;
            (void)make_dup(b, &out);
            return type_ref(out);
        }
        type_ref old = make(depth - 1);
        type* o = old.get();
        type* out = nullptr;
        status s = status::ok;
        const int64_t n = range(0, 4);
        std::vector<int64_t> bl(n), d(n);
        const int64_t e = std::max<int64_t>(o->extent(), 1);
        switch (range(0, 8)) {
            case 0: s = make_contiguous(range(0, 4), o, &out); break;
            case 1: s = make_vector(range(0, 4), range(0, 3), range(-6, 6), false, o, &out); break;
            case 2: s = make_vector(range(0, 4), range(0, 3), range(-3, 3) * e + range(-8, 8), true, o, &out); break;
            case 3:
                for (int64_t i = 0; i < n; ++i) bl[i] = range(0, 3), d[i] = range(-10, 10);
                s = make_indexed(n, bl.data(), d.data(), coin(50), o, &out);
                break;
            case 4:
                for (int64_t i = 0; i < n; ++i) d[i] = range(-10, 10) * (coin(50) ? e : 1);
                s = make_indexed_block(n, range(0, 3), d.data(), coin(50), o, &out);
                break;
            case 5: {
                std::vector<type_ref> kids;
                std::vector<type*> ks;
                for (int64_t i = 0; i < n; ++i) {
                    kids.push_back(i == 0 ? type_ref(nullptr) : make(depth - 1));
                    ks.push_back(i == 0 ? o : kids.back().get());
                    bl[i] = range(0, 3), d[i] = range(-40, 40);
                }
                s = make_struct(n, bl.data(), d.data(), ks.data(), &out);
                break;
            }
            case 6: s = make_resized(o, range(-16, 16), range(0, 3 * e), &out); break;
            case 7: {
                int64_t sz[3], sub[3], st[3];
                const int nd = static_cast<int>(range(1, 3));
                for (int i = 0; i < nd; ++i) {
                    sz[i] = range(1, 4), sub[i] = range(1, sz[i]), st[i] = range(0, sz[i] - sub[i]);
                }
                s = make_subarray(nd, sz, sub, st, coin(50), o, &out);
                break;
            }
            default: s = make_dup(o, &out); break;
        }
        if (s != status::ok) return make(depth - 1);
        return type_ref(out);
    }

  private:
    std::mt19937_64 rng_;
    std::vector<uintptr_t> basics_;
};

}  // namespace dame_test
