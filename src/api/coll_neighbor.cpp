// SPDX-License-Identifier: MIT
// Neighbourhood collectives: MPI_(I)Neighbor_allgather(v),
// MPI_(I)Neighbor_alltoall(v,w), their _init forms, and _c. The messages
// and their order are topo/neighbor.hpp's; here: checks and buffers.
// Blocking forms run the direct exchange (no schedule) except Alltoallw;
// nonblocking and persistent ones a schedule built at the call (_init: once).
// MPI_IN_PLACE is not allowed (MPI-4.1 §8.6): MPI_ERR_BUFFER.
#include "api/coll_sched.hpp"
#include "api/datatype_handles.hpp"
#include "topo/neighbor.hpp"

using namespace ch4lite;
using namespace ch4lite::api::coll;
namespace cl = ch4lite::coll;

namespace {

int check_topo(const char* fn, MPI_Comm comm, dev::comm*& c, const topo::topology*& t) noexcept {
    COLL_TRY(check_comm(fn, comm, c));
    t = c->topo.get();
    if (!t)
        COLL_FAIL(MPI_ERR_TOPOLOGY,
                  "the communicator has no process topology (Cartesian, graph or distributed graph)");
    return MPI_SUCCESS;
}

int no_in_place(const char* fn, MPI_Comm comm, const void* sendbuf, const void* recvbuf) noexcept {
    if (in_place(sendbuf) || in_place(recvbuf))
        COLL_FAIL(MPI_ERR_BUFFER, "MPI_IN_PLACE is not allowed in a neighborhood collective");
    return MPI_SUCCESS;
}

int degree(const std::vector<int>& v) noexcept { return static_cast<int>(v.size()); }

bool has_null(const std::vector<int>& v) noexcept {
    for (int r : v)
        if (r == MPI_PROC_NULL) return true;
    return false;
}

// The blocks of a neighbourhood exchange (what neighbor.hpp takes), kept
// for the blocking form in util::scratch memory.
struct blocks {
    util::scratch mem;
    cl::cblock* s = nullptr;
    cl::block* r = nullptr;
    bool make(int nout, int nin) noexcept {
        auto* p = mem.get(static_cast<std::size_t>(nout) * sizeof(cl::cblock) +
                          static_cast<std::size_t>(nin) * sizeof(cl::block));
        if (!p) return false;
        s = reinterpret_cast<cl::cblock*>(p);
        r = reinterpret_cast<cl::block*>(p + static_cast<std::size_t>(nout) * sizeof(cl::cblock));
        return true;
    }
};

template <class B>
B* sched_array(cl::sched& s, int n) noexcept {
    return reinterpret_cast<B*>(s.scratch(static_cast<std::size_t>(n) * sizeof(B)));
}

// Runs the exchange of a built schedule in form f, or, blocking, directly
// when it can (then s is not used).
int finish_blocking(const char* fn, MPI_Comm comm, dev::comm& c, const topo::topology& t,
                    const cl::cblock* sb, const cl::block* rb, bool& done) noexcept {
    bool direct = false;
    const status st = topo::neighbor_exchange(c, t, sb, rb, direct);
    done = direct;
    if (direct && st != status::ok) return fail(fn, comm, st);
    return MPI_SUCCESS;
}

// Allgather (each_send false: one send block for all) and Alltoall.
int uniform(const char* fn, form f, bool alltoall, const void* sendbuf, int64_t scount,
            MPI_Datatype sdt, void* recvbuf, int64_t rcount, MPI_Datatype rdt, MPI_Comm comm,
            MPI_Info info, MPI_Request* request) {
    dev::comm* c = nullptr;
    const topo::topology* t = nullptr;
    COLL_TRY(check_topo(fn, comm, c, t));
    COLL_TRY(check_form(fn, comm, f, info, request));
    COLL_TRY(no_in_place(fn, comm, sendbuf, recvbuf));
    const int nout = degree(t->out), nin = degree(t->in);
    const int64_t sn = alltoall ? scount * nout : scount, rn = rcount * nin;
    if ((alltoall && nout && scount > INT64_MAX / nout) || (nin && rcount > INT64_MAX / nin))
        COLL_FAIL(MPI_ERR_COUNT, "count times the number of neighbours overflows");
    const dame::type *st = nullptr, *rt = nullptr;
    COLL_TRY(check_buf(fn, comm, "sendbuf", sendbuf, sn, sdt, st));
    COLL_TRY(check_buf(fn, comm, "recvbuf", recvbuf, rn, rdt, rt));
    std::size_t sbytes = 0, rbytes = 0;
    COLL_TRY(stream_bytes(fn, comm, sn, *st, sbytes));
    COLL_TRY(stream_bytes(fn, comm, rn, *rt, rbytes));
    const std::size_t sblock = alltoall && nout ? sbytes / static_cast<std::size_t>(nout) : sbytes;
    const std::size_t rblock = nin ? rbytes / static_cast<std::size_t>(nin) : 0;
    const bool keep = has_null(t->in);  // blocks from MPI_PROC_NULL stay as they are
    if (f == form::blocking && !blocking_sched()) {
        stream ss, rs;
        blocks b;
        status s = ss.load(sendbuf, sn, *st);
        if (s == status::ok) s = keep ? rs.prepare_inout(recvbuf, rn, *rt) : rs.prepare(recvbuf, rn, *rt);
        if (s == status::ok && !b.make(nout, nin)) s = status::no_mem;
        if (s != status::ok) return fail(fn, comm, s);
        for (int i = 0; i < nout; ++i) b.s[i] = {ss.data() + (alltoall ? i * sblock : 0), sblock};
        for (int j = 0; j < nin; ++j) b.r[j] = {rs.data() + j * rblock, rblock};
        bool done = false;
        COLL_TRY(finish_blocking(fn, comm, *c, *t, b.s, b.r, done));
        if (done) {
            rs.store();
            return MPI_SUCCESS;
        }
    }
    auto s = new_sched(*c);
    if (s) {
        const std::byte* sd = s->user_stream(sendbuf, sn, *st, true);
        std::byte* rd = s->user_stream(recvbuf, rn, *rt, keep);
        auto* sb = sched_array<cl::cblock>(*s, nout);
        auto* rb = sched_array<cl::block>(*s, nin);
        if (sb && rb) {
            for (int i = 0; i < nout; ++i) sb[i] = {sd + (alltoall ? i * sblock : 0), sblock};
            for (int j = 0; j < nin; ++j) rb[j] = {rd + j * rblock, rblock};
            s->fence();
            topo::add_neighbor_exchange(*s, *t, sb, rb);
        }
        s->user_store(rd, recvbuf, rn, *rt);
    }
    return issue(fn, comm, f, std::move(s), request);
}

// Allgatherv (scounts == nullptr: scount to every out-neighbour from one
// block) and Alltoallv.
template <class C, class D>
int vary(const char* fn, form f, const void* sendbuf, int64_t scount, const C* scounts,
         const D* sdispls, MPI_Datatype sdt, void* recvbuf, const C* rcounts, const D* rdispls,
         MPI_Datatype rdt, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
    dev::comm* c = nullptr;
    const topo::topology* t = nullptr;
    COLL_TRY(check_topo(fn, comm, c, t));
    COLL_TRY(check_form(fn, comm, f, info, request));
    COLL_TRY(no_in_place(fn, comm, sendbuf, recvbuf));
    const int nout = degree(t->out), nin = degree(t->in);
    const bool allgather = scounts == nullptr;
    const dame::type *st = nullptr, *rt = nullptr;
    std::size_t sbytes = 0;
    if (allgather) {
        COLL_TRY(check_buf(fn, comm, "sendbuf", sendbuf, scount, sdt, st));
        COLL_TRY(stream_bytes(fn, comm, scount, *st, sbytes));
    } else {
        COLL_TRY(check_counts(fn, comm, "sendcounts", scounts, nout));
        if (nout && !sdispls) COLL_FAIL(MPI_ERR_ARG, "sdispls is NULL");
        int64_t any = 0;
        for (int i = 0; i < nout; ++i) any |= scounts[i];
        COLL_TRY(check_buf(fn, comm, "sendbuf", sendbuf, any ? 1 : 0, sdt, st));
    }
    COLL_TRY(check_counts(fn, comm, "recvcounts", rcounts, nin));
    if (nin && !rdispls) COLL_FAIL(MPI_ERR_ARG, "%s is NULL", allgather ? "displs" : "rdispls");
    int64_t any = 0;
    for (int j = 0; j < nin; ++j) any |= rcounts[j];
    COLL_TRY(check_buf(fn, comm, "recvbuf", recvbuf, any ? 1 : 0, rdt, rt));
    const bool keep = has_null(t->in);
    if (f == form::blocking && !blocking_sched()) {
        stream ss;
        vstream sv, rv;
        blocks b;
        status s = allgather ? ss.load(sendbuf, scount, *st) : sv.load(sendbuf, scounts, sdispls, *st, nout);
        if (s == status::ok) s = rv.prepare(recvbuf, rcounts, rdispls, *rt, nin, keep ? -2 : -1);
        if (s == status::ok && !b.make(nout, nin)) s = status::no_mem;
        if (s != status::ok) return fail(fn, comm, s);
        for (int i = 0; i < nout; ++i) b.s[i] = allgather ? cl::cblock{ss.data(), sbytes} : sv.cblocks()[i];
        for (int j = 0; j < nin; ++j) b.r[j] = rv.blocks()[j];
        bool done = false;
        COLL_TRY(finish_blocking(fn, comm, *c, *t, b.s, b.r, done));
        if (done) {
            rv.store();
            return MPI_SUCCESS;
        }
    }
    auto s = new_sched(*c);
    if (s) {
        cl::cblock* sb = nullptr;
        if (allgather) {
            const std::byte* sd = s->user_stream(sendbuf, scount, *st, true);
            sb = sched_array<cl::cblock>(*s, nout);
            for (int i = 0; sb && i < nout; ++i) sb[i] = {sd, sbytes};
        } else {
            sb = reinterpret_cast<cl::cblock*>(sched_blocks(*s, sendbuf, scounts, sdispls, *st, nout, -2));
        }
        cl::block* rb = sched_blocks(*s, recvbuf, rcounts, rdispls, *rt, nin, keep ? -2 : -1);
        s->fence();
        if ((sb || nout == 0) && (rb || nin == 0)) topo::add_neighbor_exchange(*s, *t, sb, rb);
        sched_store_blocks(*s, rb, recvbuf, rcounts, rdispls, *rt, nin);
    }
    return issue(fn, comm, f, std::move(s), request);
}

// Per-neighbour datatypes: each valid and committed.
int check_types(const char* fn, MPI_Comm comm, const char* what, const MPI_Datatype* types, int n,
                const dame::type** out) noexcept {
    if (!types && n > 0) COLL_FAIL(MPI_ERR_ARG, "%s is NULL", what);
    for (int i = 0; i < n; ++i) {
        const dame::type* t = api::lookup_type(types[i]);
        if (!t) COLL_FAIL(MPI_ERR_TYPE, "invalid datatype %s[%d]", what, i);
        if (!t->committed())
            COLL_FAIL(MPI_ERR_TYPE, "datatype %s[%d] is not committed (call MPI_Type_commit)", what, i);
        out[i] = t;
    }
    return MPI_SUCCESS;
}

// Alltoallw: byte displacements, a datatype per neighbour; every form a schedule.
template <class C>
int alltoallw(const char* fn, form f, const void* sendbuf, const C* scounts, const MPI_Aint* sdispls,
              const MPI_Datatype* stypes, void* recvbuf, const C* rcounts, const MPI_Aint* rdispls,
              const MPI_Datatype* rtypes, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
    dev::comm* c = nullptr;
    const topo::topology* t = nullptr;
    COLL_TRY(check_topo(fn, comm, c, t));
    COLL_TRY(check_form(fn, comm, f, info, request));
    COLL_TRY(no_in_place(fn, comm, sendbuf, recvbuf));
    const int nout = degree(t->out), nin = degree(t->in);
    COLL_TRY(check_counts(fn, comm, "sendcounts", scounts, nout));
    COLL_TRY(check_counts(fn, comm, "recvcounts", rcounts, nin));
    if ((nout && !sdispls) || (nin && !rdispls))
        COLL_FAIL(MPI_ERR_ARG, "%s is NULL", nout && !sdispls ? "sdispls" : "rdispls");
    util::scratch tt;
    auto** ts = reinterpret_cast<const dame::type**>(
        tt.get(static_cast<std::size_t>(nout + nin) * sizeof(void*) + sizeof(void*)));
    if (!ts) return fail(fn, comm, status::no_mem);
    const dame::type** tr = ts + nout;
    COLL_TRY(check_types(fn, comm, "sendtypes", stypes, nout, ts));
    COLL_TRY(check_types(fn, comm, "recvtypes", rtypes, nin, tr));
    for (int i = 0; i < nout; ++i) {
        std::size_t bytes = 0;
        COLL_TRY(stream_bytes(fn, comm, scounts[i], *ts[i], bytes));
    }
    for (int j = 0; j < nin; ++j) {
        std::size_t bytes = 0;
        COLL_TRY(stream_bytes(fn, comm, rcounts[j], *tr[j], bytes));
    }
    auto s = new_sched(*c);
    if (s) {
        auto* sb = sched_array<cl::cblock>(*s, nout);
        auto* rb = sched_array<cl::block>(*s, nin);
        for (int i = 0; sb && i < nout; ++i)
            sb[i] = {s->user_stream(static_cast<const std::byte*>(sendbuf) + sdispls[i], scounts[i], *ts[i], true),
                     static_cast<std::size_t>(static_cast<int64_t>(scounts[i]) * ts[i]->size())};
        // a block from MPI_PROC_NULL is not received: its stream is not stored back
        for (int j = 0; rb && j < nin; ++j)
            rb[j] = {s->user_stream(static_cast<std::byte*>(recvbuf) + rdispls[j], rcounts[j], *tr[j], false),
                     static_cast<std::size_t>(static_cast<int64_t>(rcounts[j]) * tr[j]->size())};
        s->fence();
        if (sb && rb) topo::add_neighbor_exchange(*s, *t, sb, rb);
        for (int j = 0; rb && j < nin; ++j)
            if (t->in[static_cast<std::size_t>(j)] != MPI_PROC_NULL)
                s->user_store(rb[j].p, static_cast<std::byte*>(recvbuf) + rdispls[j], rcounts[j], *tr[j]);
    }
    return issue(fn, comm, f, std::move(s), request);
}

}  // namespace

