// SPDX-License-Identifier: MIT
// MPI_Reduce, MPI_Allreduce, MPI_Scan, MPI_Exscan: blocking, nonblocking
// (MPI_I...) and persistent (..._init), and _c. MPI_IN_PLACE as sendbuf:
// the input is in recvbuf (Reduce: at the root only).
#include "api/coll_inter.hpp"
#include "api/coll_sched.hpp"
#include "coll/build.hpp"

using namespace ch4lite;
using namespace ch4lite::api::coll;

namespace {

enum class kind { reduce, allreduce, scan, exscan };

int reduction_call(const char* fn, form f, kind k, const void* sendbuf, void* recvbuf, int64_t count,
                   MPI_Datatype dt, MPI_Op op, int root, MPI_Comm comm, MPI_Info info,
                   MPI_Request* request) {
    dev::comm* c = nullptr;
    COLL_TRY(check_comm(fn, comm, c));
    COLL_TRY(check_form(fn, comm, f, info, request));
    if (c->is_inter()) {
        if (k == kind::scan || k == kind::exscan)
            COLL_FAIL(MPI_ERR_COMM, "not defined on an intercommunicator (MPI-4.1 §6.11)");
        return inter_reduce(fn, f, k == kind::allreduce, sendbuf, recvbuf, count, dt, op, root, comm,
                            *c, request);
    }
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
    ch4lite::coll::reduction r;
    COLL_TRY(make_reduction(fn, comm, op, *t, dt, r));
    // Exscan leaves rank 0's recvbuf as it is.
    const bool store = has_result && !(k == kind::exscan && c->rank == 0);
    if (f == form::blocking && !blocking_sched()) {
        stream ss, rs;
        status s = status::ok;
        if (!inplace) s = ss.load(sendbuf, count, *t);
        if (s == status::ok && has_result)
            s = inplace ? rs.prepare_inout(recvbuf, count, *t) : rs.prepare(recvbuf, count, *t);
        if (s != status::ok) return fail(fn, comm, s);
        const void* in = inplace ? nullptr : ss.data();
        switch (k) {
            case kind::reduce: s = ch4lite::coll::reduce(in, rs.data(), count, r, root, *c); break;
            case kind::allreduce: s = ch4lite::coll::allreduce(in, rs.data(), count, r, *c); break;
            case kind::scan: s = ch4lite::coll::scan(in, rs.data(), count, r, *c); break;
            case kind::exscan: s = ch4lite::coll::exscan(in, rs.data(), count, r, *c); break;
        }
        if (s != status::ok) return fail(fn, comm, s);
        if (store) rs.store();
        return MPI_SUCCESS;
    }
    auto s = new_sched(*c);
    if (s) {
        s->set_op(r);
        const std::byte* in = inplace ? nullptr : s->user_stream(sendbuf, count, *t, true);
        std::byte* out = has_result ? s->user_stream(recvbuf, count, *t, inplace) : nullptr;
        s->fence();
        switch (k) {
            case kind::reduce: ch4lite::coll::add_reduce(*s, in, out, count, root); break;
            case kind::allreduce: ch4lite::coll::add_allreduce(*s, in, out, count); break;
            case kind::scan: ch4lite::coll::add_scan(*s, in, out, count, false); break;
            case kind::exscan: ch4lite::coll::add_scan(*s, in, out, count, true); break;
        }
        if (store) s->user_store(out, recvbuf, count, *t);
    }
    return issue(fn, comm, f, std::move(s), request);
}

}  // namespace

#define RED_BLOCKING(name, K, CNT)                                                              \
    CH4_PMPI(name)                                                                              \
    int name(const void* sendbuf, void* recvbuf, CNT count, MPI_Datatype datatype, MPI_Op op,   \
             MPI_Comm comm) {                                                                   \
        CH4_API_LOCK();                                                                         \
        return reduction_call(__func__, form::blocking, K, sendbuf, recvbuf, count, datatype, op, \
                              0, comm, MPI_INFO_NULL, nullptr);                                 \
    }
#define RED_NONBLOCKING(name, K, CNT)                                                              \
    CH4_PMPI(name)                                                                                 \
    int name(const void* sendbuf, void* recvbuf, CNT count, MPI_Datatype datatype, MPI_Op op,      \
             MPI_Comm comm, MPI_Request* request) {                                                \
        CH4_API_LOCK();                                                                            \
        return reduction_call(__func__, form::nonblocking, K, sendbuf, recvbuf, count, datatype,   \
                              op, 0, comm, MPI_INFO_NULL, request);                                \
    }
