// SPDX-License-Identifier: MIT
// MPI_Datatype <-> dame::type. Predefined handles (0x201..0x2FF) resolve
// through DAME's static table; derived types live in a handle table, so a
// garbage or freed handle gives nullptr, never a crash.
#pragma once
#include <mpi.h>

#include <cstdint>

#include "dame/type.hpp"
#include "util/handle_table.hpp"

namespace ch4lite::dame {
struct node;
}

namespace ch4lite::api {

namespace detail {
using type_table = util::handle_table<dame::type, util::handle_kind::datatype>;
// Constant-initialized (no guard on use), so a lookup inlines to a bounds
// check and a generation check.
extern type_table g_types;
inline type_table& types() noexcept { return g_types; }

// The last type the fast path of MPI_Pack/MPI_Unpack moved (pack.cpp): its
// handle, size and true lower bound, so that the next call with the same
// handle skips the table's dependent loads. Only committed contiguous types
// smaller than dame::stream_floor are kept; those properties and the two
// numbers never change afterwards.
// erase_type_handle forgets the handle before it can be reused. One plain
// global: ch4lite provides at most MPI_THREAD_SERIALIZED.
struct quick_type {
    uintptr_t handle = 0;  // 0 is no handle
    int64_t size = 0;
    int64_t true_lb = 0;
};
extern constinit quick_type g_quick;

// The last other committed type with data that the checked path of
// MPI_Pack/MPI_Unpack moved (not contiguous, or 1 MiB or more): the second
// fast path moves it through `type` without the look-up and the checks.
// `root`, when not null, is the root node of a type whose one element below
// dame::stream_floor is one call of that node's kernel (a vector of blocks,
// a 2-D face, one index list): count 1 then calls the kernel directly. The
// type and its program never change after commit; the handle keeps the type
// alive, and erase_type_handle forgets it here too.
struct quick_typed {
    uintptr_t handle = 0;  // 0 is no handle
    int64_t size = 0;
    const dame::type* type = nullptr;
    const dame::node* root = nullptr;
};
extern constinit quick_typed g_quick_typed;
}  // namespace detail

// nullptr for MPI_DATATYPE_NULL, freed or garbage handles.
inline const dame::type* lookup_type(MPI_Datatype dt) noexcept {
    const auto h = reinterpret_cast<uintptr_t>(dt);
    if (h < 0x1000) return dame::predefined_type(h);
    return detail::types().lookup(h);
}
// The same, writable (constructors retain children, commit builds programs).
inline dame::type* lookup_type_mut(MPI_Datatype dt) noexcept {
    const auto h = reinterpret_cast<uintptr_t>(dt);
    if (h < 0x1000) return dame::predefined_type(h);
    return detail::types().lookup(h);
}
// A new handle for t, taking over one reference; MPI_DATATYPE_NULL if the
// table is full or memory ran out (the reference is then dropped), and the
// MPI error class of the failure in *err_class.
MPI_Datatype new_type_handle(dame::type* t, int* err_class = nullptr) noexcept;
// Removes the handle (not the type: pending users keep their references)
// and its name.
void erase_type_handle(MPI_Datatype dt) noexcept;
// Forgets the name MPI_Type_set_name gave the handle (datatype_name.cpp).
void erase_type_name(MPI_Datatype dt) noexcept;

}  // namespace ch4lite::api
