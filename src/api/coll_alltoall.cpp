// SPDX-License-Identifier: MIT
// MPI_Alltoall(v), MPI_Ialltoall(v), MPI_Alltoall(v)_init (and _c).
// MPI_IN_PLACE as sendbuf: recvbuf holds the data to send and receives the
// result (sendcount/sendtype are ignored). MPI_Alltoallw: api/coll_alltoallw.cpp.
#include <climits>

#include "api/coll_inter.hpp"
#include "api/coll_sched.hpp"
#include "coll/build.hpp"

using namespace ch4lite;
using namespace ch4lite::api::coll;

namespace {

int alltoall(const char* fn, form f, const void* sendbuf, int64_t scount, MPI_Datatype sdt,
             void* recvbuf, int64_t rcount, MPI_Datatype rdt, MPI_Comm comm, MPI_Info info,
             MPI_Request* request) {
    dev::comm* c = nullptr;
    COLL_TRY(check_comm(fn, comm, c));
    COLL_TRY(check_form(fn, comm, f, info, request));
    if (c->is_inter()) return inter_alltoall(fn, f, sendbuf, scount, sdt, recvbuf, rcount, rdt, comm, *c, request);
    const int p = c->size;
    const dame::type *rt = nullptr, *st = nullptr;
    COLL_TRY(check_buf(fn, comm, "recvbuf", recvbuf, rcount, rdt, rt));
    if (rcount > INT64_MAX / p) COLL_FAIL(MPI_ERR_COUNT, "recvcount times the group size overflows");
    std::size_t total = 0;
    COLL_TRY(stream_bytes(fn, comm, rcount * p, *rt, total));
    const std::size_t block = total / static_cast<std::size_t>(p);
    const bool inplace = in_place(sendbuf);
    if (!inplace) {
        COLL_TRY(check_buf(fn, comm, "sendbuf", sendbuf, scount, sdt, st));
        if (scount > INT64_MAX / p) COLL_FAIL(MPI_ERR_COUNT, "sendcount times the group size overflows");
        std::size_t stotal = 0;
        COLL_TRY(stream_bytes(fn, comm, scount * p, *st, stotal));
        if (stotal != total)
            COLL_FAIL(MPI_ERR_TRUNCATE,
                      "each block sent is %zu bytes but each block received is %zu bytes: "
                      "sendcount and sendtype must match recvcount and recvtype",
                      stotal / static_cast<std::size_t>(p), block);
    }
    if (f == form::blocking && !blocking_sched()) {
        stream ss, rs;
        status s = inplace ? rs.prepare_inout(recvbuf, rcount * p, *rt) : ss.load(sendbuf, scount * p, *st);
        if (s == status::ok && !inplace) s = rs.prepare(recvbuf, rcount * p, *rt);
        if (s == status::ok) s = ch4lite::coll::alltoall(inplace ? nullptr : ss.data(), rs.data(), block, *c);
        if (s != status::ok) return fail(fn, comm, s);
        rs.store();
        return MPI_SUCCESS;
    }
    auto s = new_sched(*c);
    if (s) {
        const std::byte* sd = inplace ? nullptr : s->user_stream(sendbuf, scount * p, *st, true);
        std::byte* rd = s->user_stream(recvbuf, rcount * p, *rt, inplace);
        s->fence();
        ch4lite::coll::add_alltoall(*s, sd, rd, block);
        s->user_store(rd, recvbuf, rcount * p, *rt);
    }
    return issue(fn, comm, f, std::move(s), request);
}

template <class C, class D>
int alltoallv(const char* fn, form f, const void* sendbuf, const C* scounts, const D* sdispls,
              MPI_Datatype sdt, void* recvbuf, const C* rcounts, const D* rdispls, MPI_Datatype rdt,
              MPI_Comm comm, MPI_Info info, MPI_Request* request) {
    dev::comm* c = nullptr;
    COLL_TRY(check_comm(fn, comm, c));
    COLL_TRY(check_form(fn, comm, f, info, request));
    if (c->is_inter()) return inter_alltoallv(fn, f, sendbuf, scounts, sdispls, sdt, recvbuf, rcounts, rdispls, rdt, comm, *c, request);
    const int p = c->size, me = c->rank;
    COLL_TRY(check_counts(fn, comm, "recvcounts", rcounts, p));
    if (!rdispls) COLL_FAIL(MPI_ERR_ARG, "rdispls is NULL");
    int64_t any = 0;
    for (int i = 0; i < p; ++i) any |= rcounts[i];
    const dame::type *rt = nullptr, *st = nullptr;
    COLL_TRY(check_buf(fn, comm, "recvbuf", recvbuf, any ? 1 : 0, rdt, rt));
    const bool inplace = in_place(sendbuf);
    if (!inplace) {
        COLL_TRY(check_counts(fn, comm, "sendcounts", scounts, p));
        if (!sdispls) COLL_FAIL(MPI_ERR_ARG, "sdispls is NULL");
        int64_t sany = 0;
        for (int i = 0; i < p; ++i) sany |= scounts[i];
        COLL_TRY(check_buf(fn, comm, "sendbuf", sendbuf, sany ? 1 : 0, sdt, st));
        if (scounts[me] * st->size() != rcounts[me] * rt->size())
            COLL_FAIL(MPI_ERR_TRUNCATE,
                      "this process sends itself %lld bytes but expects %lld bytes from itself",
                      static_cast<long long>(scounts[me] * st->size()),
                      static_cast<long long>(rcounts[me] * rt->size()));
    }
    if (f == form::blocking && !blocking_sched()) {
        vstream sv, rv;
        status s = inplace ? status::ok : sv.load(sendbuf, scounts, sdispls, *st, p);
        if (s == status::ok) s = rv.prepare(recvbuf, rcounts, rdispls, *rt, p, inplace ? -2 : -1);
        if (s == status::ok) s = ch4lite::coll::alltoallv(inplace ? nullptr : sv.cblocks(), rv.blocks(), *c);
        if (s != status::ok) return fail(fn, comm, s);
        rv.store();
        return MPI_SUCCESS;
    }
    auto s = new_sched(*c);
    if (s) {
        ch4lite::coll::block* sb = inplace ? nullptr : sched_blocks(*s, sendbuf, scounts, sdispls, *st, p, -2);
        ch4lite::coll::block* rb = sched_blocks(*s, recvbuf, rcounts, rdispls, *rt, p, inplace ? -2 : -1);
        s->fence();
        if (rb && (inplace || sb))
            ch4lite::coll::add_alltoallv(*s, reinterpret_cast<const ch4lite::coll::cblock*>(sb), rb);
        sched_store_blocks(*s, rb, recvbuf, rcounts, rdispls, *rt, p);
    }
    return issue(fn, comm, f, std::move(s), request);
}

}  // namespace

