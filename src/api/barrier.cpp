// SPDX-License-Identifier: MIT
// MPI_Barrier, MPI_Ibarrier, MPI_Barrier_init (algorithms: coll/barrier.cpp,
// the dissemination schedule in coll/build_basic.cpp).
#include "api/coll_inter.hpp"
#include "api/comm_util.hpp"
#include "api/coll_sched.hpp"
#include "coll/build.hpp"

using namespace ch4lite;
using namespace ch4lite::api::coll;

namespace {

int barrier(const char* fn, form f, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
    dev::comm* c = nullptr;
    COLL_TRY(check_comm(fn, comm, c));
    COLL_TRY(check_form(fn, comm, f, info, request));
    if (c->is_inter()) return inter_barrier(fn, f, comm, *c, request);
    if (f == form::blocking && !blocking_sched()) {
        if (const status s = ch4lite::coll::barrier(*c); s != status::ok) return fail(fn, comm, s);
        return MPI_SUCCESS;
    }
    auto s = new_sched(*c);
    if (s) ch4lite::coll::add_barrier(*s);
    return issue(fn, comm, f, std::move(s), request);
}

}  // namespace

namespace ch4lite::api {
int comm_barrier(const char* fn, MPI_Comm comm) noexcept {
    return barrier(fn, form::blocking, comm, MPI_INFO_NULL, nullptr);
}
}  // namespace ch4lite::api

extern "C" {
CH4_PMPI(MPI_Barrier)
int MPI_Barrier(MPI_Comm comm) { CH4_API_LOCK(); return barrier(__func__, form::blocking, comm, MPI_INFO_NULL, nullptr); }
CH4_PMPI(MPI_Ibarrier)
int MPI_Ibarrier(MPI_Comm comm, MPI_Request* request) {
    CH4_API_LOCK();
    return barrier(__func__, form::nonblocking, comm, MPI_INFO_NULL, request);
}
CH4_PMPI(MPI_Barrier_init)
int MPI_Barrier_init(MPI_Comm comm, MPI_Info info, MPI_Request* request) {
    CH4_API_LOCK();
    return barrier(__func__, form::persistent, comm, info, request);
}
}
