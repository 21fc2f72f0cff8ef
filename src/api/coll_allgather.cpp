// SPDX-License-Identifier: MIT
// MPI_Allgather(v)(_c). The device expects every rank's own block already
// in place in the receive stream: MPI_IN_PLACE means it is in recvbuf,
// otherwise sendbuf is copied there first.
#include <climits>
#include <cstring>

#include "api/coll_args.hpp"
#include "dame/dame.hpp"

using namespace ch4lite;
using namespace ch4lite::api::coll;

namespace {

// Puts the send data (checked against `want` bytes) into my block.
int place_mine(const char* fn, MPI_Comm comm, const void* sendbuf, int64_t scount,
               MPI_Datatype sdt, std::byte* dst, std::size_t want) noexcept {
    const dame::type* t = nullptr;
    COLL_TRY(check_buf(fn, comm, "sendbuf", sendbuf, scount, sdt, t));
    std::size_t bytes = 0;
    COLL_TRY(stream_bytes(fn, comm, scount, *t, bytes));
    if (bytes != want)
        COLL_FAIL(MPI_ERR_TRUNCATE,
                  "this process sends %zu bytes but receives %zu bytes from itself: sendcount "
                  "and sendtype must match recvcount and recvtype",
                  bytes, want);
    if (!bytes) return MPI_SUCCESS;
    if (t->contiguous())
        std::memcpy(dst, static_cast<const std::byte*>(sendbuf) + t->true_lb(), bytes);
    else
        dame::pack(*t, sendbuf, scount, dst);
    return MPI_SUCCESS;
}

int allgather(const char* fn, const void* sendbuf, int64_t scount, MPI_Datatype sdt,
              void* recvbuf, int64_t rcount, MPI_Datatype rdt, MPI_Comm comm) {
    dev::comm* c = nullptr;
    COLL_TRY(check_comm(fn, comm, c));
    const int p = c->size, me = c->rank;
    const dame::type* rt = nullptr;
    COLL_TRY(check_buf(fn, comm, "recvbuf", recvbuf, rcount, rdt, rt));
    if (rcount > INT64_MAX / p) COLL_FAIL(MPI_ERR_COUNT, "recvcount times the group size overflows");
    std::size_t total = 0;
    COLL_TRY(stream_bytes(fn, comm, rcount * p, *rt, total));
    const std::size_t block = total / static_cast<std::size_t>(p);
    const bool inplace = in_place(sendbuf);
    stream rs;
    const status st = inplace ? rs.prepare_keep(recvbuf, rcount * p, *rt, me * block, block)
                              : rs.prepare(recvbuf, rcount * p, *rt);
    if (st != status::ok) return fail(fn, comm, st);
    if (!inplace) COLL_TRY(place_mine(fn, comm, sendbuf, scount, sdt, rs.data() + me * block, block));
    if (const status s = dev::coll_allgather(rs.data(), block, *c); s != status::ok)
        return fail(fn, comm, s);
    rs.store();
    return MPI_SUCCESS;
}

template <class C, class D>
int allgatherv(const char* fn, const void* sendbuf, int64_t scount, MPI_Datatype sdt,
               void* recvbuf, const C* rcounts, const D* displs, MPI_Datatype rdt, MPI_Comm comm) {
    dev::comm* c = nullptr;
    COLL_TRY(check_comm(fn, comm, c));
    const int p = c->size, me = c->rank;
    COLL_TRY(check_counts(fn, comm, "recvcounts", rcounts, p));
    if (!displs) COLL_FAIL(MPI_ERR_ARG, "displs is NULL");
    int64_t any = 0;
    for (int i = 0; i < p; ++i) any |= rcounts[i];
    const dame::type* rt = nullptr;
    COLL_TRY(check_buf(fn, comm, "recvbuf", recvbuf, any ? 1 : 0, rdt, rt));
    const bool inplace = in_place(sendbuf);
    vstream rv;
    if (const status s = rv.prepare(recvbuf, rcounts, displs, *rt, p, inplace ? me : -1);
        s != status::ok)
        return fail(fn, comm, s);
    if (!inplace)
        COLL_TRY(place_mine(fn, comm, sendbuf, scount, sdt, rv.blocks()[me].p, rv.blocks()[me].n));
    if (const status s = dev::coll_allgatherv(rv.blocks(), *c); s != status::ok)
        return fail(fn, comm, s);
    rv.store();
    return MPI_SUCCESS;
}

}  // namespace

extern "C" {
CH4_PMPI(MPI_Allgather)
int MPI_Allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
    return allgather(__func__, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}
CH4_PMPI(MPI_Allgather_c)
int MPI_Allgather_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                    void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
    return allgather(__func__, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}
CH4_PMPI(MPI_Allgatherv)
int MPI_Allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                   const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                   MPI_Comm comm) {
    return allgatherv(__func__, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                      recvtype, comm);
}
CH4_PMPI(MPI_Allgatherv_c)
int MPI_Allgatherv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                     void* recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                     MPI_Datatype recvtype, MPI_Comm comm) {
    return allgatherv(__func__, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                      recvtype, comm);
}
}
