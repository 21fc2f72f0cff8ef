// SPDX-License-Identifier: MIT
// MPI_Alltoall(v)(_c). MPI_IN_PLACE as sendbuf: recvbuf holds the data to
// send and receives the result (sendcount/sendtype are ignored).
#include <climits>

#include "api/coll_args.hpp"

using namespace ch4lite;
using namespace ch4lite::api::coll;

namespace {

int alltoall(const char* fn, const void* sendbuf, int64_t scount, MPI_Datatype sdt,
             void* recvbuf, int64_t rcount, MPI_Datatype rdt, MPI_Comm comm) {
    dev::comm* c = nullptr;
    COLL_TRY(check_comm(fn, comm, c));
    const int p = c->size;
    const dame::type* rt = nullptr;
    COLL_TRY(check_buf(fn, comm, "recvbuf", recvbuf, rcount, rdt, rt));
    if (rcount > INT64_MAX / p) COLL_FAIL(MPI_ERR_COUNT, "recvcount times the group size overflows");
    std::size_t total = 0;
    COLL_TRY(stream_bytes(fn, comm, rcount * p, *rt, total));
    const std::size_t block = total / static_cast<std::size_t>(p);
    stream ss, rs;
    if (in_place(sendbuf)) {
        if (const status s = rs.prepare_inout(recvbuf, rcount * p, *rt); s != status::ok)
            return fail(fn, comm, s);
    } else {
        const dame::type* st = nullptr;
        COLL_TRY(check_buf(fn, comm, "sendbuf", sendbuf, scount, sdt, st));
        if (scount > INT64_MAX / p) COLL_FAIL(MPI_ERR_COUNT, "sendcount times the group size overflows");
        std::size_t stotal = 0;
        COLL_TRY(stream_bytes(fn, comm, scount * p, *st, stotal));
        if (stotal != total)
            COLL_FAIL(MPI_ERR_TRUNCATE,
                      "each block sent is %zu bytes but each block received is %zu bytes: "
                      "sendcount and sendtype must match recvcount and recvtype",
                      stotal / static_cast<std::size_t>(p), block);
        status s = ss.load(sendbuf, scount * p, *st);
        if (s == status::ok) s = rs.prepare(recvbuf, rcount * p, *rt);
        if (s != status::ok) return fail(fn, comm, s);
    }
    if (const status s = dev::coll_alltoall(in_place(sendbuf) ? nullptr : ss.data(), rs.data(),
                                            block, *c);
        s != status::ok)
        return fail(fn, comm, s);
    rs.store();
    return MPI_SUCCESS;
}

template <class C, class D>
int alltoallv(const char* fn, const void* sendbuf, const C* scounts, const D* sdispls,
              MPI_Datatype sdt, void* recvbuf, const C* rcounts, const D* rdispls,
              MPI_Datatype rdt, MPI_Comm comm) {
    dev::comm* c = nullptr;
    COLL_TRY(check_comm(fn, comm, c));
    const int p = c->size, me = c->rank;
    COLL_TRY(check_counts(fn, comm, "recvcounts", rcounts, p));
    if (!rdispls) COLL_FAIL(MPI_ERR_ARG, "rdispls is NULL");
    int64_t any = 0;
    for (int i = 0; i < p; ++i) any |= rcounts[i];
    const dame::type* rt = nullptr;
    COLL_TRY(check_buf(fn, comm, "recvbuf", recvbuf, any ? 1 : 0, rdt, rt));
    const bool inplace = in_place(sendbuf);
    vstream sv, rv;
    if (!inplace) {
        COLL_TRY(check_counts(fn, comm, "sendcounts", scounts, p));
        if (!sdispls) COLL_FAIL(MPI_ERR_ARG, "sdispls is NULL");
        int64_t sany = 0;
        for (int i = 0; i < p; ++i) sany |= scounts[i];
        const dame::type* st = nullptr;
        COLL_TRY(check_buf(fn, comm, "sendbuf", sendbuf, sany ? 1 : 0, sdt, st));
        if (scounts[me] * st->size() != rcounts[me] * rt->size())
            COLL_FAIL(MPI_ERR_TRUNCATE,
                      "this process sends itself %lld bytes but expects %lld bytes from itself",
                      static_cast<long long>(scounts[me] * st->size()),
                      static_cast<long long>(rcounts[me] * rt->size()));
        if (const status s = sv.load(sendbuf, scounts, sdispls, *st, p); s != status::ok)
            return fail(fn, comm, s);
    }
    if (const status s = rv.prepare(recvbuf, rcounts, rdispls, *rt, p, inplace ? -2 : -1);
        s != status::ok)
        return fail(fn, comm, s);
    if (const status s = dev::coll_alltoallv(inplace ? nullptr : sv.cblocks(), rv.blocks(), *c);
        s != status::ok)
        return fail(fn, comm, s);
    rv.store();
    return MPI_SUCCESS;
}

}  // namespace

extern "C" {
CH4_PMPI(MPI_Alltoall)
int MPI_Alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                 int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
    return alltoall(__func__, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}
CH4_PMPI(MPI_Alltoall_c)
int MPI_Alltoall_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                   MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
    return alltoall(__func__, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}
CH4_PMPI(MPI_Alltoallv)
int MPI_Alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
                  MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                  const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm) {
    return alltoallv(__func__, sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts,
                     rdispls, recvtype, comm);
}
CH4_PMPI(MPI_Alltoallv_c)
int MPI_Alltoallv_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                    MPI_Datatype sendtype, void* recvbuf, const MPI_Count recvcounts[],
                    const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm) {
    return alltoallv(__func__, sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts,
                     rdispls, recvtype, comm);
}
}
