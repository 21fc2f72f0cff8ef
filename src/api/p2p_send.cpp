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

CH4_PMPI(MPI_Send)
int MPI_Send(const void* buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm) {
    CH4_API_LOCK();
    return api::send_impl(__func__, buf, count, dt, dest, tag, comm, send_mode::standard, nullptr);
}
CH4_PMPI(MPI_Send_c)
int MPI_Send_c(const void* buf, MPI_Count count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm) {
    CH4_API_LOCK();
    return api::send_impl(__func__, buf, count, dt, dest, tag, comm, send_mode::standard, nullptr);
}
CH4_PMPI(MPI_Ssend)
int MPI_Ssend(const void* buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm) {
    CH4_API_LOCK();
    return api::send_impl(__func__, buf, count, dt, dest, tag, comm, send_mode::sync, nullptr);
}
CH4_PMPI(MPI_Ssend_c)
int MPI_Ssend_c(const void* buf, MPI_Count count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm) {
    CH4_API_LOCK();
    return api::send_impl(__func__, buf, count, dt, dest, tag, comm, send_mode::sync, nullptr);
}
CH4_PMPI(MPI_Rsend)
int MPI_Rsend(const void* buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm) {
    CH4_API_LOCK();
    return api::send_impl(__func__, buf, count, dt, dest, tag, comm, send_mode::ready, nullptr);
}
CH4_PMPI(MPI_Rsend_c)
int MPI_Rsend_c(const void* buf, MPI_Count count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm) {
    CH4_API_LOCK();
    return api::send_impl(__func__, buf, count, dt, dest, tag, comm, send_mode::ready, nullptr);
}
CH4_PMPI(MPI_Isend)
int MPI_Isend(const void* buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
              MPI_Request* request) {
    CH4_API_LOCK();
    return isend_checked(__func__, buf, count, dt, dest, tag, comm, send_mode::standard, request);
}
CH4_PMPI(MPI_Isend_c)
int MPI_Isend_c(const void* buf, MPI_Count count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
                MPI_Request* request) {
    CH4_API_LOCK();
    return isend_checked(__func__, buf, count, dt, dest, tag, comm, send_mode::standard, request);
}
CH4_PMPI(MPI_Issend)
int MPI_Issend(const void* buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
               MPI_Request* request) {
    CH4_API_LOCK();
    return isend_checked(__func__, buf, count, dt, dest, tag, comm, send_mode::sync, request);
}
CH4_PMPI(MPI_Issend_c)
int MPI_Issend_c(const void* buf, MPI_Count count, MPI_Datatype dt, int dest, int tag,
                 MPI_Comm comm, MPI_Request* request) {
    CH4_API_LOCK();
    return isend_checked(__func__, buf, count, dt, dest, tag, comm, send_mode::sync, request);
}
CH4_PMPI(MPI_Irsend)
int MPI_Irsend(const void* buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
               MPI_Request* request) {
    CH4_API_LOCK();
    return isend_checked(__func__, buf, count, dt, dest, tag, comm, send_mode::ready, request);
}
CH4_PMPI(MPI_Irsend_c)
int MPI_Irsend_c(const void* buf, MPI_Count count, MPI_Datatype dt, int dest, int tag,
                 MPI_Comm comm, MPI_Request* request) {
    CH4_API_LOCK();
    return isend_checked(__func__, buf, count, dt, dest, tag, comm, send_mode::ready, request);
}

}  // extern "C"