extern "C" {
CH4_PMPI(MPI_Alltoall)
int MPI_Alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                 int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
    CH4_API_LOCK();
    return alltoall(__func__, form::blocking, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                    recvtype, comm, MPI_INFO_NULL, nullptr);
}
CH4_PMPI(MPI_Alltoall_c)
int MPI_Alltoall_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                   MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
    CH4_API_LOCK();
    return alltoall(__func__, form::blocking, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                    recvtype, comm, MPI_INFO_NULL, nullptr);
}
CH4_PMPI(MPI_Ialltoall)
int MPI_Ialltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
    CH4_API_LOCK();
    return alltoall(__func__, form::nonblocking, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                    recvtype, comm, MPI_INFO_NULL, request);
}
CH4_PMPI(MPI_Ialltoall_c)
int MPI_Ialltoall_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                    MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
    CH4_API_LOCK();
    return alltoall(__func__, form::nonblocking, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                    recvtype, comm, MPI_INFO_NULL, request);
}
CH4_PMPI(MPI_Alltoall_init)
int MPI_Alltoall_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                      int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                      MPI_Request* request) {
    CH4_API_LOCK();
    return alltoall(__func__, form::persistent, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                    recvtype, comm, info, request);
}
CH4_PMPI(MPI_Alltoall_init_c)
int MPI_Alltoall_init_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                        void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                        MPI_Info info, MPI_Request* request) {
    CH4_API_LOCK();
    return alltoall(__func__, form::persistent, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                    recvtype, comm, info, request);
}
CH4_PMPI(MPI_Alltoallv)
int MPI_Alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
                  MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                  const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm) {
    CH4_API_LOCK();
    return alltoallv(__func__, form::blocking, sendbuf, sendcounts, sdispls, sendtype, recvbuf,
                     recvcounts, rdispls, recvtype, comm, MPI_INFO_NULL, nullptr);
}
CH4_PMPI(MPI_Alltoallv_c)
int MPI_Alltoallv_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                    MPI_Datatype sendtype, void* recvbuf, const MPI_Count recvcounts[],
                    const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm) {
    CH4_API_LOCK();
    return alltoallv(__func__, form::blocking, sendbuf, sendcounts, sdispls, sendtype, recvbuf,
                     recvcounts, rdispls, recvtype, comm, MPI_INFO_NULL, nullptr);
}
CH4_PMPI(MPI_Ialltoallv)
int MPI_Ialltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
                   MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                   const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
    CH4_API_LOCK();
    return alltoallv(__func__, form::nonblocking, sendbuf, sendcounts, sdispls, sendtype, recvbuf,
                     recvcounts, rdispls, recvtype, comm, MPI_INFO_NULL, request);
}
CH4_PMPI(MPI_Ialltoallv_c)
int MPI_Ialltoallv_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                     MPI_Datatype sendtype, void* recvbuf, const MPI_Count recvcounts[],
                     const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                     MPI_Request* request) {
    CH4_API_LOCK();
    return alltoallv(__func__, form::nonblocking, sendbuf, sendcounts, sdispls, sendtype, recvbuf,
                     recvcounts, rdispls, recvtype, comm, MPI_INFO_NULL, request);
}
CH4_PMPI(MPI_Alltoallv_init)
int MPI_Alltoallv_init(const void* sendbuf, const int sendcounts[], const int sdispls[],
                       MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                       const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                       MPI_Request* request) {
    CH4_API_LOCK();
    return alltoallv(__func__, form::persistent, sendbuf, sendcounts, sdispls, sendtype, recvbuf,
                     recvcounts, rdispls, recvtype, comm, info, request);
}
CH4_PMPI(MPI_Alltoallv_init_c)
int MPI_Alltoallv_init_c(const void* sendbuf, const MPI_Count sendcounts[],
                         const MPI_Aint sdispls[], MPI_Datatype sendtype, void* recvbuf,
                         const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                         MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                         MPI_Request* request) {
    CH4_API_LOCK();
    return alltoallv(__func__, form::persistent, sendbuf, sendcounts, sdispls, sendtype, recvbuf,
                     recvcounts, rdispls, recvtype, comm, info, request);
}
}
