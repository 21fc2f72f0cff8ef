// SPDX-License-Identifier: MIT
// MPI_Reduce_scatter and MPI_Reduce_scatter_block: blocking, nonblocking
// (MPI_I...) and persistent (..._init), and _c. MPI_IN_PLACE as sendbuf:
// the whole input vector is in recvbuf, which receives this process's
// piece at its start.
#include "api/coll_inter.hpp"
#include "api/coll_sched.hpp"
#include "coll/build.hpp"

using namespace ch4lite;
using namespace ch4lite::api::coll;

namespace {

// counts: p entries (already checked >= 0).
int reduce_scatter(const char* fn, form f, const void* sendbuf, void* recvbuf, const int64_t* counts,
                   MPI_Datatype dt, MPI_Op op, MPI_Comm comm, dev::comm& c, MPI_Request* request) {
    const int p = c.size, me = c.rank;
    int64_t total = 0;
    for (int i = 0; i < p; ++i) {
        if (counts[i] > INT64_MAX - total) COLL_FAIL(MPI_ERR_COUNT, "the sum of recvcounts overflows");
        total += counts[i];
    }
    const bool inplace = in_place(sendbuf);
    const dame::type* t = nullptr;
    if (!inplace) COLL_TRY(check_buf(fn, comm, "sendbuf", sendbuf, total, dt, t));
    COLL_TRY(check_buf(fn, comm, "recvbuf", recvbuf, inplace ? total : counts[me], dt, t));
    std::size_t bytes = 0;
    COLL_TRY(stream_bytes(fn, comm, total, *t, bytes));
    ch4lite::coll::reduction r;
    COLL_TRY(make_reduction(fn, comm, op, *t, dt, r));
    if (f == form::blocking && !blocking_sched()) {
        stream ss, rs;
        status s = status::ok;
        if (inplace) {
            s = rs.prepare_inout(recvbuf, total, *t);
        } else {
            s = ss.load(sendbuf, total, *t);
            if (s == status::ok) s = rs.prepare(recvbuf, counts[me], *t);
        }
        if (s == status::ok)
            s = ch4lite::coll::reduce_scatter(inplace ? nullptr : ss.data(), rs.data(), counts, r, c);
        if (s != status::ok) return fail(fn, comm, s);
        rs.store(counts[me]);
        return MPI_SUCCESS;
    }
    auto s = new_sched(c);
    if (s) {
        s->set_op(r);
        const std::byte* in = inplace ? nullptr : s->user_stream(sendbuf, total, *t, true);
        std::byte* out = s->user_stream(recvbuf, inplace ? total : counts[me], *t, inplace);
        s->fence();
        ch4lite::coll::add_reduce_scatter(*s, in, out, counts);
        s->user_store(out, recvbuf, counts[me], *t);
    }
    return issue(fn, comm, f, std::move(s), request);
}

template <class C>
int reduce_scatter_v(const char* fn, form f, const void* sendbuf, void* recvbuf, const C* rcounts,
                     MPI_Datatype dt, MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
    dev::comm* c = nullptr;
    COLL_TRY(check_comm(fn, comm, c));
    COLL_TRY(check_form(fn, comm, f, info, request));
    if (c->is_inter()) return inter_reduce_scatter(fn, f, sendbuf, recvbuf, rcounts, 0, dt, op, comm, *c, request);
    COLL_TRY(check_counts(fn, comm, "recvcounts", rcounts, c->size));
    util::scratch sc;
    auto* counts = reinterpret_cast<int64_t*>(sc.get(static_cast<std::size_t>(c->size) * sizeof(int64_t)));
    if (!counts) return fail(fn, comm, status::no_mem);
    for (int i = 0; i < c->size; ++i) counts[i] = rcounts[i];
    return reduce_scatter(fn, f, sendbuf, recvbuf, counts, dt, op, comm, *c, request);
}

int reduce_scatter_block(const char* fn, form f, const void* sendbuf, void* recvbuf, int64_t rcount,
                         MPI_Datatype dt, MPI_Op op, MPI_Comm comm, MPI_Info info,
                         MPI_Request* request) {
    dev::comm* c = nullptr;
    COLL_TRY(check_comm(fn, comm, c));
    COLL_TRY(check_form(fn, comm, f, info, request));
    if (c->is_inter()) return inter_reduce_scatter(fn, f, sendbuf, recvbuf, static_cast<const int*>(nullptr), rcount, dt, op, comm, *c, request);
    if (rcount < 0)
        COLL_FAIL(MPI_ERR_COUNT, "invalid recvcount %lld: must be >= 0", static_cast<long long>(rcount));
    util::scratch sc;
    auto* counts = reinterpret_cast<int64_t*>(sc.get(static_cast<std::size_t>(c->size) * sizeof(int64_t)));
    if (!counts) return fail(fn, comm, status::no_mem);
    for (int i = 0; i < c->size; ++i) counts[i] = rcount;
    return reduce_scatter(fn, f, sendbuf, recvbuf, counts, dt, op, comm, *c, request);
}

}  // namespace

