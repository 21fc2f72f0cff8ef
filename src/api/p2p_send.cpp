// SPDX-License-Identifier: MIT
// The send family: blocking, nonblocking, synchronous, ready; int and _c counts.
// MPI_Rsend behaves as MPI_Send (correct programs cannot tell the difference).
#include "api/p2p_common.hpp"

using namespace ch4lite;
using api::send_mode;

namespace {
int isend_checked(const char* func, const void* buf, int64_t count, MPI_Datatype dt, int dest,
                  int tag, MPI_Comm comm, send_mode mode, MPI_Request* request) {
    if (!request) {
        CH4_REQUIRE_INIT_IN(func);
        CH4_FAIL_IN(func, comm, MPI_ERR_ARG, "request (output) is NULL");
    }
    return api::send_impl(func, buf, count, dt, dest, tag, comm, mode, request);
}
}  // namespace

extern "C" {

int MPI_Send(const void* buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm) {
    return api::send_impl(__func__, buf, count, dt, dest, tag, comm, send_mode::standard, nullptr);
}
int MPI_Send_c(const void* buf, MPI_Count count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm) {
    return api::send_impl(__func__, buf, count, dt, dest, tag, comm, send_mode::standard, nullptr);
}
int MPI_Ssend(const void* buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm) {
    return api::send_impl(__func__, buf, count, dt, dest, tag, comm, send_mode::sync, nullptr);
}
int MPI_Ssend_c(const void* buf, MPI_Count count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm) {
    return api::send_impl(__func__, buf, count, dt, dest, tag, comm, send_mode::sync, nullptr);
}
int MPI_Rsend(const void* buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm) {
    return api::send_impl(__func__, buf, count, dt, dest, tag, comm, send_mode::ready, nullptr);
}
int MPI_Rsend_c(const void* buf, MPI_Count count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm) {
    return api::send_impl(__func__, buf, count, dt, dest, tag, comm, send_mode::ready, nullptr);
}
int MPI_Isend(const void* buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
              MPI_Request* request) {
    return isend_checked(__func__, buf, count, dt, dest, tag, comm, send_mode::standard, request);
}
int MPI_Isend_c(const void* buf, MPI_Count count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
                MPI_Request* request) {
    return isend_checked(__func__, buf, count, dt, dest, tag, comm, send_mode::standard, request);
}
int MPI_Issend(const void* buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
               MPI_Request* request) {
    return isend_checked(__func__, buf, count, dt, dest, tag, comm, send_mode::sync, request);
}
int MPI_Issend_c(const void* buf, MPI_Count count, MPI_Datatype dt, int dest, int tag,
                 MPI_Comm comm, MPI_Request* request) {
    return isend_checked(__func__, buf, count, dt, dest, tag, comm, send_mode::sync, request);
}
int MPI_Irsend(const void* buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
               MPI_Request* request) {
    return isend_checked(__func__, buf, count, dt, dest, tag, comm, send_mode::ready, request);
}
int MPI_Irsend_c(const void* buf, MPI_Count count, MPI_Datatype dt, int dest, int tag,
                 MPI_Comm comm, MPI_Request* request) {
    return isend_checked(__func__, buf, count, dt, dest, tag, comm, send_mode::ready, request);
}

}  // extern "C"
