// SPDX-License-Identifier: MIT
// Basic element kinds and the predefined-type table. DAME does not include
// mpi.h: predefined types are identified by their standard-ABI handle value
// (0x200..0x2FF), which is a stable number (shared/abi/mpi-abi-values.md).
#pragma once
#include <cstdint>

namespace ch4lite::dame {

// The element kind of a type whose type map uses one predefined type (or one
// pair type): reductions and accumulate dispatch on it. `mixed` means the
// type map is heterogeneous; `none` means it has no elements.
enum class basic_kind : uint8_t {
    none = 0,
    mixed,
    byte,     // MPI_BYTE, MPI_PACKED
    char_,    // MPI_CHAR, MPI_CHARACTER
    schar,
    uchar,
    wchar,
    bool_,    // C _Bool / C++ bool (1 byte)
    int8, uint8, int16, uint16, int32, uint32, int64, uint64, int128,
    float16, float32, float64, long_double, float128,
    complex16, complex32, complex64, complex_long_double, complex128,
    logical1, logical2, logical4, logical8, logical16,
    // MINLOC/MAXLOC pairs (value, index)
    float_int, double_int, long_int, int_int, short_int, long_double_int,
    real_real, double_double, integer_integer,
    count_
};

const char* to_string(basic_kind k) noexcept;

// One contiguous piece of a predefined type's type map.
struct basic_piece {
    int16_t disp;
    int16_t len;
};

// Facts about a predefined type. Pair types have two pieces (their C struct
// layout, padding included in `extent`).
struct predefined_info {
    const char* name;   // "MPI_DOUBLE_INT"; nullptr for unused handle values
    int32_t size;
    int32_t extent;
    int32_t align;
    int32_t elements;   // basic elements per instance (2 for pairs)
    basic_kind kind;
    uint8_t npieces;
    basic_piece piece[2];
};

constexpr uintptr_t predefined_first = 0x200;
constexpr uintptr_t predefined_last = 0x2ff;
constexpr uintptr_t handle_datatype_null = 0x200;

// nullptr for values outside 0x201..0x2FF or unassigned slots.
const predefined_info* predefined(uintptr_t handle) noexcept;
// The handle value of an entry predefined() returned.
uintptr_t predefined_handle_of(const predefined_info* p) noexcept;

}  // namespace ch4lite::dame
