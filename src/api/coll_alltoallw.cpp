// SPDX-License-Identifier: MIT
// MPI_Alltoallw, MPI_Ialltoallw, MPI_Alltoallw_init (and _c): Alltoallv
// with a datatype per peer and displacements in bytes. Every form runs the
// Alltoallv schedule (coll/build.hpp) over per-peer packed blocks: the user
// memory itself for a contiguous type, else a scratch block the schedule
// packs / unpacks. MPI_IN_PLACE as sendbuf: recvbuf holds the data to send
// (sendcounts, sdispls and sendtypes are ignored).
#include "api/coll_inter.hpp"
#include "api/coll_sched.hpp"
#include "api/datatype_handles.hpp"
#include "coll/build.hpp"

using namespace ch4lite;
using namespace ch4lite::api::coll;

namespace {

// Per-peer datatypes: each valid and committed; `what` names the array.
int check_types(const char* fn, MPI_Comm comm, const char* what, const MPI_Datatype* types, int p,
                const dame::type** out) noexcept {
    if (!types && p > 0) COLL_FAIL(MPI_ERR_ARG, "%s is NULL", what);
    for (int i = 0; i < p; ++i) {
        const dame::type* t = api::lookup_type(types[i]);
        if (!t) COLL_FAIL(MPI_ERR_TYPE, "invalid datatype %s[%d]", what, i);
        if (!t->committed())
            COLL_FAIL(MPI_ERR_TYPE, "datatype %s[%d] is not committed (call MPI_Type_commit)", what, i);
        out[i] = t;
    }
    return MPI_SUCCESS;
}

// The blocks of one side as streams of s (load: packed at the start).
template <class C, class D>
ch4lite::coll::block* w_blocks(ch4lite::coll::sched& s, const void* buf, const C* counts,
                               const D* displs, const dame::type* const* t, int p, bool load) noexcept {
    auto* b = reinterpret_cast<ch4lite::coll::block*>(
        s.scratch(static_cast<std::size_t>(p) * sizeof(ch4lite::coll::block)));
    if (!b) return nullptr;
    for (int i = 0; i < p; ++i) {
        const void* at = static_cast<const std::byte*>(buf) + static_cast<int64_t>(displs[i]);
        b[i] = {s.user_stream(at, counts[i], *t[i], load),
                static_cast<std::size_t>(static_cast<int64_t>(counts[i]) * t[i]->size())};
    }
    return b;
}

template <class C, class D>
int alltoallw(const char* fn, form f, const void* sendbuf, const C* scounts, const D* sdispls,
              const MPI_Datatype* stypes, void* recvbuf, const C* rcounts, const D* rdispls,
              const MPI_Datatype* rtypes, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
    dev::comm* c = nullptr;
    COLL_TRY(check_comm(fn, comm, c));
    COLL_TRY(check_form(fn, comm, f, info, request));
    if (c->is_inter()) return inter_alltoallw(fn, f, sendbuf, scounts, sdispls, stypes, recvbuf, rcounts, rdispls, rtypes, comm, *c, request);
    const int p = c->size, me = c->rank;
    const bool inplace = in_place(sendbuf);
    util::scratch tt;
    auto** ts = reinterpret_cast<const dame::type**>(tt.get(2 * static_cast<std::size_t>(p) * sizeof(void*)));
    if (!ts) return fail(fn, comm, status::no_mem);
    const dame::type** tr = ts + p;
    COLL_TRY(check_counts(fn, comm, "recvcounts", rcounts, p));
    if (!rdispls) COLL_FAIL(MPI_ERR_ARG, "rdispls is NULL");
    COLL_TRY(check_types(fn, comm, "recvtypes", rtypes, p, tr));
    for (int i = 0; i < p; ++i) {
        std::size_t bytes = 0;
        COLL_TRY(stream_bytes(fn, comm, rcounts[i], *tr[i], bytes));
        if (!recvbuf && bytes && tr[i]->true_lb() + rdispls[i] == 0)
            COLL_FAIL(MPI_ERR_BUFFER, "recvbuf is NULL but recvcounts[%d] is %lld", i,
                      static_cast<long long>(rcounts[i]));
    }
    if (in_place(recvbuf)) COLL_FAIL(MPI_ERR_BUFFER, "MPI_IN_PLACE is not allowed as recvbuf");
    if (!inplace) {
        COLL_TRY(check_counts(fn, comm, "sendcounts", scounts, p));
        if (!sdispls) COLL_FAIL(MPI_ERR_ARG, "sdispls is NULL");
        COLL_TRY(check_types(fn, comm, "sendtypes", stypes, p, ts));
        for (int i = 0; i < p; ++i) {
            std::size_t bytes = 0;
            COLL_TRY(stream_bytes(fn, comm, scounts[i], *ts[i], bytes));
            if (!sendbuf && bytes && ts[i]->true_lb() + sdispls[i] == 0)
                COLL_FAIL(MPI_ERR_BUFFER, "sendbuf is NULL but sendcounts[%d] is %lld", i,
                          static_cast<long long>(scounts[i]));
        }
        if (scounts[me] * ts[me]->size() != rcounts[me] * tr[me]->size())
            COLL_FAIL(MPI_ERR_TRUNCATE,
                      "this process sends itself %lld bytes but expects %lld bytes from itself",
                      static_cast<long long>(scounts[me] * ts[me]->size()),
                      static_cast<long long>(rcounts[me] * tr[me]->size()));
    }
    // Every form is a schedule (no direct algorithm: Alltoallw is rare).
    auto s = new_sched(*c);
    if (s) {
        ch4lite::coll::block* sb = inplace ? nullptr : w_blocks(*s, sendbuf, scounts, sdispls, ts, p, true);
        ch4lite::coll::block* rb = w_blocks(*s, recvbuf, rcounts, rdispls, tr, p, inplace);
        s->fence();
        if (rb && (inplace || sb))
            ch4lite::coll::add_alltoallv(*s, reinterpret_cast<const ch4lite::coll::cblock*>(sb), rb);
        for (int i = 0; rb && i < p; ++i)
            s->user_store(rb[i].p, static_cast<std::byte*>(recvbuf) + static_cast<int64_t>(rdispls[i]),
                          rcounts[i], *tr[i]);
    }
    return issue(fn, comm, f, std::move(s), request);
}

}  // namespace

