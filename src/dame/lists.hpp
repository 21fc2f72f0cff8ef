// SPDX-License-Identifier: MIT
// Loops over the displacement lists of index types at commit: each runs once
// or twice per list and block (construct + commit of LAMMPS_full/195968,
// 18 372 blocks, spent two thirds of its time in loops like these). They are
// compiled twice, for x86-64 and for x86-64-v3 (SSE2 has no 64-bit compare,
// min, max or shift of 32-bit lanes to 64, so the base build does them one
// element at a time), and run in the version of the kernels in use
// (kernel_level(): CH4LITE_DAME_ISA=base tests the base loops).
#pragma once
#include <cstddef>
#include <cstdint>

namespace ch4lite::dame::lists {

// How many neighbours of d[0..n) lie `step` apart (d[i] - d[i-1] == step):
// blocks that continue the one before. A difference of two displacements in
// one type is representable (builder::finish checks the bounds).
int64_t count_steps(const int64_t* d, std::size_t n, int64_t step) noexcept;
// The lowest and the highest of d[0..n), n >= 1.
void bounds(const int64_t* d, std::size_t n, int64_t* lo, int64_t* hi) noexcept;
void bounds(const int32_t* d, std::size_t n, int64_t* lo, int64_t* hi) noexcept;
// out[i] = in[i] * e; the caller has checked that the bounds' products fit
// (scaling is monotonic, so every product fits).
void scale(int64_t* out, const int32_t* in, std::size_t n, int64_t e) noexcept;
void scale(int64_t* out, const int64_t* in, std::size_t n, int64_t e) noexcept;
// out[i] = in[i], every value within int32 (the caller has checked bounds()).
void narrow(int32_t* out, const int64_t* in, std::size_t n) noexcept;

}  // namespace ch4lite::dame::lists
