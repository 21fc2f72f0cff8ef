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
// at start-up the x86-64-v4 one when the CPU has it (kernels.cpp).
extern const kernel_fn* pack_table;
extern const kernel_fn* unpack_table;
// "x86-64-v4" or "baseline": which kernels this process runs.
const char* kernel_isa() noexcept;
// CH4LITE_DAME_ISA=base: the baseline kernels and the 16-byte streaming
// loop, whatever the CPU has (read once).
bool isa_forced_base() noexcept;

template <dir D>
inline kernel_fn kernel(uint8_t id) noexcept {
    if constexpr (D == dir::pack) return pack_table[id];
    else return unpack_table[id];
}

}  // namespace ch4lite::dame
