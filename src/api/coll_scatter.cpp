// SPDX-License-Identifier: MIT
// MPI_Scatter(v), MPI_Iscatter(v), MPI_Scatter(v)_init (and _c).
// MPI_IN_PLACE as recvbuf at the root: its block stays in sendbuf.
#include <climits>

#include "api/coll_inter.hpp"
#include "api/coll_sched.hpp"
#include "coll/build.hpp"

using namespace ch4lite;
using namespace ch4lite::api::coll;

namespace {

// The receive side shared by Scatter and Scatterv: checks recvbuf, its bytes.
int recv_side(const char* fn, MPI_Comm comm, const dev::comm& c, int root, void* recvbuf,
              int64_t rcount, MPI_Datatype rdt, const dame::type*& t, std::size_t& bytes) noexcept {
    t = nullptr;
    bytes = 0;
    if (in_place(recvbuf)) {
        if (c.rank != root)
            COLL_FAIL(MPI_ERR_BUFFER, "MPI_IN_PLACE as recvbuf is allowed only at the root");
        return MPI_SUCCESS;
    }
    COLL_TRY(check_buf(fn, comm, "recvbuf", recvbuf, rcount, rdt, t));
    COLL_TRY(stream_bytes(fn, comm, rcount, *t, bytes));
    return MPI_SUCCESS;
}

int scatter(const char* fn, form f, const void* sendbuf, int64_t scount, MPI_Datatype sdt,
            void* recvbuf, int64_t rcount, MPI_Datatype rdt, int root, MPI_Comm comm, MPI_Info info,
            MPI_Request* request) {
    dev::comm* c = nullptr;
    COLL_TRY(check_comm(fn, comm, c));
    COLL_TRY(check_form(fn, comm, f, info, request));
    if (c->is_inter()) return inter_scatter(fn, f, sendbuf, scount, sdt, recvbuf, rcount, rdt, root, comm, *c, request);
    COLL_TRY(check_root(fn, comm, *c, root));
    const int p = c->size;
    const bool am_root = c->rank == root, inplace = in_place(recvbuf);
    const dame::type *st = nullptr, *rt = nullptr;
    std::size_t rbytes = 0;
    COLL_TRY(recv_side(fn, comm, *c, root, recvbuf, rcount, rdt, rt, rbytes));
    std::size_t block = rbytes;
    if (am_root) {
        COLL_TRY(check_buf(fn, comm, "sendbuf", sendbuf, scount, sdt, st));
        if (scount > INT64_MAX / p) COLL_FAIL(MPI_ERR_COUNT, "sendcount times the group size overflows");
        std::size_t total = 0;
        COLL_TRY(stream_bytes(fn, comm, scount * p, *st, total));
        block = total / static_cast<std::size_t>(p);
        if (!inplace && rbytes != block)
            COLL_FAIL(MPI_ERR_TRUNCATE,
                      "the root sends %zu bytes per process but receives %zu bytes: sendcount "
                      "and sendtype must match recvcount and recvtype",
                      block, rbytes);
    }
    if (f == form::blocking && !blocking_sched()) {
        stream ss, rs;
        status s = inplace ? status::ok : rs.prepare(recvbuf, rcount, *rt);
        if (s == status::ok && am_root) s = ss.load(sendbuf, scount * p, *st);
        if (s == status::ok)
            s = ch4lite::coll::scatter(ss.data(), inplace ? nullptr : rs.data(), block, root, *c);
        if (s != status::ok) return fail(fn, comm, s);
        rs.store();
        return MPI_SUCCESS;
    }
    auto s = new_sched(*c);
    if (s) {
        const std::byte* sd = am_root ? s->user_stream(sendbuf, scount * p, *st, true) : nullptr;
        std::byte* rd = inplace ? nullptr : s->user_stream(recvbuf, rcount, *rt, false);
        s->fence();
        ch4lite::coll::add_scatter(*s, sd, rd, block, root);
        if (!inplace) s->user_store(rd, recvbuf, rcount, *rt);
    }
    return issue(fn, comm, f, std::move(s), request);
}

template <class C, class D>
int scatterv(const char* fn, form f, const void* sendbuf, const C* scounts, const D* displs,
             MPI_Datatype sdt, void* recvbuf, int64_t rcount, MPI_Datatype rdt, int root,
             MPI_Comm comm, MPI_Info info, MPI_Request* request) {
    dev::comm* c = nullptr;
    COLL_TRY(check_comm(fn, comm, c));
    COLL_TRY(check_form(fn, comm, f, info, request));
    if (c->is_inter()) return inter_scatterv(fn, f, sendbuf, scounts, displs, sdt, recvbuf, rcount, rdt, root, comm, *c, request);
    COLL_TRY(check_root(fn, comm, *c, root));
    const int p = c->size;
    const bool am_root = c->rank == root, inplace = in_place(recvbuf);
    const dame::type *st = nullptr, *rt = nullptr;
    std::size_t rbytes = 0;
    COLL_TRY(recv_side(fn, comm, *c, root, recvbuf, rcount, rdt, rt, rbytes));
    if (am_root) {
        COLL_TRY(check_counts(fn, comm, "sendcounts", scounts, p));
        if (!displs) COLL_FAIL(MPI_ERR_ARG, "displs is NULL");
        int64_t any = 0;
        for (int i = 0; i < p; ++i) any |= scounts[i];
        COLL_TRY(check_buf(fn, comm, "sendbuf", sendbuf, any ? 1 : 0, sdt, st));
        const std::size_t mine = static_cast<std::size_t>(scounts[root] * st->size());
        if (!inplace && rbytes != mine)
            COLL_FAIL(MPI_ERR_TRUNCATE,
                      "sendcounts[%d] holds %zu bytes but the root receives %zu bytes", root,
                      mine, rbytes);
    }
    if (f == form::blocking && !blocking_sched()) {
        stream rs;
        vstream sv;
        status s = inplace ? status::ok : rs.prepare(recvbuf, rcount, *rt);
        if (s == status::ok && am_root) s = sv.load(sendbuf, scounts, displs, *st, p);
        if (s == status::ok)
            s = ch4lite::coll::scatterv(am_root ? sv.cblocks() : nullptr, inplace ? nullptr : rs.data(),
                                        rbytes, root, *c);
        if (s != status::ok) return fail(fn, comm, s);
        rs.store();
        return MPI_SUCCESS;
    }
    auto s = new_sched(*c);
    if (s) {
        ch4lite::coll::block* b = nullptr;
        if (am_root) b = sched_blocks(*s, sendbuf, scounts, displs, *st, p, inplace ? -1 : -2);
        std::byte* rd = inplace ? nullptr : s->user_stream(recvbuf, rcount, *rt, false);
        s->fence();
        if (!am_root || b)
            ch4lite::coll::add_scatterv(*s, reinterpret_cast<const ch4lite::coll::cblock*>(b), rd, rbytes, root);
        if (!inplace) s->user_store(rd, recvbuf, rcount, *rt);
    }
    return issue(fn, comm, f, std::move(s), request);
}

}  // namespace