#define RED_PERSISTENT(name, K, CNT)                                                               \
    CH4_PMPI(name)                                                                                 \
    int name(const void* sendbuf, void* recvbuf, CNT count, MPI_Datatype datatype, MPI_Op op,      \
             MPI_Comm comm, MPI_Info info, MPI_Request* request) {                                 \
        CH4_API_LOCK();                                                                            \
        return reduction_call(__func__, form::persistent, K, sendbuf, recvbuf, count, datatype,    \
                              op, 0, comm, info, request);                                         \
    }

extern "C" {
CH4_PMPI(MPI_Reduce)
int MPI_Reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
               int root, MPI_Comm comm) {
    CH4_API_LOCK();
    return reduction_call(__func__, form::blocking, kind::reduce, sendbuf, recvbuf, count, datatype,
                          op, root, comm, MPI_INFO_NULL, nullptr);
}
CH4_PMPI(MPI_Reduce_c)
int MPI_Reduce_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype,
                 MPI_Op op, int root, MPI_Comm comm) {
    CH4_API_LOCK();
    return reduction_call(__func__, form::blocking, kind::reduce, sendbuf, recvbuf, count, datatype,
                          op, root, comm, MPI_INFO_NULL, nullptr);
}
CH4_PMPI(MPI_Ireduce)
int MPI_Ireduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                int root, MPI_Comm comm, MPI_Request* request) {
    CH4_API_LOCK();
    return reduction_call(__func__, form::nonblocking, kind::reduce, sendbuf, recvbuf, count,
                          datatype, op, root, comm, MPI_INFO_NULL, request);
}
CH4_PMPI(MPI_Ireduce_c)
int MPI_Ireduce_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype,
                  MPI_Op op, int root, MPI_Comm comm, MPI_Request* request) {
    CH4_API_LOCK();
    return reduction_call(__func__, form::nonblocking, kind::reduce, sendbuf, recvbuf, count,
                          datatype, op, root, comm, MPI_INFO_NULL, request);
}
CH4_PMPI(MPI_Reduce_init)
int MPI_Reduce_init(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                    int root, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
    CH4_API_LOCK();
    return reduction_call(__func__, form::persistent, kind::reduce, sendbuf, recvbuf, count,
                          datatype, op, root, comm, info, request);
}
CH4_PMPI(MPI_Reduce_init_c)
int MPI_Reduce_init_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype,
                      MPI_Op op, int root, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
    CH4_API_LOCK();
    return reduction_call(__func__, form::persistent, kind::reduce, sendbuf, recvbuf, count,
                          datatype, op, root, comm, info, request);
}
RED_BLOCKING(MPI_Allreduce, kind::allreduce, int)
RED_BLOCKING(MPI_Allreduce_c, kind::allreduce, MPI_Count)
RED_NONBLOCKING(MPI_Iallreduce, kind::allreduce, int)
RED_NONBLOCKING(MPI_Iallreduce_c, kind::allreduce, MPI_Count)
RED_PERSISTENT(MPI_Allreduce_init, kind::allreduce, int)
RED_PERSISTENT(MPI_Allreduce_init_c, kind::allreduce, MPI_Count)
RED_BLOCKING(MPI_Scan, kind::scan, int)
RED_BLOCKING(MPI_Scan_c, kind::scan, MPI_Count)
RED_NONBLOCKING(MPI_Iscan, kind::scan, int)
RED_NONBLOCKING(MPI_Iscan_c, kind::scan, MPI_Count)
RED_PERSISTENT(MPI_Scan_init, kind::scan, int)
RED_PERSISTENT(MPI_Scan_init_c, kind::scan, MPI_Count)
RED_BLOCKING(MPI_Exscan, kind::exscan, int)
RED_BLOCKING(MPI_Exscan_c, kind::exscan, MPI_Count)
RED_NONBLOCKING(MPI_Iexscan, kind::exscan, int)
RED_NONBLOCKING(MPI_Iexscan_c, kind::exscan, MPI_Count)
RED_PERSISTENT(MPI_Exscan_init, kind::exscan, int)
RED_PERSISTENT(MPI_Exscan_init_c, kind::exscan, MPI_Count)
}
