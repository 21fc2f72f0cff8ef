// SPDX-License-Identifier: MIT
// The kernels of kernels_impl.hpp compiled for x86-64-v4 (AVX-512; the
// build passes -march=x86-64-v4 for this file only). kernels.cpp installs
// them at start-up when the CPU has that level.
#include "dame/kernels_impl.hpp"

#if CH4LITE_DAME_HAVE_V4

namespace ch4lite::dame {
constinit const std::array<kernel_fn, n_kernels> v4_pack_kernels = make_table<dir::pack>();
constinit const std::array<kernel_fn, n_kernels> v4_unpack_kernels = make_table<dir::unpack>();
}  // namespace ch4lite::dame
#endif
