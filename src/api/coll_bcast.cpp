// SPDX-License-Identifier: MIT
// MPI_Bcast, MPI_Ibcast, MPI_Bcast_init (and _c).
#include "api/coll_inter.hpp"
#include "api/coll_sched.hpp"
#include "coll/build.hpp"

using namespace ch4lite;
using namespace ch4lite::api::coll;

namespace {

int bcast(const char* fn, form f, void* buf, int64_t count, MPI_Datatype dt, int root, MPI_Comm comm,
          MPI_Info info, MPI_Request* request) {
    dev::comm* c = nullptr;
    COLL_TRY(check_comm(fn, comm, c));
    COLL_TRY(check_form(fn, comm, f, info, request));
    if (c->is_inter()) return inter_bcast(fn, f, buf, count, dt, root, comm, *c, request);
    COLL_TRY(check_root(fn, comm, *c, root));
    const dame::type* t = nullptr;
    COLL_TRY(check_buf(fn, comm, "buffer", buf, count, dt, t));
    std::size_t bytes = 0;
    COLL_TRY(stream_bytes(fn, comm, count, *t, bytes));
    const bool am_root = c->rank == root;
    if (f == form::blocking && !blocking_sched()) {
        stream s;
        status st = am_root ? s.load(buf, count, *t) : s.prepare(buf, count, *t);
        if (st == status::ok) st = ch4lite::coll::bcast(s.data(), s.bytes(), root, *c);
        if (st != status::ok) return fail(fn, comm, st);
        if (!am_root) s.store();
        return MPI_SUCCESS;
    }
    auto s = new_sched(*c);
    if (s) {
        std::byte* d = s->user_stream(buf, count, *t, am_root);
        s->fence();
        ch4lite::coll::add_bcast_any(*s, d, bytes, root, f == form::nonblocking);
        if (!am_root) s->user_store(d, buf, count, *t);
    }
    return issue(fn, comm, f, std::move(s), request);
}

}  // namespace

extern "C" {
CH4_PMPI(MPI_Bcast)
int MPI_Bcast(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm) {
    CH4_API_LOCK();
    return bcast(__func__, form::blocking, buffer, count, datatype, root, comm, MPI_INFO_NULL, nullptr);
}
CH4_PMPI(MPI_Bcast_c)
int MPI_Bcast_c(void* buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm) {
    CH4_API_LOCK();
    return bcast(__func__, form::blocking, buffer, count, datatype, root, comm, MPI_INFO_NULL, nullptr);
}
CH4_PMPI(MPI_Ibcast)
int MPI_Ibcast(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
               MPI_Request* request) {
    CH4_API_LOCK();
    return bcast(__func__, form::nonblocking, buffer, count, datatype, root, comm, MPI_INFO_NULL, request);
}
CH4_PMPI(MPI_Ibcast_c)
int MPI_Ibcast_c(void* buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm,
                 MPI_Request* request) {
    CH4_API_LOCK();
    return bcast(__func__, form::nonblocking, buffer, count, datatype, root, comm, MPI_INFO_NULL, request);
}
CH4_PMPI(MPI_Bcast_init)
int MPI_Bcast_init(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
                   MPI_Info info, MPI_Request* request) {
    CH4_API_LOCK();
    return bcast(__func__, form::persistent, buffer, count, datatype, root, comm, info, request);
}
CH4_PMPI(MPI_Bcast_init_c)
int MPI_Bcast_init_c(void* buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm,
                     MPI_Info info, MPI_Request* request) {
    CH4_API_LOCK();
    return bcast(__func__, form::persistent, buffer, count, datatype, root, comm, info, request);
}
}
