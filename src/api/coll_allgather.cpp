// SPDX-License-Identifier: MIT
// MPI_Allgather(v), MPI_Iallgather(v), MPI_Allgather(v)_init (and _c).
// The algorithms expect every rank's own block already in place in the
// receive stream: MPI_IN_PLACE means it is in recvbuf, otherwise sendbuf is
// copied (packed) there first.
#include <climits>
#include <cstring>

#include "api/coll_inter.hpp"
#include "api/coll_sched.hpp"
#include "coll/build.hpp"
#include "dame/dame.hpp"

using namespace ch4lite;
using namespace ch4lite::api::coll;

namespace {

// Checks the send side against `want` bytes.
int check_mine(const char* fn, MPI_Comm comm, const void* sendbuf, int64_t scount,
               MPI_Datatype sdt, std::size_t want, const dame::type*& t) noexcept {
    COLL_TRY(check_buf(fn, comm, "sendbuf", sendbuf, scount, sdt, t));
    std::size_t bytes = 0;
    COLL_TRY(stream_bytes(fn, comm, scount, *t, bytes));
    if (bytes != want)
        COLL_FAIL(MPI_ERR_TRUNCATE,
                  "this process sends %zu bytes but receives %zu bytes from itself: sendcount "
                  "and sendtype must match recvcount and recvtype",
                  bytes, want);
    return MPI_SUCCESS;
}

// Puts the send data into my block (blocking form).
void place_mine(const void* sendbuf, int64_t scount, const dame::type& t, std::byte* dst,
                std::size_t bytes) noexcept {
    if (!bytes) return;
    if (t.contiguous())
        std::memcpy(dst, static_cast<const std::byte*>(sendbuf) + t.true_lb(), bytes);
    else
        dame::pack(t, sendbuf, scount, dst);
}

// The same as steps of s.
void sched_mine(ch4lite::coll::sched& s, const void* sendbuf, int64_t scount, const dame::type& t,
                std::byte* dst, std::size_t bytes) noexcept {
    if (!bytes || !dst) return;
    if (t.contiguous())
        s.copy(static_cast<const std::byte*>(sendbuf) + t.true_lb(), dst, bytes);
    else
        s.pack(sendbuf, scount, t, dst);
}

int allgather(const char* fn, form f, const void* sendbuf, int64_t scount, MPI_Datatype sdt,
              void* recvbuf, int64_t rcount, MPI_Datatype rdt, MPI_Comm comm, MPI_Info info,
              MPI_Request* request) {
    dev::comm* c = nullptr;
    COLL_TRY(check_comm(fn, comm, c));
    COLL_TRY(check_form(fn, comm, f, info, request));
    if (c->is_inter()) return inter_allgather(fn, f, sendbuf, scount, sdt, recvbuf, rcount, rdt, comm, *c, request);
    const int p = c->size, me = c->rank;
    const dame::type *rt = nullptr, *st = nullptr;
    COLL_TRY(check_buf(fn, comm, "recvbuf", recvbuf, rcount, rdt, rt));
    if (rcount > INT64_MAX / p) COLL_FAIL(MPI_ERR_COUNT, "recvcount times the group size overflows");
    std::size_t total = 0;
    COLL_TRY(stream_bytes(fn, comm, rcount * p, *rt, total));
    const std::size_t block = total / static_cast<std::size_t>(p);
    const bool inplace = in_place(sendbuf);
    if (!inplace) COLL_TRY(check_mine(fn, comm, sendbuf, scount, sdt, block, st));
    if (f == form::blocking && !blocking_sched()) {
        stream rs;
        status s = inplace ? rs.prepare_keep(recvbuf, rcount * p, *rt, me * block, block)
                           : rs.prepare(recvbuf, rcount * p, *rt);
        if (s != status::ok) return fail(fn, comm, s);
        if (!inplace) place_mine(sendbuf, scount, *st, rs.data() + me * block, block);
        if ((s = ch4lite::coll::allgather(rs.data(), block, *c)) != status::ok) return fail(fn, comm, s);
        rs.store();
        return MPI_SUCCESS;
    }
    auto s = new_sched(*c);
    if (s) {
        std::byte* rd = s->user_stream(recvbuf, rcount * p, *rt, false);
        if (inplace && rd && !rt->contiguous() && block)
            s->pack(static_cast<std::byte*>(recvbuf) + me * rcount * rt->extent(), rcount, *rt, rd + me * block);
        if (!inplace && rd) sched_mine(*s, sendbuf, scount, *st, rd + me * block, block);
        s->fence();
        ch4lite::coll::add_allgather(*s, rd, block);
        s->user_store(rd, recvbuf, rcount * p, *rt);
    }
    return issue(fn, comm, f, std::move(s), request);
}

template <class C, class D>
int allgatherv(const char* fn, form f, const void* sendbuf, int64_t scount, MPI_Datatype sdt,
               void* recvbuf, const C* rcounts, const D* displs, MPI_Datatype rdt, MPI_Comm comm,
               MPI_Info info, MPI_Request* request) {
    dev::comm* c = nullptr;
    COLL_TRY(check_comm(fn, comm, c));
    COLL_TRY(check_form(fn, comm, f, info, request));
    if (c->is_inter()) return inter_allgatherv(fn, f, sendbuf, scount, sdt, recvbuf, rcounts, displs, rdt, comm, *c, request);
    const int p = c->size, me = c->rank;
    COLL_TRY(check_counts(fn, comm, "recvcounts", rcounts, p));
    if (!displs) COLL_FAIL(MPI_ERR_ARG, "displs is NULL");
    int64_t any = 0;
    for (int i = 0; i < p; ++i) any |= rcounts[i];
    const dame::type *rt = nullptr, *st = nullptr;
    COLL_TRY(check_buf(fn, comm, "recvbuf", recvbuf, any ? 1 : 0, rdt, rt));
    const bool inplace = in_place(sendbuf);
    const auto mine = static_cast<std::size_t>(static_cast<int64_t>(rcounts[me]) * rt->size());
    if (!inplace) COLL_TRY(check_mine(fn, comm, sendbuf, scount, sdt, mine, st));
    if (f == form::blocking && !blocking_sched()) {
        vstream rv;
        status s = rv.prepare(recvbuf, rcounts, displs, *rt, p, inplace ? me : -1);
        if (s != status::ok) return fail(fn, comm, s);
        if (!inplace) place_mine(sendbuf, scount, *st, rv.blocks()[me].p, rv.blocks()[me].n);
        if ((s = ch4lite::coll::allgatherv(rv.blocks(), *c)) != status::ok) return fail(fn, comm, s);
        rv.store();
        return MPI_SUCCESS;
    }
    auto s = new_sched(*c);
    if (s) {
        ch4lite::coll::block* b = sched_blocks(*s, recvbuf, rcounts, displs, *rt, p, inplace ? me : -1);
        if (b) {
            if (!inplace) sched_mine(*s, sendbuf, scount, *st, b[me].p, b[me].n);
            s->fence();
            ch4lite::coll::add_allgatherv(*s, b);
            sched_store_blocks(*s, b, recvbuf, rcounts, displs, *rt, p);
        }
    }
    return issue(fn, comm, f, std::move(s), request);
}

}  // namespace

