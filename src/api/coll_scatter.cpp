// SPDX-License-Identifier: MIT
// MPI_Scatter(v)(_c). MPI_IN_PLACE as recvbuf at the root: its block stays
// in sendbuf.
#include <climits>

#include "api/coll_args.hpp"

using namespace ch4lite;
using namespace ch4lite::api::coll;

namespace {

// The receive side shared by Scatter and Scatterv.
int recv_side(const char* fn, MPI_Comm comm, const dev::comm& c, int root, void* recvbuf,
              int64_t rcount, MPI_Datatype rdt, stream& s) noexcept {
    if (in_place(recvbuf)) {
        if (c.rank != root)
            COLL_FAIL(MPI_ERR_BUFFER, "MPI_IN_PLACE as recvbuf is allowed only at the root");
        return MPI_SUCCESS;
    }
    const dame::type* t = nullptr;
    COLL_TRY(check_buf(fn, comm, "recvbuf", recvbuf, rcount, rdt, t));
    std::size_t bytes = 0;
    COLL_TRY(stream_bytes(fn, comm, rcount, *t, bytes));
    if (const status st = s.prepare(recvbuf, rcount, *t); st != status::ok) return fail(fn, comm, st);
    return MPI_SUCCESS;
}

int scatter(const char* fn, const void* sendbuf, int64_t scount, MPI_Datatype sdt, void* recvbuf,
            int64_t rcount, MPI_Datatype rdt, int root, MPI_Comm comm) {
    dev::comm* c = nullptr;
    COLL_TRY(check_comm(fn, comm, c));
    COLL_TRY(check_root(fn, comm, *c, root));
    const bool am_root = c->rank == root, inplace = in_place(recvbuf);
    stream ss, rs;
    COLL_TRY(recv_side(fn, comm, *c, root, recvbuf, rcount, rdt, rs));
    std::size_t block = rs.bytes();
    if (am_root) {
        const dame::type* st = nullptr;
        COLL_TRY(check_buf(fn, comm, "sendbuf", sendbuf, scount, sdt, st));
        if (scount > INT64_MAX / c->size) COLL_FAIL(MPI_ERR_COUNT, "sendcount times the group size overflows");
        std::size_t total = 0;
        COLL_TRY(stream_bytes(fn, comm, scount * c->size, *st, total));
        block = total / static_cast<std::size_t>(c->size);
        if (!inplace && rs.bytes() != block)
            COLL_FAIL(MPI_ERR_TRUNCATE,
                      "the root sends %zu bytes per process but receives %zu bytes: sendcount "
                      "and sendtype must match recvcount and recvtype",
                      block, rs.bytes());
        if (const status s = ss.load(sendbuf, scount * c->size, *st); s != status::ok)
            return fail(fn, comm, s);
    }
    const status s = dev::coll_scatter(ss.data(), inplace ? nullptr : rs.data(), block, root, *c);
    if (s != status::ok) return fail(fn, comm, s);
    rs.store();
    return MPI_SUCCESS;
}

template <class C, class D>
int scatterv(const char* fn, const void* sendbuf, const C* scounts, const D* displs,
             MPI_Datatype sdt, void* recvbuf, int64_t rcount, MPI_Datatype rdt, int root,
             MPI_Comm comm) {
    dev::comm* c = nullptr;
    COLL_TRY(check_comm(fn, comm, c));
    COLL_TRY(check_root(fn, comm, *c, root));
    const bool am_root = c->rank == root, inplace = in_place(recvbuf);
    stream rs;
    vstream sv;
    COLL_TRY(recv_side(fn, comm, *c, root, recvbuf, rcount, rdt, rs));
    if (am_root) {
        COLL_TRY(check_counts(fn, comm, "sendcounts", scounts, c->size));
        if (!displs) COLL_FAIL(MPI_ERR_ARG, "displs is NULL");
        int64_t any = 0;
        for (int i = 0; i < c->size; ++i) any |= scounts[i];
        const dame::type* st = nullptr;
        COLL_TRY(check_buf(fn, comm, "sendbuf", sendbuf, any ? 1 : 0, sdt, st));
        const std::size_t mine = static_cast<std::size_t>(scounts[root] * st->size());
        if (!inplace && rs.bytes() != mine)
            COLL_FAIL(MPI_ERR_TRUNCATE,
                      "sendcounts[%d] holds %zu bytes but the root receives %zu bytes", root,
                      mine, rs.bytes());
        if (const status s = sv.load(sendbuf, scounts, displs, *st, c->size); s != status::ok)
            return fail(fn, comm, s);
    }
    const status s = dev::coll_scatterv(am_root ? sv.cblocks() : nullptr,
                                        inplace ? nullptr : rs.data(), rs.bytes(), root, *c);
    if (s != status::ok) return fail(fn, comm, s);
    rs.store();
    return MPI_SUCCESS;
}

}  // namespace

extern "C" {
CH4_PMPI(MPI_Scatter)
int MPI_Scatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
    return scatter(__func__, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
}
CH4_PMPI(MPI_Scatter_c)
int MPI_Scatter_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                  MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
    return scatter(__func__, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
}
CH4_PMPI(MPI_Scatterv)
int MPI_Scatterv(const void* sendbuf, const int sendcounts[], const int displs[],
                 MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype,
                 int root, MPI_Comm comm) {
    return scatterv(__func__, sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype,
                    root, comm);
}
CH4_PMPI(MPI_Scatterv_c)
int MPI_Scatterv_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[],
                   MPI_Datatype sendtype, void* recvbuf, MPI_Count recvcount,
                   MPI_Datatype recvtype, int root, MPI_Comm comm) {
    return scatterv(__func__, sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype,
                    root, comm);
}
}
