// SPDX-License-Identifier: MIT
// piece_copy (small_copy.hpp): memcpy in calls of at most copy_piece bytes.
#include "util/small_copy.hpp"

namespace ch4lite::util {

namespace {
// memcpy as a call the compiler cannot expand inline (small_copy.hpp).
void* (*const volatile library_memcpy)(void*, const void*, std::size_t) = std::memcpy;
}  // namespace

void piece_copy(std::byte* d, const std::byte* s, std::size_t n) noexcept {
    auto* const copy = library_memcpy;
    for (std::size_t off = 0; off < n; off += copy_piece)
        copy(d + off, s + off, n - off < copy_piece ? n - off : copy_piece);
}

}  // namespace ch4lite::util
