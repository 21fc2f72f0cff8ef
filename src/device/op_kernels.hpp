// SPDX-License-Identifier: MIT
// Kernel templates behind op_apply (device/op.hpp); included by op.cpp only.
// Every load and store goes through memcpy, so operands need no alignment
// (packed streams, user buffers at odd offsets); GCC turns these loops into
// unaligned vector loads.
#pragma once
#include <cstddef>
#include <cstring>

#include "device/op.hpp"

namespace ch4lite::dev::kern {

template <class T>
inline T load(const std::byte* p) noexcept {
    T v;
    std::memcpy(&v, p, sizeof(T));
    return v;
}
template <class T>
inline void store(std::byte* p, const T& v) noexcept {
    std::memcpy(p, &v, sizeof(T));
}

// inout[i] = F(in[i], inout[i])
template <class T, class F>
inline void zip(const std::byte* in, std::byte* io, std::size_t n, F f) noexcept {
    for (std::size_t i = 0; i < n; ++i) {
        const std::size_t o = i * sizeof(T);
        store<T>(io + o, f(load<T>(in + o), load<T>(io + o)));
    }
}

// Complex numbers of any real type, with the textbook product (no C99
// Annex G inf/nan recovery, like MPICH and Open MPI kernels).
template <class R>
struct cplx {
    R re, im;
};
template <class R>
inline cplx<R> operator+(cplx<R> a, cplx<R> b) noexcept {
    return {a.re + b.re, a.im + b.im};
}
template <class R>
inline cplx<R> operator*(cplx<R> a, cplx<R> b) noexcept {
    return {a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re};
}

// Integers (C and Fortran): arithmetic, logical and bitwise ops.
template <class T>
inline void integer(op_id op, const std::byte* in, std::byte* io, std::size_t n) noexcept {
    switch (op) {
        case op_id::sum: zip<T>(in, io, n, [](T a, T b) { return static_cast<T>(a + b); }); break;
        case op_id::prod: zip<T>(in, io, n, [](T a, T b) { return static_cast<T>(a * b); }); break;
        case op_id::min: zip<T>(in, io, n, [](T a, T b) { return a < b ? a : b; }); break;
        case op_id::max: zip<T>(in, io, n, [](T a, T b) { return a > b ? a : b; }); break;
        case op_id::land: zip<T>(in, io, n, [](T a, T b) { return static_cast<T>(a && b); }); break;
        case op_id::lor: zip<T>(in, io, n, [](T a, T b) { return static_cast<T>(a || b); }); break;
        case op_id::lxor: zip<T>(in, io, n, [](T a, T b) { return static_cast<T>(!a != !b); }); break;
        case op_id::band: zip<T>(in, io, n, [](T a, T b) { return static_cast<T>(a & b); }); break;
        case op_id::bor: zip<T>(in, io, n, [](T a, T b) { return static_cast<T>(a | b); }); break;
        case op_id::bxor: zip<T>(in, io, n, [](T a, T b) { return static_cast<T>(a ^ b); }); break;
        default: break;
    }
}

// Reals: SUM, PROD, MIN, MAX. MIN/MAX return the inout operand when the
// comparison is false (NaN in `in` leaves inout alone), like MPICH.
template <class T>
inline void real(op_id op, const std::byte* in, std::byte* io, std::size_t n) noexcept {
    switch (op) {
        case op_id::sum: zip<T>(in, io, n, [](T a, T b) { return static_cast<T>(a + b); }); break;
        case op_id::prod: zip<T>(in, io, n, [](T a, T b) { return static_cast<T>(a * b); }); break;
        case op_id::min: zip<T>(in, io, n, [](T a, T b) { return a < b ? a : b; }); break;
        case op_id::max: zip<T>(in, io, n, [](T a, T b) { return a > b ? a : b; }); break;
        default: break;
    }
}

template <class R>
inline void complex(op_id op, const std::byte* in, std::byte* io, std::size_t n) noexcept {
    using C = cplx<R>;
    if (op == op_id::sum) zip<C>(in, io, n, [](C a, C b) { return a + b; });
    if (op == op_id::prod) zip<C>(in, io, n, [](C a, C b) { return a * b; });
}

// Logicals (C bool, Fortran LOGICALn held in an unsigned U): nonzero is
// true; results are 1 or 0.
template <class U>
inline void logical(op_id op, const std::byte* in, std::byte* io, std::size_t n) noexcept {
    switch (op) {
        case op_id::land: zip<U>(in, io, n, [](U a, U b) { return static_cast<U>(a && b); }); break;
        case op_id::lor: zip<U>(in, io, n, [](U a, U b) { return static_cast<U>(a || b); }); break;
        case op_id::lxor: zip<U>(in, io, n, [](U a, U b) { return static_cast<U>(!a != !b); }); break;
        default: break;
    }
}

// MINLOC / MAXLOC on packed (value, index) pairs. Ties keep the smaller index.
template <class V, class I>
inline void loc(op_id op, const std::byte* in, std::byte* io, std::size_t n) noexcept {
    constexpr std::size_t es = sizeof(V) + sizeof(I);
    const bool is_min = op == op_id::minloc;
    for (std::size_t k = 0; k < n; ++k) {
        const std::byte* a = in + k * es;
        std::byte* b = io + k * es;
        const V av = load<V>(a), bv = load<V>(b);
        const I ai = load<I>(a + sizeof(V)), bi = load<I>(b + sizeof(V));
        if (is_min ? av < bv : av > bv) {
            store<V>(b, av);
            store<I>(b + sizeof(V), ai);
        } else if (av == bv && ai < bi) {
            store<I>(b + sizeof(V), ai);
        }
    }
}

}  // namespace ch4lite::dev::kern
