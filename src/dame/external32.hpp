// SPDX-License-Identifier: MIT
// The "external32" data representation (MPI-4.1 section 13.5.2), for
// MPI_Pack_external / MPI_Unpack_external / MPI_Pack_external_size: every
// basic element big-endian at the size the standard's table gives it
// (MPI_LONG and MPI_UNSIGNED_LONG 4 bytes, MPI_WCHAR 2, MPI_LONG_DOUBLE 16 as
// IEEE binary128, the rest their native size), one after the other in
// type-map order, no padding. Pair types move as their two members, complex
// types as their two parts.
//
// The move walks the type's construction (hvector / hindexed / hblock /
// hstruct / resized), since the compiled program has no element types left,
// and converts each run of one predefined type (a block, or a vector of
// blocks) in one loop. The walk keeps its own stack: no recursion.
#pragma once
#include <cstdint>

#include "dame/type.hpp"
#include "util/status.hpp"

namespace ch4lite::dame {

// Bytes of one instance of t in external32. status::range if that
// overflows 64 bits, status::no_mem if the walk's stack or its record of
// summed types cannot grow (types nested deeper than 32 levels of kinds
// that may narrow, MPI_LONG and the like).
status ext32_size(const type& t, int64_t* out) noexcept;

// Where a move stopped on a value that external32 cannot hold (a long
// beyond 32 bits, a wchar_t beyond 16): the element's index in the type
// map of the whole move and its predefined type's name.
struct ext32_fault {
    int64_t element = -1;
    const char* type_name = nullptr;
};

// Packs count instances of t at typed (which may be MPI_BOTTOM's nullptr
// with absolute displacements) into out, which holds count * ext32_size
// bytes. status::range with *fault filled when a value does not fit; the
// bytes written until then are left in out. The walk of the type is
// iterative; its stack allocates for types nested deeper than 32 levels
// (status::no_mem if it cannot).
status ext32_pack(const type& t, const void* typed, int64_t count, char* out,
                  ext32_fault* fault) noexcept;

// Unpacks count instances of t from in into typed. Every external32 value
// fits its native type (binary128 is rounded to long double): the only
// failure is status::no_mem, as for ext32_pack.
status ext32_unpack(const type& t, void* typed, int64_t count, const char* in) noexcept;

}  // namespace ch4lite::dame
