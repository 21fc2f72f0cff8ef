// SPDX-License-Identifier: MIT
// Kernel templates behind op_apply (device/op.hpp); included by op.cpp only.
// Every load and store goes through memcpy, so operands need no alignment
// (packed streams, user buffers at odd offsets); GCC turns these loops into
// unaligned vector loads.
//
// The hot kinds (hot(): C integers, float, double) are compiled once per
// instruction-set level by op.cpp, into functions with a target attribute;
// everything on that path is always_inline so that each copy really uses
// its level's vectors (a call to a shared out-of-line instance would run
// baseline code). Every kernel is element-wise and one IEEE operation per
// element (no FMA is enabled at any level, so nothing contracts), so the
// levels give bit-identical results.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "device/op.hpp"

namespace ch4lite::dev::kern {

template <class T>
[[gnu::always_inline]] inline T load(const std::byte* p) noexcept {
    T v;
    std::memcpy(&v, p, sizeof(T));
    return v;
}
template <class T>
[[gnu::always_inline]] inline void store(std::byte* p, const T& v) noexcept {
    std::memcpy(p, &v, sizeof(T));
}

// inout[i] = F(in[i], inout[i])
template <class T, class F>
[[gnu::always_inline]] inline void zip(const std::byte* in, std::byte* io, std::size_t n, F f) noexcept {
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

// Integer SUM and PROD wrap around, as MPICH's and Open MPI's C kernels do in
// practice; here they are computed in an unsigned type at least as wide as
// `unsigned`, so overflow is defined behaviour (signed overflow, or the
// promotion of two uint16_t to int in a product, is not) and the
// conversion back is modular (C++20).
template <class T>
struct unsigned_of {
    using type = std::make_unsigned_t<T>;
};
template <>
struct unsigned_of<__int128> {
    using type = unsigned __int128;
};
template <class T>
using wrap_t = std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, typename unsigned_of<T>::type>;

// Integers (C and Fortran): arithmetic, logical and bitwise ops.
template <class T>
[[gnu::always_inline]] inline void integer(op_id op, const std::byte* in, std::byte* io, std::size_t n) noexcept {
    using W = wrap_t<T>;
    switch (op) {
        case op_id::sum: zip<T>(in, io, n, [](T a, T b) { return static_cast<T>(static_cast<W>(a) + static_cast<W>(b)); }); break;
        case op_id::prod: zip<T>(in, io, n, [](T a, T b) { return static_cast<T>(static_cast<W>(a) * static_cast<W>(b)); }); break;
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
[[gnu::always_inline]] inline void real(op_id op, const std::byte* in, std::byte* io, std::size_t n) noexcept {
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

// The kinds compiled once per instruction-set level (op.cpp): what
// reductions and accumulates mostly run on. False for any other kind.
[[gnu::always_inline]] inline bool hot(op_id op, dame::basic_kind k, const std::byte* in, std::byte* io,
                                       std::size_t n) noexcept {
    using dame::basic_kind;
    switch (k) {
        case basic_kind::int8: case basic_kind::schar: case basic_kind::char_:  // char: signed (extension)
            integer<int8_t>(op, in, io, n); return true;
        case basic_kind::uint8: case basic_kind::uchar: case basic_kind::byte:
            integer<uint8_t>(op, in, io, n); return true;
        case basic_kind::int16: integer<int16_t>(op, in, io, n); return true;
        case basic_kind::uint16: integer<uint16_t>(op, in, io, n); return true;
        case basic_kind::int32: integer<int32_t>(op, in, io, n); return true;
        case basic_kind::uint32: integer<uint32_t>(op, in, io, n); return true;
        case basic_kind::int64: integer<int64_t>(op, in, io, n); return true;
        case basic_kind::uint64: integer<uint64_t>(op, in, io, n); return true;
        case basic_kind::float32: real<float>(op, in, io, n); return true;
        case basic_kind::float64: real<double>(op, in, io, n); return true;
        default: return false;
    }
}

}  // namespace ch4lite::dev::kern
