// SPDX-License-Identifier: MIT
// Attribute caching: keyvals and the attributes an object carries
// (communicators here; windows and datatypes use the same keyvals with
// their own callbacks; datatypes keep their lists in the API layer). The API layer runs the callbacks (they take MPI handles);
// this file only stores.
//
// A keyval is a positive int handle (bit 30 set, so it never collides with
// the predefined MPI_TAG_UB..MPI_UNIVERSE_SIZE). Freeing a keyval the user
// still has attributes under only marks it: it lives until the last of
// those attributes is deleted (MPI-4.1 §7.7.2).
#pragma once
#include <mpi.h>

#include <cstdint>
#include <vector>

namespace ch4lite::dev {

enum class attr_kind : uint8_t { comm, win, type };

struct keyval {
    attr_kind kind = attr_kind::comm;
    // Exactly the user's values: 0 and 1 are the NULL_COPY / DUP and
    // NULL_DELETE sentinels of the ABI, never called.
    MPI_Comm_copy_attr_function* comm_copy = nullptr;
    MPI_Comm_delete_attr_function* comm_delete = nullptr;
    MPI_Win_copy_attr_function* win_copy = nullptr;
    MPI_Win_delete_attr_function* win_delete = nullptr;
    MPI_Type_copy_attr_function* type_copy = nullptr;
    MPI_Type_delete_attr_function* type_delete = nullptr;
    void* extra_state = nullptr;
    int refs = 1;        // the user's handle + one per attribute set under it
    bool freed = false;  // the user freed the handle; attributes may remain
};

struct attr_entry {
    int keyval;
    void* value;
};
using attr_list = std::vector<attr_entry>;

// A new keyval handle for a copy of `proto` (MPI_Comm_create_keyval,
// MPI_Type_create_keyval), or 0 when memory ran out or the table is full.
int keyval_create(const keyval& proto) noexcept;
// The keyval of a handle, or nullptr (freed, garbage, predefined).
keyval* keyval_lookup(int handle) noexcept;
// Drops one reference; the keyval goes away with the last one.
void keyval_release(int handle) noexcept;
// Live keyvals (tests: every keyval freed and every attribute deleted -> 0).
std::size_t keyvals_live() noexcept;

// Attribute of `keyval` in l, or nullptr.
attr_entry* attr_find(attr_list& l, int keyval) noexcept;

}  // namespace ch4lite::dev
