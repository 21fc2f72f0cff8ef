// SPDX-License-Identifier: MIT
// Reduction operations: the predefined MPI ops as kernels over typed element
// streams, and user ops. Collectives (coll/*.cpp) and RMA accumulate
// both call these.
//
// Kernel API (predefined ops):
//
//   op_id id;                      // from predefined_op(MPI_SUM, id)
//   dame::basic_kind k = t.basic();  // element kind of the datatype
//   if (!op_applies(id, k)) -> MPI_ERR_OP
//   op_apply(id, k, in, inout, n);   // inout[i] = in[i] (op) inout[i], i < n
//
// Operands are in the *packed* layout of the kind: n consecutive elements of
// packed_size(k) bytes each, exactly what dame::pack produces for a
// datatype whose basic kind is k. For every kind except the MINLOC/MAXLOC
// pairs this is also the C array layout; a pair is its value immediately
// followed by its index, without the C struct's padding (MPI_DOUBLE_INT is
// 12 bytes packed, 16 in a C array). Pointers need no alignment. `in` and
// `inout` may be the same buffer, must not otherwise overlap.
//
// Operand order: `in` is the left operand. For reductions MPI combines
// x0 op x1 op ... in rank order, so a lower rank's data goes in `in`; for
// accumulate the origin data goes in `in` and the target in `inout`, which
// is why MPI_REPLACE writes `in` into `inout` and MPI_NO_OP leaves `inout`.
//
// Which ops apply to which kinds follows MPI-4.1 §6.9.2: MIN/MAX on integers
// and reals; SUM/PROD also on complex; LAND/LOR/LXOR on C integers and
// logicals (C bool, Fortran LOGICALn); BAND/BOR/BXOR on integers and
// MPI_BYTE; MINLOC/MAXLOC on the pair types; REPLACE and NO_OP on every
// kind with elements. Character types take no op, except that MPI_CHAR
// takes SUM/PROD/MIN/MAX as signed char, as MPICH and Open MPI do (an
// extension, docs/collectives.md).
#pragma once
#include <mpi.h>

#include <cstddef>
#include <cstdint>

#include "dame/basic.hpp"

namespace ch4lite::dev {

enum class op_id : uint8_t {
    sum, prod, min, max, land, lor, lxor, band, bor, bxor, minloc, maxloc, replace, no_op,
    count_
};

// The predefined op of an MPI_Op handle (MPI_SUM..MPI_NO_OP). False for
// MPI_OP_NULL, user ops and garbage.
bool predefined_op(MPI_Op h, op_id& out) noexcept;
const char* op_name(op_id op) noexcept;  // "MPI_SUM"

// Bytes of one element of kind k in a packed stream; 0 for none/mixed.
std::size_t packed_size(dame::basic_kind k) noexcept;

// Whether op is defined on elements of kind k (table above).
bool op_applies(op_id op, dame::basic_kind k) noexcept;

// inout[i] = in[i] (op) inout[i] for i < n packed elements of kind k.
// Check op_applies(op, k) first; a pair it rejects writes nothing.
void op_apply(op_id op, dame::basic_kind k, const void* in, void* inout, std::size_t n) noexcept;

// Instruction-set levels of the kernels on the common kinds (C integers,
// float, double): each is compiled for baseline x86-64 (SSE2), AVX2 and
// AVX-512 (F, BW, DQ, VL), and op_apply runs the best level this CPU and OS
// support, chosen once (cpuid), capped by CH4LITE_OP_ISA=baseline|avx2|avx512.
// Results are bit-identical at every level. Other kinds, and non-x86-64
// builds, have the baseline level only.
enum class op_isa : uint8_t { baseline, avx2, avx512 };
op_isa op_isa_supported() noexcept;  // best level this CPU runs
op_isa op_isa_used() noexcept;       // what op_apply runs
const char* op_isa_name(op_isa isa) noexcept;  // "avx2"
// op_apply at one level (tests, benchmarks); above op_isa_supported() it
// runs op_isa_supported().
void op_apply_isa(op_isa isa, op_id op, dame::basic_kind k, const void* in, void* inout,
                  std::size_t n) noexcept;

// A user op (MPI_Op_create / MPI_Op_create_c). Exactly one function is set.
struct user_op {
    MPI_User_function* fn = nullptr;
    MPI_User_function_c* fn_c = nullptr;
    bool commutative = true;
    int refs = 1;  // the handle + collectives running with it
};

}  // namespace ch4lite::dev
