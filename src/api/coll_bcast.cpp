// SPDX-License-Identifier: MIT
// MPI_Bcast(_c).
#include "api/coll_args.hpp"

using namespace ch4lite;

namespace {

int bcast(const char* fn, void* buf, int64_t count, MPI_Datatype dt, int root, MPI_Comm comm) {
    dev::comm* c = nullptr;
    COLL_TRY(api::coll::check_comm(fn, comm, c));
    COLL_TRY(api::coll::check_root(fn, comm, *c, root));
    const dame::type* t = nullptr;
    COLL_TRY(api::coll::check_buf(fn, comm, "buffer", buf, count, dt, t));
    std::size_t bytes = 0;
    COLL_TRY(api::coll::stream_bytes(fn, comm, count, *t, bytes));
    api::coll::stream s;
    status st = c->rank == root ? s.load(buf, count, *t) : s.prepare(buf, count, *t);
    if (st == status::ok) st = dev::coll_bcast(s.data(), s.bytes(), root, *c);
    if (st != status::ok) return api::coll::fail(fn, comm, st);
    if (c->rank != root) s.store();
    return MPI_SUCCESS;
}

}  // namespace

extern "C" {
CH4_PMPI(MPI_Bcast)
int MPI_Bcast(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm) {
    return bcast(__func__, buffer, count, datatype, root, comm);
}
CH4_PMPI(MPI_Bcast_c)
int MPI_Bcast_c(void* buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm) {
    return bcast(__func__, buffer, count, datatype, root, comm);
}
}
