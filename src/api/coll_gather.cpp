// SPDX-License-Identifier: MIT
// MPI_Gather(v)(_c). MPI_IN_PLACE as sendbuf at the root: its block is
// already in recvbuf.
#include <climits>

#include "api/coll_args.hpp"

using namespace ch4lite;
using namespace ch4lite::api::coll;

namespace {

// The send side shared by Gather and Gatherv: checks and loads sendbuf.
int send_side(const char* fn, MPI_Comm comm, const dev::comm& c, int root, const void* sendbuf,
              int64_t scount, MPI_Datatype sdt, stream& s) noexcept {
    if (in_place(sendbuf)) {
        if (c.rank != root)
            COLL_FAIL(MPI_ERR_BUFFER, "MPI_IN_PLACE as sendbuf is allowed only at the root");
        return MPI_SUCCESS;
    }
    const dame::type* t = nullptr;
    COLL_TRY(check_buf(fn, comm, "sendbuf", sendbuf, scount, sdt, t));
    std::size_t bytes = 0;
    COLL_TRY(stream_bytes(fn, comm, scount, *t, bytes));
    if (const status st = s.load(sendbuf, scount, *t); st != status::ok) return fail(fn, comm, st);
    return MPI_SUCCESS;
}

int gather(const char* fn, const void* sendbuf, int64_t scount, MPI_Datatype sdt, void* recvbuf,
           int64_t rcount, MPI_Datatype rdt, int root, MPI_Comm comm) {
    dev::comm* c = nullptr;
    COLL_TRY(check_comm(fn, comm, c));
    COLL_TRY(check_root(fn, comm, *c, root));
    const bool am_root = c->rank == root, inplace = in_place(sendbuf);
    stream ss, rs;
    COLL_TRY(send_side(fn, comm, *c, root, sendbuf, scount, sdt, ss));
    std::size_t block = ss.bytes();
    if (am_root) {
        const dame::type* rt = nullptr;
        COLL_TRY(check_buf(fn, comm, "recvbuf", recvbuf, rcount, rdt, rt));
        if (rcount > INT64_MAX / c->size) COLL_FAIL(MPI_ERR_COUNT, "recvcount times the group size overflows");
        std::size_t total = 0;
        COLL_TRY(stream_bytes(fn, comm, rcount * c->size, *rt, total));
        block = total / static_cast<std::size_t>(c->size);
        if (!inplace && ss.bytes() != block)
            COLL_FAIL(MPI_ERR_TRUNCATE,
                      "the root sends %zu bytes but receives %zu bytes per process: sendcount "
                      "and sendtype must match recvcount and recvtype",
                      ss.bytes(), block);
        const status st = inplace ? rs.prepare_keep(recvbuf, rcount * c->size, *rt, root * block, block)
                                  : rs.prepare(recvbuf, rcount * c->size, *rt);
        if (st != status::ok) return fail(fn, comm, st);
    }
    const status st = dev::coll_gather(inplace ? nullptr : ss.data(), rs.data(), block, root, *c);
    if (st != status::ok) return fail(fn, comm, st);
    rs.store();
    return MPI_SUCCESS;
}

template <class C, class D>
int gatherv(const char* fn, const void* sendbuf, int64_t scount, MPI_Datatype sdt, void* recvbuf,
            const C* rcounts, const D* displs, MPI_Datatype rdt, int root, MPI_Comm comm) {
    dev::comm* c = nullptr;
    COLL_TRY(check_comm(fn, comm, c));
    COLL_TRY(check_root(fn, comm, *c, root));
    const bool am_root = c->rank == root, inplace = in_place(sendbuf);
    stream ss;
    vstream rv;
    COLL_TRY(send_side(fn, comm, *c, root, sendbuf, scount, sdt, ss));
    if (am_root) {
        COLL_TRY(check_counts(fn, comm, "recvcounts", rcounts, c->size));
        if (!displs) COLL_FAIL(MPI_ERR_ARG, "displs is NULL");
        int64_t any = 0;
        for (int i = 0; i < c->size; ++i) any |= rcounts[i];
        const dame::type* rt = nullptr;
        COLL_TRY(check_buf(fn, comm, "recvbuf", recvbuf, any ? 1 : 0, rdt, rt));
        const std::size_t mine = static_cast<std::size_t>(rcounts[root] * rt->size());
        if (!inplace && ss.bytes() != mine)
            COLL_FAIL(MPI_ERR_TRUNCATE,
                      "the root sends %zu bytes to itself but recvcounts[%d] holds %zu bytes",
                      ss.bytes(), root, mine);
        const status st = rv.prepare(recvbuf, rcounts, displs, *rt, c->size, inplace ? root : -1);
        if (st != status::ok) return fail(fn, comm, st);
    }
    const status st = dev::coll_gatherv(inplace ? nullptr : ss.data(), ss.bytes(),
                                        am_root ? rv.blocks() : nullptr, root, *c);
    if (st != status::ok) return fail(fn, comm, st);
    rv.store();
    return MPI_SUCCESS;
}

}  // namespace

extern "C" {
CH4_PMPI(MPI_Gather)
int MPI_Gather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
               int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
    return gather(__func__, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
}
CH4_PMPI(MPI_Gather_c)
int MPI_Gather_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                 MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
    return gather(__func__, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
}
CH4_PMPI(MPI_Gatherv)
int MPI_Gatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                MPI_Comm comm) {
    return gatherv(__func__, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype,
                   root, comm);
}
CH4_PMPI(MPI_Gatherv_c)
int MPI_Gatherv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                  const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
                  int root, MPI_Comm comm) {
    return gatherv(__func__, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype,
                   root, comm);
}
}
