// SPDX-License-Identifier: MIT
// The move kernels for x86-64-v3 (AVX2): the build compiles this file with
// -march=x86-64-v3 (kernels_isa.inc).
#define CH4LITE_DAME_ISA v3
#include "dame/kernels_isa.inc"