extern "C" {
CH4_PMPI(MPI_Scatter)
int MPI_Scatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
    CH4_API_LOCK();
    return scatter(__func__, form::blocking, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                   recvtype, root, comm, MPI_INFO_NULL, nullptr);
}
CH4_PMPI(MPI_Scatter_c)
int MPI_Scatter_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                  MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
    CH4_API_LOCK();
    return scatter(__func__, form::blocking, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                   recvtype, root, comm, MPI_INFO_NULL, nullptr);
}
CH4_PMPI(MPI_Iscatter)
int MPI_Iscatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                 int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request* request) {
    CH4_API_LOCK();
    return scatter(__func__, form::nonblocking, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                   recvtype, root, comm, MPI_INFO_NULL, request);
}
CH4_PMPI(MPI_Iscatter_c)
int MPI_Iscatter_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                   MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                   MPI_Request* request) {
    CH4_API_LOCK();
    return scatter(__func__, form::nonblocking, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                   recvtype, root, comm, MPI_INFO_NULL, request);
}
CH4_PMPI(MPI_Scatter_init)
int MPI_Scatter_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                     int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                     MPI_Request* request) {
    CH4_API_LOCK();
    return scatter(__func__, form::persistent, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                   recvtype, root, comm, info, request);
}
CH4_PMPI(MPI_Scatter_init_c)
int MPI_Scatter_init_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                       void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                       MPI_Comm comm, MPI_Info info, MPI_Request* request) {
    CH4_API_LOCK();
    return scatter(__func__, form::persistent, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                   recvtype, root, comm, info, request);
}
CH4_PMPI(MPI_Scatterv)
int MPI_Scatterv(const void* sendbuf, const int sendcounts[], const int displs[],
                 MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype,
                 int root, MPI_Comm comm) {
    CH4_API_LOCK();
    return scatterv(__func__, form::blocking, sendbuf, sendcounts, displs, sendtype, recvbuf,
                    recvcount, recvtype, root, comm, MPI_INFO_NULL, nullptr);
}
CH4_PMPI(MPI_Scatterv_c)
int MPI_Scatterv_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[],
                   MPI_Datatype sendtype, void* recvbuf, MPI_Count recvcount,
                   MPI_Datatype recvtype, int root, MPI_Comm comm) {
    CH4_API_LOCK();
    return scatterv(__func__, form::blocking, sendbuf, sendcounts, displs, sendtype, recvbuf,
                    recvcount, recvtype, root, comm, MPI_INFO_NULL, nullptr);
}
CH4_PMPI(MPI_Iscatterv)
int MPI_Iscatterv(const void* sendbuf, const int sendcounts[], const int displs[],
                  MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype,
                  int root, MPI_Comm comm, MPI_Request* request) {
    CH4_API_LOCK();
    return scatterv(__func__, form::nonblocking, sendbuf, sendcounts, displs, sendtype, recvbuf,
                    recvcount, recvtype, root, comm, MPI_INFO_NULL, request);
}
CH4_PMPI(MPI_Iscatterv_c)
int MPI_Iscatterv_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[],
                    MPI_Datatype sendtype, void* recvbuf, MPI_Count recvcount,
                    MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request* request) {
    CH4_API_LOCK();
    return scatterv(__func__, form::nonblocking, sendbuf, sendcounts, displs, sendtype, recvbuf,
                    recvcount, recvtype, root, comm, MPI_INFO_NULL, request);
}
CH4_PMPI(MPI_Scatterv_init)
int MPI_Scatterv_init(const void* sendbuf, const int sendcounts[], const int displs[],
                      MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype,
                      int root, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
    CH4_API_LOCK();
    return scatterv(__func__, form::persistent, sendbuf, sendcounts, displs, sendtype, recvbuf,
                    recvcount, recvtype, root, comm, info, request);
}
CH4_PMPI(MPI_Scatterv_init_c)
int MPI_Scatterv_init_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[],
                        MPI_Datatype sendtype, void* recvbuf, MPI_Count recvcount,
                        MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                        MPI_Request* request) {
    CH4_API_LOCK();
    return scatterv(__func__, form::persistent, sendbuf, sendcounts, displs, sendtype, recvbuf,
                    recvcount, recvtype, root, comm, info, request);
}
}
