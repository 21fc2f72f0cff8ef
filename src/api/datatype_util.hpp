// SPDX-License-Identifier: MIT
// Shared argument checks of the datatype wrappers. Each helper takes the
// calling MPI function's name (`fn`) so messages read
// "MPI_Type_vector: invalid count -1: must be >= 0"; datatype errors are
// raised on MPI_COMM_SELF (MPI 9.3: errors not tied to a communicator).
#pragma once
#include <mpi.h>

#include <cstdint>
#include <span>
#include <vector>

#include "api/datatype_handles.hpp"
#include "api/errors.hpp"

// Helpers here name the MPI function in `fn`.
#define DT_FAIL(cls, ...) CH4_FAIL_SELF_IN(fn, cls, __VA_ARGS__)
#define DT_REQUIRE_INIT() CH4_REQUIRE_INIT_IN(fn)
#define DT_TRY(expr)                        \
    do {                                    \
        if (int rc_ = (expr); rc_ != 0) return rc_; \
    } while (0)

namespace ch4lite::api::dt {

// Resolves a datatype argument or raises MPI_ERR_TYPE.
int resolve(const char* fn, const char* what, MPI_Datatype h, dame::type** out) noexcept;
int check_count(const char* fn, const char* what, int64_t v) noexcept;       // >= 0, MPI_ERR_COUNT
int check_nonneg(const char* fn, const char* what, int64_t v) noexcept;      // >= 0, MPI_ERR_ARG
int check_ptr(const char* fn, const char* what, const void* p) noexcept;    // non-null, MPI_ERR_ARG
// The count and datatype of a pack or unpack: 0 with *t the committed type,
// or the error code (not raised, as for check_span).
int check_moved_type(const char* fn, int64_t count, MPI_Datatype datatype, const dame::type** t) noexcept;
// The buffer arguments of a pack (pack true) or unpack moving `bytes` bytes
// at *position of a packed buffer of `size` bytes (outsize / insize), `buf`
// being that buffer: 0, or the error code (not raised: MPI_Pack raises on
// its communicator, MPI_Pack_external on MPI_COMM_SELF). `kind` names the
// bytes in the truncation message ("" or "external32 ").
int check_span(const char* fn, bool pack, const char* kind, bool position_null, int64_t pos,
               int64_t size, int64_t bytes, const void* buf) noexcept;
// Maps a DAME construction status, records contents and user types, and
// hands out the handle.
int finish(const char* fn, ch4lite::status s, dame::type* t, dame::contents c, bool large,
           std::span<dame::type* const> user, MPI_Datatype* newtype) noexcept;

template <class T>
dame::pool_vec<int64_t> widen(const T* a, int64_t n) {
    return n > 0 ? dame::pool_vec<int64_t>(a, a + n) : dame::pool_vec<int64_t>{};
}

}  // namespace ch4lite::api::dt
