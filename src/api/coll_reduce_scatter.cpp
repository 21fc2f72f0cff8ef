// SPDX-License-Identifier: MIT
// MPI_Reduce_scatter and MPI_Reduce_scatter_block (and _c). MPI_IN_PLACE
// as sendbuf: the whole input vector is in recvbuf, which receives this
// process's piece at its start.
#include "api/coll_args.hpp"

using namespace ch4lite;
using namespace ch4lite::api::coll;

namespace {

// counts: p entries (already checked >= 0).
int reduce_scatter(const char* fn, const void* sendbuf, void* recvbuf, const int64_t* counts,
                   MPI_Datatype dt, MPI_Op op, MPI_Comm comm, dev::comm& c) {
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
    dev::reduction r;
    COLL_TRY(make_reduction(fn, comm, op, *t, dt, r));
    stream ss, rs;
    status s = status::ok;
    if (inplace) {
        s = rs.prepare_inout(recvbuf, total, *t);
    } else {
        s = ss.load(sendbuf, total, *t);
        if (s == status::ok) s = rs.prepare(recvbuf, counts[me], *t);
    }
    if (s == status::ok) s = dev::coll_reduce_scatter(inplace ? nullptr : ss.data(), rs.data(), counts, r, c);
    if (s != status::ok) return fail(fn, comm, s);
    rs.store(counts[me]);
    return MPI_SUCCESS;
}

template <class C>
int reduce_scatter_v(const char* fn, const void* sendbuf, void* recvbuf, const C* rcounts,
                     MPI_Datatype dt, MPI_Op op, MPI_Comm comm) {
    dev::comm* c = nullptr;
    COLL_TRY(check_comm(fn, comm, c));
    COLL_TRY(check_counts(fn, comm, "recvcounts", rcounts, c->size));
    util::scratch sc;
    auto* counts = reinterpret_cast<int64_t*>(sc.get(static_cast<std::size_t>(c->size) * sizeof(int64_t)));
    if (!counts) return fail(fn, comm, status::no_mem);
    for (int i = 0; i < c->size; ++i) counts[i] = rcounts[i];
    return reduce_scatter(fn, sendbuf, recvbuf, counts, dt, op, comm, *c);
}

int reduce_scatter_block(const char* fn, const void* sendbuf, void* recvbuf, int64_t rcount,
                         MPI_Datatype dt, MPI_Op op, MPI_Comm comm) {
    dev::comm* c = nullptr;
    COLL_TRY(check_comm(fn, comm, c));
    if (rcount < 0)
        COLL_FAIL(MPI_ERR_COUNT, "invalid recvcount %lld: must be >= 0", static_cast<long long>(rcount));
    util::scratch sc;
    auto* counts = reinterpret_cast<int64_t*>(sc.get(static_cast<std::size_t>(c->size) * sizeof(int64_t)));
    if (!counts) return fail(fn, comm, status::no_mem);
    for (int i = 0; i < c->size; ++i) counts[i] = rcount;
    return reduce_scatter(fn, sendbuf, recvbuf, counts, dt, op, comm, *c);
}

}  // namespace

extern "C" {
CH4_PMPI(MPI_Reduce_scatter_block)
int MPI_Reduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount,
                             MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
    return reduce_scatter_block(__func__, sendbuf, recvbuf, recvcount, datatype, op, comm);
}
CH4_PMPI(MPI_Reduce_scatter_block_c)
int MPI_Reduce_scatter_block_c(const void* sendbuf, void* recvbuf, MPI_Count recvcount,
                               MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
    return reduce_scatter_block(__func__, sendbuf, recvbuf, recvcount, datatype, op, comm);
}
CH4_PMPI(MPI_Reduce_scatter)
int MPI_Reduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[],
                       MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
    return reduce_scatter_v(__func__, sendbuf, recvbuf, recvcounts, datatype, op, comm);
}
CH4_PMPI(MPI_Reduce_scatter_c)
int MPI_Reduce_scatter_c(const void* sendbuf, void* recvbuf, const MPI_Count recvcounts[],
                         MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
    return reduce_scatter_v(__func__, sendbuf, recvbuf, recvcounts, datatype, op, comm);
}
}
