// SPDX-License-Identifier: MIT
// Which moves the fast paths of MPI_Pack/MPI_Unpack (src/api/pack.cpp) may
// make with one copy_one (kernels.hpp): those of a committed contiguous type
// below stream_floor; or with one kernel call: one element of a committed
// type whose program is its root's kernel, below stream_floor.
// pack()/unpack() make the same bytes for them: contiguous types move as one
// copy there too, count 1 runs the root node, and moves below stream_floor
// never stream.
#pragma once
#include <cstdint>

#include "dame/kernels.hpp"
#include "dame/stream.hpp"
#include "dame/type.hpp"

namespace ch4lite::dame {

// Whether the fast path may move t: committed and contiguous.
// Both hold for good once they hold, so a caller may keep t's size and
// true_lb and skip the next look-up.
[[gnu::always_inline]] inline bool quick_type(const type& t) noexcept {
    return t.contiguous() && t.committed();
}

// The root node of t if one call of its kernel moves a whole element of t,
// as pack()/unpack() do for count 1 (run_full on the root): committed, not
// contiguous, not empty, and a kernel on the root; else nullptr. Also for
// good once it holds (the program never changes after commit).
[[gnu::always_inline]] inline const node* quick_kernel_root(const type& t) noexcept {
    if (!t.committed() || t.contiguous() || t.size() == 0) return nullptr;
    const node& root = t.prog()->root();
    return root.kern ? &root : nullptr;
}

// Whether a move of bytes bytes of a quick_type is short enough.
[[gnu::always_inline]] inline bool quick_bytes(int64_t bytes) noexcept { return bytes < stream_floor; }

}  // namespace ch4lite::dame
