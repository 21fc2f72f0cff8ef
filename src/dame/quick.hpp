// SPDX-License-Identifier: MIT
// Which moves the fast path of MPI_Pack/MPI_Unpack (src/api/pack.cpp) may
// make with one copy_one (kernels.hpp): those of a committed contiguous type
// below stream_floor. pack()/unpack() make the same bytes for them:
// contiguous types move as one copy there too, and moves below
// stream_floor never stream.
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

// Whether a move of bytes bytes of a quick_type is short enough.
[[gnu::always_inline]] inline bool quick_bytes(int64_t bytes) noexcept { return bytes < stream_floor; }

}  // namespace ch4lite::dame
