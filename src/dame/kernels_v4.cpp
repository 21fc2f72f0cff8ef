// SPDX-License-Identifier: MIT
// The move kernels for x86-64-v4 (AVX-512): the build compiles this file with
// -march=x86-64-v4 (kernels_isa.inc).
#define CH4LITE_DAME_ISA v4
#include "dame/kernels_isa.inc"
