// SPDX-License-Identifier: MIT
// MPI_Reduce, MPI_Allreduce, MPI_Scan, MPI_Exscan (and _c). MPI_IN_PLACE
// as sendbuf: the input is in recvbuf (Reduce: at the root only).
#include "api/coll_args.hpp"

using namespace ch4lite;
using namespace ch4lite::api::coll;

namespace {

enum class kind { reduce, allreduce, scan, exscan };

int reduction_call(const char* fn, kind k, const void* sendbuf, void* recvbuf, int64_t count,
                   MPI_Datatype dt, MPI_Op op, int root, MPI_Comm comm) {
    dev::comm* c = nullptr;
    COLL_TRY(check_comm(fn, comm, c));
    if (k == kind::reduce) COLL_TRY(check_root(fn, comm, *c, root));
    const bool has_result = k != kind::reduce || c->rank == root;
    const bool inplace = in_place(sendbuf);
    if (inplace && !has_result)
        COLL_FAIL(MPI_ERR_BUFFER, "MPI_IN_PLACE as sendbuf is allowed only at the root");
    const dame::type* t = nullptr;
    if (!inplace) COLL_TRY(check_buf(fn, comm, "sendbuf", sendbuf, count, dt, t));
    if (has_result) COLL_TRY(check_buf(fn, comm, "recvbuf", recvbuf, count, dt, t));
    std::size_t bytes = 0;
    COLL_TRY(stream_bytes(fn, comm, count, *t, bytes));
    dev::reduction r;
    COLL_TRY(make_reduction(fn, comm, op, *t, dt, r));
    stream ss, rs;
    status s = status::ok;
    if (!inplace) s = ss.load(sendbuf, count, *t);
    if (s == status::ok && has_result)
        s = inplace ? rs.prepare_inout(recvbuf, count, *t) : rs.prepare(recvbuf, count, *t);
    if (s != status::ok) return fail(fn, comm, s);
    const void* in = inplace ? nullptr : ss.data();
    switch (k) {
        case kind::reduce: s = dev::coll_reduce(in, rs.data(), count, r, root, *c); break;
        case kind::allreduce: s = dev::coll_allreduce(in, rs.data(), count, r, *c); break;
        case kind::scan: s = dev::coll_scan(in, rs.data(), count, r, *c); break;
        case kind::exscan: s = dev::coll_exscan(in, rs.data(), count, r, *c); break;
    }
    if (s != status::ok) return fail(fn, comm, s);
    if (has_result && !(k == kind::exscan && c->rank == 0)) rs.store();
    return MPI_SUCCESS;
}

}  // namespace

extern "C" {
CH4_PMPI(MPI_Reduce)
int MPI_Reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
               int root, MPI_Comm comm) {
    return reduction_call(__func__, kind::reduce, sendbuf, recvbuf, count, datatype, op, root, comm);
}
CH4_PMPI(MPI_Reduce_c)
int MPI_Reduce_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype,
                 MPI_Op op, int root, MPI_Comm comm) {
    return reduction_call(__func__, kind::reduce, sendbuf, recvbuf, count, datatype, op, root, comm);
}
CH4_PMPI(MPI_Allreduce)
int MPI_Allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                  MPI_Comm comm) {
    return reduction_call(__func__, kind::allreduce, sendbuf, recvbuf, count, datatype, op, 0, comm);
}
CH4_PMPI(MPI_Allreduce_c)
int MPI_Allreduce_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype,
                    MPI_Op op, MPI_Comm comm) {
    return reduction_call(__func__, kind::allreduce, sendbuf, recvbuf, count, datatype, op, 0, comm);
}
CH4_PMPI(MPI_Scan)
int MPI_Scan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
             MPI_Comm comm) {
    return reduction_call(__func__, kind::scan, sendbuf, recvbuf, count, datatype, op, 0, comm);
}
CH4_PMPI(MPI_Scan_c)
int MPI_Scan_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype,
               MPI_Op op, MPI_Comm comm) {
    return reduction_call(__func__, kind::scan, sendbuf, recvbuf, count, datatype, op, 0, comm);
}
CH4_PMPI(MPI_Exscan)
int MPI_Exscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
               MPI_Comm comm) {
    return reduction_call(__func__, kind::exscan, sendbuf, recvbuf, count, datatype, op, 0, comm);
}
CH4_PMPI(MPI_Exscan_c)
int MPI_Exscan_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype,
                 MPI_Op op, MPI_Comm comm) {
    return reduction_call(__func__, kind::exscan, sendbuf, recvbuf, count, datatype, op, 0, comm);
}
}