// ---- entry points: blocking, nonblocking (I), persistent (_init); int and _c

#define NB_ALLGATHER(name, CNT, ...)                                                            \
    CH4_PMPI(name)                                                                                 \
    int name(const void* sendbuf, CNT sendcount, MPI_Datatype sendtype, void* recvbuf,             \
             CNT recvcount, MPI_Datatype recvtype, MPI_Comm comm __VA_ARGS__)
#define NB_ALLGATHERV(name, CNT, DSP, ...)                                                         \
    CH4_PMPI(name)                                                                                 \
    int name(const void* sendbuf, CNT sendcount, MPI_Datatype sendtype, void* recvbuf,             \
             const CNT recvcounts[], const DSP displs[], MPI_Datatype recvtype, MPI_Comm comm __VA_ARGS__)
#define NB_ALLTOALLV(name, CNT, DSP, ...)                                                          \
    CH4_PMPI(name)                                                                                 \
    int name(const void* sendbuf, const CNT sendcounts[], const DSP sdispls[], MPI_Datatype sendtype, \
             void* recvbuf, const CNT recvcounts[], const DSP rdispls[], MPI_Datatype recvtype,    \
             MPI_Comm comm __VA_ARGS__)
#define NB_ALLTOALLW(name, CNT, ...)                                                               \
    CH4_PMPI(name)                                                                                 \
    int name(const void* sendbuf, const CNT sendcounts[], const MPI_Aint sdispls[],                \
             const MPI_Datatype sendtypes[], void* recvbuf, const CNT recvcounts[],                \
             const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm __VA_ARGS__)
