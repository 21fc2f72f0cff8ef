// SPDX-License-Identifier: MIT
// Info objects (MPI-4.1 §10): ordered (key, value) lists. The API's info
// arguments are resolved here; hints a component understands are read with
// info_get and listed in docs/parameters.md ("Info hints"); the rest are
// ignored, as the standard allows.
#pragma once
#include <mpi.h>

#include <string>
#include <utility>
#include <vector>

namespace ch4lite::api {

struct info_obj {
    // In the order the keys were first set (MPI_Info_get_nthkey numbers them
    // so; a set of an existing key keeps its place).
    std::vector<std::pair<std::string, std::string>> kv;

    const std::string* find(const char* key) const noexcept;
};

// Resolves an info argument: true for MPI_INFO_NULL (out = nullptr),
// MPI_INFO_ENV and live created objects; false for anything else.
bool lookup_info(MPI_Info h, const info_obj*& out) noexcept;
inline bool info_is_valid(MPI_Info h) noexcept {
    const info_obj* o;
    return lookup_info(h, o);
}
#define CH4_INFO_MSG "invalid info %p: not MPI_INFO_NULL, MPI_INFO_ENV or a live info object"

// The value of `key` in info h (false when h is MPI_INFO_NULL, invalid, or
// has no such key).
bool info_get(MPI_Info h, const char* key, std::string& value) noexcept;

// A new info object (for MPI_Comm_get_info, MPI_Win_get_info, ...) holding
// kv; MPI_INFO_NULL when out of memory or handles.
MPI_Info info_make(std::vector<std::pair<std::string, std::string>> kv) noexcept;

}  // namespace ch4lite::api