extern "C" {
CH4_PMPI(MPI_Reduce_scatter_block)
int MPI_Reduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount,
                             MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
    CH4_API_LOCK();
    return reduce_scatter_block(__func__, form::blocking, sendbuf, recvbuf, recvcount, datatype, op,
                                comm, MPI_INFO_NULL, nullptr);
}
CH4_PMPI(MPI_Reduce_scatter_block_c)
int MPI_Reduce_scatter_block_c(const void* sendbuf, void* recvbuf, MPI_Count recvcount,
                               MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
    CH4_API_LOCK();
    return reduce_scatter_block(__func__, form::blocking, sendbuf, recvbuf, recvcount, datatype, op,
                                comm, MPI_INFO_NULL, nullptr);
}
CH4_PMPI(MPI_Ireduce_scatter_block)
int MPI_Ireduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount,
                              MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                              MPI_Request* request) {
    CH4_API_LOCK();
    return reduce_scatter_block(__func__, form::nonblocking, sendbuf, recvbuf, recvcount, datatype,
                                op, comm, MPI_INFO_NULL, request);
}
CH4_PMPI(MPI_Ireduce_scatter_block_c)
int MPI_Ireduce_scatter_block_c(const void* sendbuf, void* recvbuf, MPI_Count recvcount,
                                MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                MPI_Request* request) {
    CH4_API_LOCK();
    return reduce_scatter_block(__func__, form::nonblocking, sendbuf, recvbuf, recvcount, datatype,
                                op, comm, MPI_INFO_NULL, request);
}
CH4_PMPI(MPI_Reduce_scatter_block_init)
int MPI_Reduce_scatter_block_init(const void* sendbuf, void* recvbuf, int recvcount,
                                  MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                                  MPI_Request* request) {
    CH4_API_LOCK();
    return reduce_scatter_block(__func__, form::persistent, sendbuf, recvbuf, recvcount, datatype,
                                op, comm, info, request);
}
CH4_PMPI(MPI_Reduce_scatter_block_init_c)
int MPI_Reduce_scatter_block_init_c(const void* sendbuf, void* recvbuf, MPI_Count recvcount,
                                    MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                                    MPI_Request* request) {
    CH4_API_LOCK();
    return reduce_scatter_block(__func__, form::persistent, sendbuf, recvbuf, recvcount, datatype,
                                op, comm, info, request);
}
CH4_PMPI(MPI_Reduce_scatter)
int MPI_Reduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[],
                       MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
    CH4_API_LOCK();
    return reduce_scatter_v(__func__, form::blocking, sendbuf, recvbuf, recvcounts, datatype, op,
                            comm, MPI_INFO_NULL, nullptr);
}
CH4_PMPI(MPI_Reduce_scatter_c)
int MPI_Reduce_scatter_c(const void* sendbuf, void* recvbuf, const MPI_Count recvcounts[],
                         MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
    CH4_API_LOCK();
    return reduce_scatter_v(__func__, form::blocking, sendbuf, recvbuf, recvcounts, datatype, op,
                            comm, MPI_INFO_NULL, nullptr);
}
CH4_PMPI(MPI_Ireduce_scatter)
int MPI_Ireduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[],
                        MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request* request) {
    CH4_API_LOCK();
    return reduce_scatter_v(__func__, form::nonblocking, sendbuf, recvbuf, recvcounts, datatype, op,
                            comm, MPI_INFO_NULL, request);
}
CH4_PMPI(MPI_Ireduce_scatter_c)
int MPI_Ireduce_scatter_c(const void* sendbuf, void* recvbuf, const MPI_Count recvcounts[],
                          MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request* request) {
    CH4_API_LOCK();
    return reduce_scatter_v(__func__, form::nonblocking, sendbuf, recvbuf, recvcounts, datatype, op,
                            comm, MPI_INFO_NULL, request);
}
CH4_PMPI(MPI_Reduce_scatter_init)
int MPI_Reduce_scatter_init(const void* sendbuf, void* recvbuf, const int recvcounts[],
                            MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                            MPI_Request* request) {
    CH4_API_LOCK();
    return reduce_scatter_v(__func__, form::persistent, sendbuf, recvbuf, recvcounts, datatype, op,
                            comm, info, request);
}
CH4_PMPI(MPI_Reduce_scatter_init_c)
int MPI_Reduce_scatter_init_c(const void* sendbuf, void* recvbuf, const MPI_Count recvcounts[],
                              MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                              MPI_Request* request) {
    CH4_API_LOCK();
    return reduce_scatter_v(__func__, form::persistent, sendbuf, recvbuf, recvcounts, datatype, op,
                            comm, info, request);
}
}
