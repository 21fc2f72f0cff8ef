// SPDX-License-Identifier: MIT
// Shared argument checking and the bodies of the send and receive families
// (MPI_Send/Ssend/Rsend/Isend/Issend/Irsend, MPI_Recv/Irecv and their _c
// forms). Each MPI_* function is a one-line call into these templates, so
// the checks and messages are written once.
#pragma once
#include <mpi.h>

#include <cstddef>
#include <cstdint>

#include "api/dt.hpp"
#include "api/errors.hpp"
#include "api/handles.hpp"
#include "api/status_util.hpp"
#include "device/comm.hpp"
#include "device/p2p.hpp"
#include "device/request.hpp"

namespace ch4lite::api {

// Checks (comm, count, datatype, buffer) of a message buffer and computes its
// byte count and start address. Returns MPI_SUCCESS or the raised code.
// Inline when every check passes; the out-of-line version finds and raises
// the error.
int check_message_buffer_raise(const char* func, MPI_Comm comm, const void* buf, int64_t count,
                               MPI_Datatype dt, dt_info& d, std::size_t& bytes,
                               const void*& start) noexcept;
inline int check_message_buffer(const char* func, MPI_Comm comm, const void* buf, int64_t count,
                                MPI_Datatype dt, dt_info& d, std::size_t& bytes,
                                const void*& start) noexcept {
    uint64_t total = 0;
    if (__builtin_expect(count >= 0 && resolve_dt(dt, d) && d.t->committed() &&
                             !__builtin_mul_overflow(static_cast<uint64_t>(count),
                                                     static_cast<uint64_t>(d.size), &total) &&
                             total <= static_cast<uint64_t>(INT64_MAX) &&
                             (buf != nullptr || total == 0 || d.true_lb != 0),
                         1)) {
        bytes = static_cast<std::size_t>(total);
        start = static_cast<const std::byte*>(buf) + d.true_lb;
        return MPI_SUCCESS;
    }
    return check_message_buffer_raise(func, comm, buf, count, dt, d, bytes, start);
}

// Fills *st from a completed receive request.
inline void fill_status(MPI_Status* st, const dev::request* r) noexcept {
    if (st == MPI_STATUS_IGNORE) return;
    st->MPI_SOURCE = r->src_rank;
    st->MPI_TAG = r->tag;
    set_status_bytes(st, static_cast<int64_t>(r->bytes));
    set_status_cancelled(st, r->cancelled);
}

// A request that is already complete (MPI_PROC_NULL operations).
dev::request* null_request(dev::req_kind kind) noexcept;

enum class send_mode { standard, sync, ready };

int send_impl(const char* func, const void* buf, int64_t count, MPI_Datatype dt, int dest, int tag,
              MPI_Comm comm, send_mode mode, MPI_Request* request) noexcept;
int recv_impl(const char* func, void* buf, int64_t count, MPI_Datatype dt, int source, int tag,
              MPI_Comm comm, MPI_Status* status, MPI_Request* request) noexcept;

// The second halves of send_impl / recv_impl: every argument checked, the
// buffer resolved (d, bytes, start); persistent requests start here.
int send_checked(const char* func, dev::comm& c, MPI_Comm comm, const void* buf, int64_t count,
                 const dt_info& d, std::size_t bytes, const void* start, int dest, int tag,
                 send_mode mode, MPI_Request* request) noexcept;
int recv_checked(const char* func, dev::comm& c, MPI_Comm comm, void* buf, int64_t count,
                 const dt_info& d, std::size_t bytes, const void* start, int source, int tag,
                 MPI_Status* status, MPI_Request* request) noexcept;

// Completes r (which must be complete): fills status, reports its error on
// its communicator, releases it. Returns MPI_SUCCESS or the error code.
int finish_request(const char* func, dev::request* r, MPI_Status* status) noexcept;
// Same without running the error handler: the code (with its message) and
// the communicator it belongs to; for the multiple-completion functions.
int settle_request(const char* func, dev::request* r, MPI_Status* status, MPI_Comm& comm) noexcept;

}  // namespace ch4lite::api
