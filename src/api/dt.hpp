// SPDX-License-Identifier: MIT
// What point-to-point needs to know about a datatype argument: validity,
// size, and whether `count` elements are one contiguous byte range.
// Resolution goes through DAME's handle lookup (api/datatype_handles.hpp).
#pragma once
#include <mpi.h>

#include <cstdint>

#include "api/datatype_handles.hpp"
#include "dame/type.hpp"

namespace ch4lite::api {

struct dt_info {
    const dame::type* t = nullptr;
    int64_t size = 0;      // bytes of one element
    int64_t extent = 0;
    int64_t true_lb = 0;   // data starts at buf + true_lb
    bool contig = true;
};

// False when the handle is not a valid datatype.
inline bool resolve_dt(MPI_Datatype dt, dt_info& out) noexcept {
    const dame::type* t = lookup_type(dt);
    if (!t) return false;
    out.t = t;
    out.size = t->size();
    out.extent = t->extent();
    out.true_lb = t->true_lb();
    out.contig = t->contiguous();
    return true;
}

}  // namespace ch4lite::api
