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
constexpr int n_kernels = first_nested_kernel + 13;
extern const std::array<kernel_fn, n_kernels> pack_kernels;
extern const std::array<kernel_fn, n_kernels> unpack_kernels;

template <dir D>
inline kernel_fn kernel(uint8_t id) noexcept {
    if constexpr (D == dir::pack) return pack_kernels[id];
    else return unpack_kernels[id];
}

}  // namespace ch4lite::dame
