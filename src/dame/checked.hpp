// SPDX-License-Identifier: MIT
// Overflow-checked int64 arithmetic for commit-time size computations: a type
// whose size or bounds do not fit in int64 is rejected at construction, so the
// move loops never need to check.
#pragma once
#include <cstdint>

namespace ch4lite::dame {

struct checked {
    bool bad = false;
    int64_t mul(int64_t a, int64_t b) noexcept {
        int64_t r;
        if (__builtin_mul_overflow(a, b, &r)) bad = true;
        return r;
    }
    int64_t add(int64_t a, int64_t b) noexcept {
        int64_t r;
        if (__builtin_add_overflow(a, b, &r)) bad = true;
        return r;
    }
};

}  // namespace ch4lite::dame