extern "C" {
CH4_PMPI(MPI_Allgather)
int MPI_Allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
    CH4_API_LOCK();
    return allgather(__func__, form::blocking, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                     recvtype, comm, MPI_INFO_NULL, nullptr);
}
CH4_PMPI(MPI_Allgather_c)
int MPI_Allgather_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                    void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
    CH4_API_LOCK();
    return allgather(__func__, form::blocking, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                     recvtype, comm, MPI_INFO_NULL, nullptr);
}
CH4_PMPI(MPI_Iallgather)
int MPI_Iallgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                   int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
    CH4_API_LOCK();
    return allgather(__func__, form::nonblocking, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                     recvtype, comm, MPI_INFO_NULL, request);
}
CH4_PMPI(MPI_Iallgather_c)
int MPI_Iallgather_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                     void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                     MPI_Request* request) {
    CH4_API_LOCK();
    return allgather(__func__, form::nonblocking, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                     recvtype, comm, MPI_INFO_NULL, request);
}
CH4_PMPI(MPI_Allgather_init)
int MPI_Allgather_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                       int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                       MPI_Request* request) {
    CH4_API_LOCK();
    return allgather(__func__, form::persistent, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                     recvtype, comm, info, request);
}
CH4_PMPI(MPI_Allgather_init_c)
int MPI_Allgather_init_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                         void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                         MPI_Info info, MPI_Request* request) {
    CH4_API_LOCK();
    return allgather(__func__, form::persistent, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                     recvtype, comm, info, request);
}
CH4_PMPI(MPI_Allgatherv)
int MPI_Allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                   const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                   MPI_Comm comm) {
    CH4_API_LOCK();
    return allgatherv(__func__, form::blocking, sendbuf, sendcount, sendtype, recvbuf, recvcounts,
                      displs, recvtype, comm, MPI_INFO_NULL, nullptr);
}
CH4_PMPI(MPI_Allgatherv_c)
int MPI_Allgatherv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                     void* recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                     MPI_Datatype recvtype, MPI_Comm comm) {
    CH4_API_LOCK();
    return allgatherv(__func__, form::blocking, sendbuf, sendcount, sendtype, recvbuf, recvcounts,
                      displs, recvtype, comm, MPI_INFO_NULL, nullptr);
}
CH4_PMPI(MPI_Iallgatherv)
int MPI_Iallgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                    const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                    MPI_Comm comm, MPI_Request* request) {
    CH4_API_LOCK();
    return allgatherv(__func__, form::nonblocking, sendbuf, sendcount, sendtype, recvbuf,
                      recvcounts, displs, recvtype, comm, MPI_INFO_NULL, request);
}
CH4_PMPI(MPI_Iallgatherv_c)
int MPI_Iallgatherv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                      void* recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                      MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
    CH4_API_LOCK();
    return allgatherv(__func__, form::nonblocking, sendbuf, sendcount, sendtype, recvbuf,
                      recvcounts, displs, recvtype, comm, MPI_INFO_NULL, request);
}
CH4_PMPI(MPI_Allgatherv_init)
int MPI_Allgatherv_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                        const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                        MPI_Comm comm, MPI_Info info, MPI_Request* request) {
    CH4_API_LOCK();
    return allgatherv(__func__, form::persistent, sendbuf, sendcount, sendtype, recvbuf,
                      recvcounts, displs, recvtype, comm, info, request);
}
CH4_PMPI(MPI_Allgatherv_init_c)
int MPI_Allgatherv_init_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                          void* recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                          MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                          MPI_Request* request) {
    CH4_API_LOCK();
    return allgatherv(__func__, form::persistent, sendbuf, sendcount, sendtype, recvbuf,
                      recvcounts, displs, recvtype, comm, info, request);
}
}
