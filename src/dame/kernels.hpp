// SPDX-License-Identifier: MIT
// Kernel tables (see kernels.cpp). A kernel moves a FINAL node's whole loop:
// typed points at the node's origin (parent copy + node.disp), packed at its
// first packed byte.
#pragma once
#include <array>
#include <cstdio>
#include <utility>

#include "dame/copy.hpp"
#include "dame/program.hpp"

namespace ch4lite::dame {

using kernel_fn = void (*)(const node&, char* typed, char* packed);
constexpr int n_kernels = first_nested_kernel + 15;
// The tables in use, indexed by a node's kernel id: the baseline build, or
// at start-up the x86-64-v4 or x86-64-v3 one when the CPU has it
// (kernels.cpp).
extern const kernel_fn* pack_table;
extern const kernel_fn* unpack_table;
// "x86-64-v4", "x86-64-v3" or "baseline": which kernels this process runs.
const char* kernel_isa() noexcept;
// The same as a number: 4, 3 or 0.
int kernel_level() noexcept;
// CH4LITE_DAME_ISA=base: the baseline kernels and the 16-byte streaming
// loop, whatever the CPU has (read once).
bool isa_forced_base() noexcept;

// One contiguous move of n >= 0 bytes from s to d, which do not overlap, for
// the instruction set of the kernels in use: baseline copy_any (memcpy from
// long_block bytes); x86-64-v3 and -v4 32-byte vector moves below 16 KiB,
// memcpy beyond (kernels_isa.inc). It returns 0, so that a caller returning success
// can end with a tail call (the fast path of MPI_Pack, src/api/pack.cpp).
// whole() (move.cpp) copies contiguous types with it as well.
using copy_one_fn = int (*)(char* __restrict d, const char* __restrict s, int64_t n) noexcept;
extern copy_one_fn copy_one;

template <dir D>
inline kernel_fn kernel(uint8_t id) noexcept {
    if constexpr (D == dir::pack) return pack_table[id];
    else return unpack_table[id];
}

}  // namespace ch4lite::dame