#define BLK MPI_INFO_NULL, nullptr
#define NBK MPI_INFO_NULL, request
#define PST info, request

extern "C" {

NB_ALLGATHER(MPI_Neighbor_allgather, int) {
    CH4_API_LOCK();
    return uniform(__func__, form::blocking, false, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, BLK);
}
NB_ALLGATHER(MPI_Neighbor_allgather_c, MPI_Count) {
    CH4_API_LOCK();
    return uniform(__func__, form::blocking, false, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, BLK);
}
NB_ALLGATHER(MPI_Ineighbor_allgather, int, , MPI_Request* request) {
    CH4_API_LOCK();
    return uniform(__func__, form::nonblocking, false, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, NBK);
}
NB_ALLGATHER(MPI_Ineighbor_allgather_c, MPI_Count, , MPI_Request* request) {
    CH4_API_LOCK();
    return uniform(__func__, form::nonblocking, false, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, NBK);
}
NB_ALLGATHER(MPI_Neighbor_allgather_init, int, , MPI_Info info, MPI_Request* request) {
    CH4_API_LOCK();
    return uniform(__func__, form::persistent, false, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, PST);
}
NB_ALLGATHER(MPI_Neighbor_allgather_init_c, MPI_Count, , MPI_Info info, MPI_Request* request) {
    CH4_API_LOCK();
    return uniform(__func__, form::persistent, false, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, PST);
}

NB_ALLGATHER(MPI_Neighbor_alltoall, int) {
    CH4_API_LOCK();
    return uniform(__func__, form::blocking, true, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, BLK);
}
NB_ALLGATHER(MPI_Neighbor_alltoall_c, MPI_Count) {
    CH4_API_LOCK();
    return uniform(__func__, form::blocking, true, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, BLK);
}
NB_ALLGATHER(MPI_Ineighbor_alltoall, int, , MPI_Request* request) {
    CH4_API_LOCK();
    return uniform(__func__, form::nonblocking, true, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, NBK);
}
NB_ALLGATHER(MPI_Ineighbor_alltoall_c, MPI_Count, , MPI_Request* request) {
    CH4_API_LOCK();
    return uniform(__func__, form::nonblocking, true, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, NBK);
}
NB_ALLGATHER(MPI_Neighbor_alltoall_init, int, , MPI_Info info, MPI_Request* request) {
    CH4_API_LOCK();
    return uniform(__func__, form::persistent, true, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, PST);
}
NB_ALLGATHER(MPI_Neighbor_alltoall_init_c, MPI_Count, , MPI_Info info, MPI_Request* request) {
    CH4_API_LOCK();
    return uniform(__func__, form::persistent, true, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, PST);
}

NB_ALLGATHERV(MPI_Neighbor_allgatherv, int, int) {
    CH4_API_LOCK();
    return vary<int, int>(__func__, form::blocking, sendbuf, sendcount, nullptr, nullptr, sendtype, recvbuf, recvcounts, displs, recvtype, comm, BLK);
}
NB_ALLGATHERV(MPI_Neighbor_allgatherv_c, MPI_Count, MPI_Aint) {
    CH4_API_LOCK();
    return vary<MPI_Count, MPI_Aint>(__func__, form::blocking, sendbuf, sendcount, nullptr, nullptr, sendtype, recvbuf, recvcounts, displs, recvtype, comm, BLK);
}
NB_ALLGATHERV(MPI_Ineighbor_allgatherv, int, int, , MPI_Request* request) {
    CH4_API_LOCK();
    return vary<int, int>(__func__, form::nonblocking, sendbuf, sendcount, nullptr, nullptr, sendtype, recvbuf, recvcounts, displs, recvtype, comm, NBK);
}
NB_ALLGATHERV(MPI_Ineighbor_allgatherv_c, MPI_Count, MPI_Aint, , MPI_Request* request) {
    CH4_API_LOCK();
    return vary<MPI_Count, MPI_Aint>(__func__, form::nonblocking, sendbuf, sendcount, nullptr, nullptr, sendtype, recvbuf, recvcounts, displs, recvtype, comm, NBK);
}
NB_ALLGATHERV(MPI_Neighbor_allgatherv_init, int, int, , MPI_Info info, MPI_Request* request) {
    CH4_API_LOCK();
    return vary<int, int>(__func__, form::persistent, sendbuf, sendcount, nullptr, nullptr, sendtype, recvbuf, recvcounts, displs, recvtype, comm, PST);
}
NB_ALLGATHERV(MPI_Neighbor_allgatherv_init_c, MPI_Count, MPI_Aint, , MPI_Info info, MPI_Request* request) {
    CH4_API_LOCK();
    return vary<MPI_Count, MPI_Aint>(__func__, form::persistent, sendbuf, sendcount, nullptr, nullptr, sendtype, recvbuf, recvcounts, displs, recvtype, comm, PST);
}

NB_ALLTOALLV(MPI_Neighbor_alltoallv, int, int) {
    CH4_API_LOCK();
    return vary(__func__, form::blocking, sendbuf, 0, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm, BLK);
}
NB_ALLTOALLV(MPI_Neighbor_alltoallv_c, MPI_Count, MPI_Aint) {
    CH4_API_LOCK();
    return vary(__func__, form::blocking, sendbuf, 0, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm, BLK);
}
NB_ALLTOALLV(MPI_Ineighbor_alltoallv, int, int, , MPI_Request* request) {
    CH4_API_LOCK();
    return vary(__func__, form::nonblocking, sendbuf, 0, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm, NBK);
}
NB_ALLTOALLV(MPI_Ineighbor_alltoallv_c, MPI_Count, MPI_Aint, , MPI_Request* request) {
    CH4_API_LOCK();
    return vary(__func__, form::nonblocking, sendbuf, 0, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm, NBK);
}
NB_ALLTOALLV(MPI_Neighbor_alltoallv_init, int, int, , MPI_Info info, MPI_Request* request) {
    CH4_API_LOCK();
    return vary(__func__, form::persistent, sendbuf, 0, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm, PST);
}
NB_ALLTOALLV(MPI_Neighbor_alltoallv_init_c, MPI_Count, MPI_Aint, , MPI_Info info, MPI_Request* request) {
    CH4_API_LOCK();
    return vary(__func__, form::persistent, sendbuf, 0, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm, PST);
}

NB_ALLTOALLW(MPI_Neighbor_alltoallw, int) {
    CH4_API_LOCK();
    return alltoallw(__func__, form::blocking, sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm, BLK);
}
NB_ALLTOALLW(MPI_Neighbor_alltoallw_c, MPI_Count) {
    CH4_API_LOCK();
    return alltoallw(__func__, form::blocking, sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm, BLK);
}
NB_ALLTOALLW(MPI_Ineighbor_alltoallw, int, , MPI_Request* request) {
    CH4_API_LOCK();
    return alltoallw(__func__, form::nonblocking, sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm, NBK);
}
NB_ALLTOALLW(MPI_Ineighbor_alltoallw_c, MPI_Count, , MPI_Request* request) {
    CH4_API_LOCK();
    return alltoallw(__func__, form::nonblocking, sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm, NBK);
}
NB_ALLTOALLW(MPI_Neighbor_alltoallw_init, int, , MPI_Info info, MPI_Request* request) {
    CH4_API_LOCK();
    return alltoallw(__func__, form::persistent, sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm, PST);
}
NB_ALLTOALLW(MPI_Neighbor_alltoallw_init_c, MPI_Count, , MPI_Info info, MPI_Request* request) {
    CH4_API_LOCK();
    return alltoallw(__func__, form::persistent, sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm, PST);
}

}  // extern "C"
