// SPDX-License-Identifier: MIT
// lists.hpp: the commit's list loops, for x86-64 and x86-64-v3.
#include "dame/lists.hpp"

#include <algorithm>

#include "dame/kernels.hpp"

namespace ch4lite::dame::lists {
namespace {

// The loops, inlined into a base and a v3 function each. Unsigned
// arithmetic: no overflow to prove.
#define DAME_INLINE [[gnu::always_inline]] inline
template <class T>
DAME_INLINE uint64_t bits(T x) noexcept {
    return static_cast<uint64_t>(int64_t{x});
}
template <class T>
DAME_INLINE void scale_body(int64_t* out, const T* in, std::size_t n, int64_t e) noexcept {
    if (e > 0 && (e & (e - 1)) == 0) {  // a power of two (most extents): AVX2 shifts 64-bit lanes
        const int s = __builtin_ctzll(static_cast<unsigned long long>(e));
        for (std::size_t i = 0; i < n; ++i) out[i] = static_cast<int64_t>(bits(in[i]) << s);
    } else {
        const auto u = static_cast<uint64_t>(e);
        for (std::size_t i = 0; i < n; ++i) out[i] = static_cast<int64_t>(bits(in[i]) * u);
    }
}
template <class T>
DAME_INLINE void bounds_body(const T* d, std::size_t n, int64_t* lo, int64_t* hi) noexcept {
    T l = d[0], h = d[0];  // values, not std::minmax_element: GCC vectorizes this loop
    for (std::size_t i = 1; i < n; ++i) l = std::min(l, d[i]), h = std::max(h, d[i]);
    *lo = l, *hi = h;
}
DAME_INLINE int64_t steps_body(const int64_t* d, std::size_t n, int64_t step) noexcept {
    int64_t k = 0;
    for (std::size_t i = 1; i < n; ++i) k += bits(d[i]) - bits(d[i - 1]) == bits(step);
    return k;
}
DAME_INLINE void narrow_body(int32_t* out, const int64_t* in, std::size_t n) noexcept {
    for (std::size_t i = 0; i < n; ++i) out[i] = static_cast<int32_t>(in[i]);
}

#if defined(__x86_64__) && defined(CH4LITE_DAME_X86_LEVELS)
#define DAME_V3 [[gnu::target("arch=x86-64-v3")]]
#else
#define DAME_V3  // no x86-64-v3 build (kernel_level() is 0): never chosen
#endif
template <class T>
DAME_V3 void scale_v3(int64_t* out, const T* in, std::size_t n, int64_t e) noexcept {
    scale_body(out, in, n, e);
}
template <class T>
DAME_V3 void bounds_v3(const T* d, std::size_t n, int64_t* lo, int64_t* hi) noexcept {
    bounds_body(d, n, lo, hi);
}
DAME_V3 int64_t steps_v3(const int64_t* d, std::size_t n, int64_t step) noexcept {
    return steps_body(d, n, step);
}
DAME_V3 void narrow_v3(int32_t* out, const int64_t* in, std::size_t n) noexcept {
    narrow_body(out, in, n);
}
bool v3() noexcept { return kernel_level() >= 3; }

}  // namespace

int64_t count_steps(const int64_t* d, std::size_t n, int64_t step) noexcept {
    return v3() ? steps_v3(d, n, step) : steps_body(d, n, step);
}
void bounds(const int64_t* d, std::size_t n, int64_t* lo, int64_t* hi) noexcept {
    v3() ? bounds_v3(d, n, lo, hi) : bounds_body(d, n, lo, hi);
}
void bounds(const int32_t* d, std::size_t n, int64_t* lo, int64_t* hi) noexcept {
    v3() ? bounds_v3(d, n, lo, hi) : bounds_body(d, n, lo, hi);
}
void scale(int64_t* out, const int32_t* in, std::size_t n, int64_t e) noexcept {
    v3() ? scale_v3(out, in, n, e) : scale_body(out, in, n, e);
}
void scale(int64_t* out, const int64_t* in, std::size_t n, int64_t e) noexcept {
    v3() ? scale_v3(out, in, n, e) : scale_body(out, in, n, e);
}
void narrow(int32_t* out, const int64_t* in, std::size_t n) noexcept {
    v3() ? narrow_v3(out, in, n) : narrow_body(out, in, n);
}

}  // namespace ch4lite::dame::lists
