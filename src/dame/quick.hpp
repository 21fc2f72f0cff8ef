// SPDX-License-Identifier: MIT
// Inline whole moves of small contiguous types, for callers whose own call
// costs as much as the copy (MPI_Pack/MPI_Unpack of one 480-byte block:
// memcpy takes 4.7 ns, the call chain MPI_Pack -> pack -> whole took 5 more).
// The result is the same as pack()/unpack(): contiguous types move as one
// copy there too, and moves below stream_floor never stream.
#pragma once
#include <cstdint>

#include "dame/copy.hpp"
#include "dame/stream.hpp"
#include "dame/type.hpp"

namespace ch4lite::dame {

// Whether pack_quick/unpack_quick may move count*t.size() == bytes bytes:
// t committed and contiguous, bytes below stream_floor.
[[gnu::always_inline]] inline bool quick_move(const type& t, int64_t bytes) noexcept {
    return t.contiguous() && t.committed() && bytes < stream_floor;
}

// pack(t, buf, count, packed) when quick_move(t, count*t.size()) holds.
[[gnu::always_inline]] inline void pack_quick(const type& t, const void* buf, int64_t bytes,
                                              void* packed) noexcept {
    copy_any(static_cast<char*>(packed), static_cast<const char*>(buf) + t.true_lb(), bytes);
}

// unpack(t, buf, count, packed) when quick_move(t, count*t.size()) holds.
[[gnu::always_inline]] inline void unpack_quick(const type& t, void* buf, int64_t bytes,
                                                const void* packed) noexcept {
    copy_any(static_cast<char*>(buf) + t.true_lb(), static_cast<const char*>(packed), bytes);
}

}  // namespace ch4lite::dame
