// SPDX-License-Identifier: MIT
// The predefined-type table, indexed by (handle - 0x200). Sizes of the pair
// types come from the C structs MINLOC/MAXLOC users declare, so padding
// matches the compiler (MPI_DOUBLE_INT: size 12, extent 16).
#include <complex>
#include <cstddef>

#include "dame/basic.hpp"

namespace ch4lite::dame {
namespace {

template <class V, class I>
struct pair_of {
    V v;
    I i;
};

constexpr predefined_info one(const char* n, int sz, int al, basic_kind k, int elems = 1) {
    return {n, sz, sz, al, elems, k, 1, {{0, static_cast<int16_t>(sz)}, {0, 0}}};
}
// A pair (MINLOC/MAXLOC) type is two basic elements laid out like its C struct.
template <class V, class I>
constexpr predefined_info pair(const char* n, basic_kind k) {
    using P = pair_of<V, I>;
    return {n,
            static_cast<int32_t>(sizeof(V) + sizeof(I)),
            static_cast<int32_t>(sizeof(pair_of<V, I>)),
            static_cast<int32_t>(alignof(pair_of<V, I>)),
            2,
            k,
            2,
            {{0, static_cast<int16_t>(sizeof(V))},
             {static_cast<int16_t>(offsetof(P, i)), static_cast<int16_t>(sizeof(I))}}};
}

struct table {
    predefined_info e[256] = {};
    constexpr void set(uintptr_t h, predefined_info i) { e[h - 0x200] = i; }
    constexpr table() {
        using K = basic_kind;
        const int ld = sizeof(long double), ldal = alignof(long double);
        set(0x201, one("MPI_AINT", 8, 8, K::int64));
        set(0x202, one("MPI_COUNT", 8, 8, K::int64));
        set(0x203, one("MPI_OFFSET", 8, 8, K::int64));
        set(0x207, one("MPI_PACKED", 1, 1, K::byte));
        set(0x208, one("MPI_SHORT", sizeof(short), alignof(short), K::int16));
        set(0x209, one("MPI_INT", 4, 4, K::int32));
        set(0x20a, one("MPI_LONG", sizeof(long), alignof(long), K::int64));
        set(0x20b, one("MPI_LONG_LONG_INT", 8, alignof(long long), K::int64));
        set(0x20c, one("MPI_UNSIGNED_SHORT", 2, 2, K::uint16));
        set(0x20d, one("MPI_UNSIGNED", 4, 4, K::uint32));
        set(0x20e, one("MPI_UNSIGNED_LONG", sizeof(long), alignof(long), K::uint64));
        set(0x20f, one("MPI_UNSIGNED_LONG_LONG", 8, alignof(long long), K::uint64));
        set(0x210, one("MPI_FLOAT", 4, 4, K::float32));
        set(0x212, one("MPI_C_COMPLEX", 8, 4, K::complex32));
        set(0x213, one("MPI_CXX_FLOAT_COMPLEX", 8, 4, K::complex32));
        set(0x214, one("MPI_DOUBLE", 8, alignof(double), K::float64));
        set(0x216, one("MPI_C_DOUBLE_COMPLEX", 16, alignof(double), K::complex64));
        set(0x217, one("MPI_CXX_DOUBLE_COMPLEX", 16, alignof(double), K::complex64));
        set(0x218, one("MPI_LOGICAL", 4, 4, K::logical4));
        set(0x219, one("MPI_INTEGER", 4, 4, K::int32));
        set(0x21a, one("MPI_REAL", 4, 4, K::float32));
        set(0x21b, one("MPI_COMPLEX", 8, 4, K::complex32));
        set(0x21c, one("MPI_DOUBLE_PRECISION", 8, 8, K::float64));
        set(0x21d, one("MPI_DOUBLE_COMPLEX", 16, 8, K::complex64));
        set(0x21e, one("MPI_CHARACTER", 1, 1, K::char_));
        set(0x220, one("MPI_LONG_DOUBLE", ld, ldal, K::long_double));
        set(0x224, one("MPI_C_LONG_DOUBLE_COMPLEX", 2 * ld, ldal, K::complex_long_double));
        set(0x225, one("MPI_CXX_LONG_DOUBLE_COMPLEX", 2 * ld, ldal, K::complex_long_double));
        set(0x228, pair<float, int>("MPI_FLOAT_INT", K::float_int));
        set(0x229, pair<double, int>("MPI_DOUBLE_INT", K::double_int));
        set(0x22a, pair<long, int>("MPI_LONG_INT", K::long_int));
        set(0x22b, pair<int, int>("MPI_2INT", K::int_int));
        set(0x22c, pair<short, int>("MPI_SHORT_INT", K::short_int));
        set(0x22d, pair<long double, int>("MPI_LONG_DOUBLE_INT", K::long_double_int));
        set(0x230, pair<float, float>("MPI_2REAL", K::real_real));
        set(0x231, pair<double, double>("MPI_2DOUBLE_PRECISION", K::double_double));
        set(0x232, pair<int, int>("MPI_2INTEGER", K::integer_integer));
        set(0x238, one("MPI_C_BOOL", sizeof(bool), alignof(bool), K::bool_));
        set(0x239, one("MPI_CXX_BOOL", sizeof(bool), alignof(bool), K::bool_));
        set(0x23c, one("MPI_WCHAR", sizeof(wchar_t), alignof(wchar_t), K::wchar));
        set(0x240, one("MPI_INT8_T", 1, 1, K::int8));
        set(0x241, one("MPI_UINT8_T", 1, 1, K::uint8));
        set(0x243, one("MPI_CHAR", 1, 1, K::char_));
        set(0x244, one("MPI_SIGNED_CHAR", 1, 1, K::schar));
        set(0x245, one("MPI_UNSIGNED_CHAR", 1, 1, K::uchar));
        set(0x247, one("MPI_BYTE", 1, 1, K::byte));
        set(0x248, one("MPI_INT16_T", 2, 2, K::int16));
        set(0x249, one("MPI_UINT16_T", 2, 2, K::uint16));
        set(0x250, one("MPI_INT32_T", 4, 4, K::int32));
        set(0x251, one("MPI_UINT32_T", 4, 4, K::uint32));
        set(0x258, one("MPI_INT64_T", 8, 8, K::int64));
        set(0x259, one("MPI_UINT64_T", 8, 8, K::uint64));
        // Fortran sized types: size = 1 << ((handle >> 3) & 7) (ABI encoding).
        set(0x2c0, one("MPI_LOGICAL1", 1, 1, K::logical1));
        set(0x2c1, one("MPI_INTEGER1", 1, 1, K::int8));
        set(0x2c8, one("MPI_LOGICAL2", 2, 2, K::logical2));
        set(0x2c9, one("MPI_INTEGER2", 2, 2, K::int16));
        set(0x2ca, one("MPI_REAL2", 2, 2, K::float16));
        set(0x2d0, one("MPI_LOGICAL4", 4, 4, K::logical4));
        set(0x2d1, one("MPI_INTEGER4", 4, 4, K::int32));
        set(0x2d2, one("MPI_REAL4", 4, 4, K::float32));
        set(0x2d3, one("MPI_COMPLEX4", 4, 2, K::complex16));
        set(0x2d8, one("MPI_LOGICAL8", 8, 8, K::logical8));
        set(0x2d9, one("MPI_INTEGER8", 8, 8, K::int64));
        set(0x2da, one("MPI_REAL8", 8, 8, K::float64));
        set(0x2db, one("MPI_COMPLEX8", 8, 4, K::complex32));
        set(0x2e0, one("MPI_LOGICAL16", 16, 16, K::logical16));
        set(0x2e1, one("MPI_INTEGER16", 16, 16, K::int128));
        set(0x2e2, one("MPI_REAL16", 16, 16, K::float128));
        set(0x2e3, one("MPI_COMPLEX16", 16, 8, K::complex64));
        set(0x2eb, one("MPI_COMPLEX32", 32, 16, K::complex128));
    }
};

constexpr table the_table{};

}  // namespace

const predefined_info* predefined(uintptr_t h) noexcept {
    if (h <= predefined_first || h > predefined_last) return nullptr;
    const predefined_info* p = &the_table.e[h - predefined_first];
    return p->name ? p : nullptr;
}

uintptr_t predefined_handle_of(const predefined_info* p) noexcept {
    return predefined_first + static_cast<uintptr_t>(p - the_table.e);
}

const char* to_string(basic_kind k) noexcept {
    static constexpr const char* names[] = {
        "none", "mixed", "byte", "char", "schar", "uchar", "wchar", "bool", "int8", "uint8",
        "int16", "uint16", "int32", "uint32", "int64", "uint64", "int128", "float16", "float32",
        "float64", "long_double", "float128", "complex16", "complex32", "complex64",
        "complex_long_double", "complex128", "logical1", "logical2", "logical4", "logical8",
        "logical16", "float_int", "double_int", "long_int", "int_int", "short_int",
        "long_double_int", "real_real", "double_double", "integer_integer"};
    static_assert(sizeof(names) / sizeof(names[0]) == static_cast<int>(basic_kind::count_));
    const auto i = static_cast<unsigned>(k);
    return i < static_cast<unsigned>(basic_kind::count_) ? names[i] : "?";
}

}  // namespace ch4lite::dame
