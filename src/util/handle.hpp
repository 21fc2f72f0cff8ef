// SPDX-License-Identifier: MIT
// Encoding of user-visible handles for objects the runtime creates.
//
// Predefined handles are the standard-ABI constants (< 0x1000). Handles we
// create are 31-bit positive integers (so MPI_*_toint is exact):
//
//   bit 30..27  kind (1..14)
//   bit 26..20  generation (7 bits; catches most use-after-free)
//   bit 19..0   slot index in the owner's table
//
// Decoding never dereferences the user's value, so a garbage handle gives an
// MPI error, not a crash.
#pragma once
#include <cstdint>

namespace ch4lite::util {

enum class handle_kind : uint32_t {
    none = 0,
    comm = 1,
    group = 2,
    datatype = 3,
    request = 4,
    op = 5,
    errhandler = 6,
    win = 7,
    info = 8,
    message = 9,
};

constexpr uint32_t handle_index_bits = 20;
constexpr uint32_t handle_max_index = (1u << handle_index_bits) - 1;
constexpr uint32_t handle_gen_mask = 0x7f;

constexpr uintptr_t handle_encode(handle_kind k, uint32_t gen, uint32_t index) noexcept {
    return (static_cast<uintptr_t>(k) << 27) | (static_cast<uintptr_t>(gen & handle_gen_mask) << 20) |
           index;
}
constexpr handle_kind handle_kind_of(uintptr_t h) noexcept {
    return h >> 31 ? handle_kind::none : static_cast<handle_kind>((h >> 27) & 0xf);
}
constexpr uint32_t handle_gen_of(uintptr_t h) noexcept { return (h >> 20) & handle_gen_mask; }
constexpr uint32_t handle_index_of(uintptr_t h) noexcept { return h & handle_max_index; }
constexpr bool handle_is_builtin(uintptr_t h) noexcept { return h < 0x1000; }

}  // namespace ch4lite::util