extern "C" {
CH4_PMPI(MPI_Alltoallw)
int MPI_Alltoallw(const void* sendbuf, const int sendcounts[], const int sdispls[],
                  const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
                  const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm) {
    CH4_API_LOCK();
    return alltoallw(__func__, form::blocking, sendbuf, sendcounts, sdispls, sendtypes, recvbuf,
                     recvcounts, rdispls, recvtypes, comm, MPI_INFO_NULL, nullptr);
}
CH4_PMPI(MPI_Alltoallw_c)
int MPI_Alltoallw_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                    const MPI_Datatype sendtypes[], void* recvbuf, const MPI_Count recvcounts[],
                    const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm) {
    CH4_API_LOCK();
    return alltoallw(__func__, form::blocking, sendbuf, sendcounts, sdispls, sendtypes, recvbuf,
                     recvcounts, rdispls, recvtypes, comm, MPI_INFO_NULL, nullptr);
}
CH4_PMPI(MPI_Ialltoallw)
int MPI_Ialltoallw(const void* sendbuf, const int sendcounts[], const int sdispls[],
                   const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
                   const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                   MPI_Request* request) {
    CH4_API_LOCK();
    return alltoallw(__func__, form::nonblocking, sendbuf, sendcounts, sdispls, sendtypes, recvbuf,
                     recvcounts, rdispls, recvtypes, comm, MPI_INFO_NULL, request);
}
CH4_PMPI(MPI_Ialltoallw_c)
int MPI_Ialltoallw_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                     const MPI_Datatype sendtypes[], void* recvbuf, const MPI_Count recvcounts[],
                     const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                     MPI_Request* request) {
    CH4_API_LOCK();
    return alltoallw(__func__, form::nonblocking, sendbuf, sendcounts, sdispls, sendtypes, recvbuf,
                     recvcounts, rdispls, recvtypes, comm, MPI_INFO_NULL, request);
}
CH4_PMPI(MPI_Alltoallw_init)
int MPI_Alltoallw_init(const void* sendbuf, const int sendcounts[], const int sdispls[],
                       const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
                       const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                       MPI_Info info, MPI_Request* request) {
    CH4_API_LOCK();
    return alltoallw(__func__, form::persistent, sendbuf, sendcounts, sdispls, sendtypes, recvbuf,
                     recvcounts, rdispls, recvtypes, comm, info, request);
}
CH4_PMPI(MPI_Alltoallw_init_c)
int MPI_Alltoallw_init_c(const void* sendbuf, const MPI_Count sendcounts[],
                         const MPI_Aint sdispls[], const MPI_Datatype sendtypes[], void* recvbuf,
                         const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                         const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info,
                         MPI_Request* request) {
    CH4_API_LOCK();
    return alltoallw(__func__, form::persistent, sendbuf, sendcounts, sdispls, sendtypes, recvbuf,
                     recvcounts, rdispls, recvtypes, comm, info, request);
}
}
