// SPDX-License-Identifier: MIT
// Intercommunicator forms of the collectives (api/coll_inter.hpp).
#include "api/coll_inter.hpp"

#include <climits>

#include "api/datatype_handles.hpp"
#include "coll/build_inter.hpp"
#include "device/intercomm.hpp"

namespace ch4lite::api::coll {

namespace {

namespace cl = ch4lite::coll;

int inter_root(const char* fn, MPI_Comm comm, const dev::comm& ic, int root) noexcept {
    if (root == MPI_ROOT || root == MPI_PROC_NULL || (root >= 0 && root < ic.size)) return MPI_SUCCESS;
    COLL_FAIL(MPI_ERR_ROOT,
              "invalid root %d: on an intercommunicator it is MPI_ROOT, MPI_PROC_NULL or a rank "
              "of the remote group [0, %d)",
              root, ic.size);
}

int no_in_place(const char* fn, MPI_Comm comm, const void* buf, const char* what) noexcept {
    if (in_place(buf))
        COLL_FAIL(MPI_ERR_BUFFER, "MPI_IN_PLACE as %s is not allowed on an intercommunicator", what);
    return MPI_SUCCESS;
}

// A buffer of count instances: checked, its type and stream bytes.
int side(const char* fn, MPI_Comm comm, const char* what, const void* buf, int64_t count,
         MPI_Datatype dt, const dame::type*& t, std::size_t& bytes) noexcept {
    COLL_TRY(no_in_place(fn, comm, buf, what));
    COLL_TRY(check_buf(fn, comm, what, buf, count, dt, t));
    return stream_bytes(fn, comm, count, *t, bytes);
}

// count instances per remote process: checked, the bytes of one block.
int per_remote(const char* fn, MPI_Comm comm, const char* what, const void* buf, int64_t count,
               MPI_Datatype dt, int p, const dame::type*& t, std::size_t& block) noexcept {
    if (count > INT64_MAX / (p ? p : 1))
        COLL_FAIL(MPI_ERR_COUNT, "%s count times the remote group size overflows", what);
    std::size_t total = 0;
    COLL_TRY(side(fn, comm, what, buf, count * p, dt, t, total));
    block = p ? total / static_cast<std::size_t>(p) : 0;
    return MPI_SUCCESS;
}

// Per-remote-process counts and displacements of a v-collective buffer.
template <class C, class D>
int v_side(const char* fn, MPI_Comm comm, const char* what, const char* cname, const void* buf,
           const C* counts, const D* displs, MPI_Datatype dt, int p, const dame::type*& t) noexcept {
    COLL_TRY(no_in_place(fn, comm, buf, what));
    COLL_TRY(check_counts(fn, comm, cname, counts, p));
    if (!displs && p > 0) COLL_FAIL(MPI_ERR_ARG, "displs of %s is NULL", what);
    int64_t any = 0;
    for (int i = 0; i < p; ++i) any |= counts[i];
    return check_buf(fn, comm, what, buf, any ? 1 : 0, dt, t);
}

std::unique_ptr<cl::sched> sched_of(dev::comm& ic) noexcept { return new_sched(*ic.inter->local); }

// n blocks of `bytes` each, back to back from p.
template <class B, class P>
B* even_blocks(cl::sched& s, P* p, std::size_t bytes, int n) noexcept {
    auto* b = reinterpret_cast<B*>(s.scratch(static_cast<std::size_t>(n) * sizeof(B)));
    if (!b) return nullptr;
    for (int i = 0; i < n; ++i) b[i] = {p + static_cast<std::size_t>(i) * bytes, bytes};
    return b;
}

}  // namespace

int inter_barrier(const char* fn, form f, MPI_Comm comm, dev::comm& ic, MPI_Request* request) noexcept {
    auto s = sched_of(ic);
    if (s) cl::add_inter_barrier(*s, ic);
    return issue(fn, comm, f, std::move(s), request);
}

int inter_bcast(const char* fn, form f, void* buf, int64_t count, MPI_Datatype dt, int root,
                MPI_Comm comm, dev::comm& ic, MPI_Request* request) noexcept {
    COLL_TRY(inter_root(fn, comm, ic, root));
    const dame::type* t = nullptr;
    std::size_t bytes = 0;
    if (root != MPI_PROC_NULL) COLL_TRY(side(fn, comm, "buffer", buf, count, dt, t, bytes));
    auto s = sched_of(ic);
    if (s && root != MPI_PROC_NULL) {
        const bool sender = root == MPI_ROOT;
        std::byte* d = s->user_stream(buf, count, *t, sender);
        s->fence();
        cl::add_inter_bcast(*s, ic, d, bytes, root);
        if (!sender) s->user_store(d, buf, count, *t);
    }
    return issue(fn, comm, f, std::move(s), request);
}

int inter_gather(const char* fn, form f, const void* sendbuf, int64_t scount, MPI_Datatype sdt,
                 void* recvbuf, int64_t rcount, MPI_Datatype rdt, int root, MPI_Comm comm,
                 dev::comm& ic, MPI_Request* request) noexcept {
    COLL_TRY(inter_root(fn, comm, ic, root));
    const dame::type* t = nullptr;
    std::size_t bytes = 0;
    if (root == MPI_ROOT)
        COLL_TRY(per_remote(fn, comm, "recvbuf", recvbuf, rcount, rdt, ic.size, t, bytes));
    else if (root != MPI_PROC_NULL)
        COLL_TRY(side(fn, comm, "sendbuf", sendbuf, scount, sdt, t, bytes));
    auto s = sched_of(ic);
    if (s && root == MPI_ROOT) {
        const int64_t n = rcount * ic.size;
        std::byte* rd = s->user_stream(recvbuf, n, *t, false);
        cl::add_inter_gather(*s, ic, nullptr, 0, rd, bytes, root);
        s->user_store(rd, recvbuf, n, *t);
    } else if (s && root != MPI_PROC_NULL) {
        const std::byte* sd = s->user_stream(sendbuf, scount, *t, true);
        s->fence();
        cl::add_inter_gather(*s, ic, sd, bytes, nullptr, 0, root);
    }
    return issue(fn, comm, f, std::move(s), request);
}

template <class C, class D>
int inter_gatherv(const char* fn, form f, const void* sendbuf, int64_t scount, MPI_Datatype sdt,
                  void* recvbuf, const C* rcounts, const D* displs, MPI_Datatype rdt, int root,
                  MPI_Comm comm, dev::comm& ic, MPI_Request* request) noexcept {
    COLL_TRY(inter_root(fn, comm, ic, root));
    const dame::type* t = nullptr;
    std::size_t bytes = 0;
    if (root == MPI_ROOT)
        COLL_TRY(v_side(fn, comm, "recvbuf", "recvcounts", recvbuf, rcounts, displs, rdt, ic.size, t));
    else if (root != MPI_PROC_NULL)
        COLL_TRY(side(fn, comm, "sendbuf", sendbuf, scount, sdt, t, bytes));
    auto s = sched_of(ic);
    if (s && root == MPI_ROOT) {
        cl::block* b = sched_blocks(*s, recvbuf, rcounts, displs, *t, ic.size, -1);
        if (b) cl::add_inter_gatherv(*s, ic, nullptr, 0, b, root);
        sched_store_blocks(*s, b, recvbuf, rcounts, displs, *t, ic.size);
    } else if (s && root != MPI_PROC_NULL) {
        const std::byte* sd = s->user_stream(sendbuf, scount, *t, true);
        s->fence();
        cl::add_inter_gatherv(*s, ic, sd, bytes, nullptr, root);
    }
    return issue(fn, comm, f, std::move(s), request);
}

int inter_scatter(const char* fn, form f, const void* sendbuf, int64_t scount, MPI_Datatype sdt,
                  void* recvbuf, int64_t rcount, MPI_Datatype rdt, int root, MPI_Comm comm,
                  dev::comm& ic, MPI_Request* request) noexcept {
    COLL_TRY(inter_root(fn, comm, ic, root));
    const dame::type* t = nullptr;
    std::size_t bytes = 0;
    if (root == MPI_ROOT)
        COLL_TRY(per_remote(fn, comm, "sendbuf", sendbuf, scount, sdt, ic.size, t, bytes));
    else if (root != MPI_PROC_NULL)
        COLL_TRY(side(fn, comm, "recvbuf", recvbuf, rcount, rdt, t, bytes));
    auto s = sched_of(ic);
    if (s && root == MPI_ROOT) {
        const std::byte* sd = s->user_stream(sendbuf, scount * ic.size, *t, true);
        s->fence();
        cl::add_inter_scatter(*s, ic, sd, bytes, nullptr, 0, root);
    } else if (s && root != MPI_PROC_NULL) {
        std::byte* rd = s->user_stream(recvbuf, rcount, *t, false);
        cl::add_inter_scatter(*s, ic, nullptr, 0, rd, bytes, root);
        s->user_store(rd, recvbuf, rcount, *t);
    }
    return issue(fn, comm, f, std::move(s), request);
}

template <class C, class D>
int inter_scatterv(const char* fn, form f, const void* sendbuf, const C* scounts, const D* displs,
                   MPI_Datatype sdt, void* recvbuf, int64_t rcount, MPI_Datatype rdt, int root,
                   MPI_Comm comm, dev::comm& ic, MPI_Request* request) noexcept {
    COLL_TRY(inter_root(fn, comm, ic, root));
    const dame::type* t = nullptr;
    std::size_t bytes = 0;
    if (root == MPI_ROOT)
        COLL_TRY(v_side(fn, comm, "sendbuf", "sendcounts", sendbuf, scounts, displs, sdt, ic.size, t));
    else if (root != MPI_PROC_NULL)
        COLL_TRY(side(fn, comm, "recvbuf", recvbuf, rcount, rdt, t, bytes));
    auto s = sched_of(ic);
    if (s && root == MPI_ROOT) {
        cl::block* b = sched_blocks(*s, sendbuf, scounts, displs, *t, ic.size, -2);
        s->fence();
        if (b) cl::add_inter_scatterv(*s, ic, reinterpret_cast<const cl::cblock*>(b), nullptr, 0, root);
    } else if (s && root != MPI_PROC_NULL) {
        std::byte* rd = s->user_stream(recvbuf, rcount, *t, false);
        cl::add_inter_scatterv(*s, ic, nullptr, rd, bytes, root);
        s->user_store(rd, recvbuf, rcount, *t);
    }
    return issue(fn, comm, f, std::move(s), request);
}

int inter_allgather(const char* fn, form f, const void* sendbuf, int64_t scount, MPI_Datatype sdt,
                    void* recvbuf, int64_t rcount, MPI_Datatype rdt, MPI_Comm comm, dev::comm& ic,
                    MPI_Request* request) noexcept {
    const dame::type *st = nullptr, *rt = nullptr;
    std::size_t sbytes = 0, block = 0;
    COLL_TRY(side(fn, comm, "sendbuf", sendbuf, scount, sdt, st, sbytes));
    COLL_TRY(per_remote(fn, comm, "recvbuf", recvbuf, rcount, rdt, ic.size, rt, block));
    auto s = sched_of(ic);
    if (s) {
        const int64_t n = rcount * ic.size;
        const std::byte* sd = s->user_stream(sendbuf, scount, *st, true);
        std::byte* rd = s->user_stream(recvbuf, n, *rt, false);
        s->fence();
        cl::add_inter_allgather(*s, ic, sd, sbytes, rd, block);
        s->user_store(rd, recvbuf, n, *rt);
    }
    return issue(fn, comm, f, std::move(s), request);
}

template <class C, class D>
int inter_allgatherv(const char* fn, form f, const void* sendbuf, int64_t scount, MPI_Datatype sdt,
                     void* recvbuf, const C* rcounts, const D* displs, MPI_Datatype rdt,
                     MPI_Comm comm, dev::comm& ic, MPI_Request* request) noexcept {
    const dame::type *st = nullptr, *rt = nullptr;
    std::size_t sbytes = 0;
    COLL_TRY(side(fn, comm, "sendbuf", sendbuf, scount, sdt, st, sbytes));
    COLL_TRY(v_side(fn, comm, "recvbuf", "recvcounts", recvbuf, rcounts, displs, rdt, ic.size, rt));
    auto s = sched_of(ic);
    if (s) {
        const std::byte* sd = s->user_stream(sendbuf, scount, *st, true);
        cl::block* b = sched_blocks(*s, recvbuf, rcounts, displs, *rt, ic.size, -1);
        s->fence();
        if (b) cl::add_inter_allgatherv(*s, ic, sd, sbytes, b);
        sched_store_blocks(*s, b, recvbuf, rcounts, displs, *rt, ic.size);
    }
    return issue(fn, comm, f, std::move(s), request);
}

int inter_alltoall(const char* fn, form f, const void* sendbuf, int64_t scount, MPI_Datatype sdt,
                   void* recvbuf, int64_t rcount, MPI_Datatype rdt, MPI_Comm comm, dev::comm& ic,
                   MPI_Request* request) noexcept {
    const int p = ic.size;
    const dame::type *st = nullptr, *rt = nullptr;
    std::size_t sblock = 0, rblock = 0;
    COLL_TRY(per_remote(fn, comm, "sendbuf", sendbuf, scount, sdt, p, st, sblock));
    COLL_TRY(per_remote(fn, comm, "recvbuf", recvbuf, rcount, rdt, p, rt, rblock));
    auto s = sched_of(ic);
    if (s) {
        const std::byte* sd = s->user_stream(sendbuf, scount * p, *st, true);
        std::byte* rd = s->user_stream(recvbuf, rcount * p, *rt, false);
        s->fence();
        auto* sb = even_blocks<cl::cblock>(*s, sd, sblock, p);
        auto* rb = even_blocks<cl::block>(*s, rd, rblock, p);
        if (sb && rb) cl::add_inter_alltoallv(*s, ic, sb, rb);
        s->user_store(rd, recvbuf, rcount * p, *rt);
    }
    return issue(fn, comm, f, std::move(s), request);
}

template <class C, class D>
int inter_alltoallv(const char* fn, form f, const void* sendbuf, const C* scounts, const D* sdispls,
                    MPI_Datatype sdt, void* recvbuf, const C* rcounts, const D* rdispls,
                    MPI_Datatype rdt, MPI_Comm comm, dev::comm& ic, MPI_Request* request) noexcept {
    const int p = ic.size;
    const dame::type *st = nullptr, *rt = nullptr;
    COLL_TRY(v_side(fn, comm, "sendbuf", "sendcounts", sendbuf, scounts, sdispls, sdt, p, st));
    COLL_TRY(v_side(fn, comm, "recvbuf", "recvcounts", recvbuf, rcounts, rdispls, rdt, p, rt));
    auto s = sched_of(ic);
    if (s) {
        cl::block* sb = sched_blocks(*s, sendbuf, scounts, sdispls, *st, p, -2);
        cl::block* rb = sched_blocks(*s, recvbuf, rcounts, rdispls, *rt, p, -1);
        s->fence();
        if (sb && rb) cl::add_inter_alltoallv(*s, ic, reinterpret_cast<const cl::cblock*>(sb), rb);
        sched_store_blocks(*s, rb, recvbuf, rcounts, rdispls, *rt, p);
    }
    return issue(fn, comm, f, std::move(s), request);
}

template <class C, class D>
int inter_alltoallw(const char* fn, form f, const void* sendbuf, const C* scounts, const D* sdispls,
                    const MPI_Datatype* stypes, void* recvbuf, const C* rcounts, const D* rdispls,
                    const MPI_Datatype* rtypes, MPI_Comm comm, dev::comm& ic,
                    MPI_Request* request) noexcept {
    const int p = ic.size;
    COLL_TRY(no_in_place(fn, comm, sendbuf, "sendbuf"));
    COLL_TRY(no_in_place(fn, comm, recvbuf, "recvbuf"));
    COLL_TRY(check_counts(fn, comm, "sendcounts", scounts, p));
    COLL_TRY(check_counts(fn, comm, "recvcounts", rcounts, p));
    if (p > 0 && (!sdispls || !rdispls)) COLL_FAIL(MPI_ERR_ARG, "%s is NULL", !sdispls ? "sdispls" : "rdispls");
    if (p > 0 && (!stypes || !rtypes)) COLL_FAIL(MPI_ERR_ARG, "%s is NULL", !stypes ? "sendtypes" : "recvtypes");
    util::scratch tt;
    auto** ts = reinterpret_cast<const dame::type**>(tt.get(2 * static_cast<std::size_t>(p) * sizeof(void*)));
    if (!ts && p > 0) return fail(fn, comm, status::no_mem);
    const dame::type** tr = ts + p;
    for (int side = 0; side < 2; ++side)
        for (int i = 0; i < p; ++i) {
            const MPI_Datatype h = side ? rtypes[i] : stypes[i];
            const dame::type* t = api::lookup_type(h);
            const char* what = side ? "recvtypes" : "sendtypes";
            if (!t) COLL_FAIL(MPI_ERR_TYPE, "invalid datatype %s[%d]", what, i);
            if (!t->committed())
                COLL_FAIL(MPI_ERR_TYPE, "datatype %s[%d] is not committed (call MPI_Type_commit)", what, i);
            std::size_t bytes = 0;
            COLL_TRY(stream_bytes(fn, comm, side ? rcounts[i] : scounts[i], *t, bytes));
            (side ? tr : ts)[i] = t;
        }
    auto s = sched_of(ic);
    if (s) {
        const auto blocks = [&](const void* buf, const C* counts, const D* displs, const dame::type** t,
                                bool load) {
            auto* b = reinterpret_cast<cl::block*>(s->scratch(static_cast<std::size_t>(p) * sizeof(cl::block)));
            for (int i = 0; b && i < p; ++i)
                b[i] = {s->user_stream(static_cast<const std::byte*>(buf) + static_cast<int64_t>(displs[i]),
                                       counts[i], *t[i], load),
                        static_cast<std::size_t>(static_cast<int64_t>(counts[i]) * t[i]->size())};
            return b;
        };
        cl::block* sb = blocks(sendbuf, scounts, sdispls, ts, true);
        cl::block* rb = blocks(recvbuf, rcounts, rdispls, tr, false);
        s->fence();
        if (sb && rb) cl::add_inter_alltoallv(*s, ic, reinterpret_cast<const cl::cblock*>(sb), rb);
        for (int i = 0; rb && i < p; ++i)
            s->user_store(rb[i].p, static_cast<std::byte*>(recvbuf) + static_cast<int64_t>(rdispls[i]),
                          rcounts[i], *tr[i]);
    }
    return issue(fn, comm, f, std::move(s), request);
}

int inter_reduce(const char* fn, form f, bool all_reduce, const void* sendbuf, void* recvbuf,
                 int64_t count, MPI_Datatype dt, MPI_Op op, int root, MPI_Comm comm, dev::comm& ic,
                 MPI_Request* request) noexcept {
    if (!all_reduce) COLL_TRY(inter_root(fn, comm, ic, root));
    const bool gives = all_reduce || (root != MPI_ROOT && root != MPI_PROC_NULL);
    const bool gets = all_reduce || root == MPI_ROOT;
    const dame::type* t = nullptr;
    std::size_t bytes = 0;
    if (gives) COLL_TRY(side(fn, comm, "sendbuf", sendbuf, count, dt, t, bytes));
    if (gets) COLL_TRY(side(fn, comm, "recvbuf", recvbuf, count, dt, t, bytes));
    cl::reduction r;
    if (gives || gets) COLL_TRY(make_reduction(fn, comm, op, *t, dt, r));
    auto s = sched_of(ic);
    if (s && (gives || gets)) {
        s->set_op(r);
        const std::byte* sd = gives ? s->user_stream(sendbuf, count, *t, true) : nullptr;
        std::byte* rd = gets ? s->user_stream(recvbuf, count, *t, false) : nullptr;
        s->fence();
        if (all_reduce)
            cl::add_inter_allreduce(*s, ic, sd, rd, count, bytes);
        else
            cl::add_inter_reduce(*s, ic, sd, rd, count, bytes, root);
        if (gets) s->user_store(rd, recvbuf, count, *t);
    }
    return issue(fn, comm, f, std::move(s), request);
}

template <class C>
int inter_reduce_scatter(const char* fn, form f, const void* sendbuf, void* recvbuf, const C* counts,
                         int64_t block, MPI_Datatype dt, MPI_Op op, MPI_Comm comm, dev::comm& ic,
                         MPI_Request* request) noexcept {
    const dev::comm& l = *ic.inter->local;
    if (counts) {
        COLL_TRY(check_counts(fn, comm, "recvcounts", counts, l.size));
    } else if (block < 0) {
        COLL_FAIL(MPI_ERR_COUNT, "invalid recvcount %lld: must be >= 0", static_cast<long long>(block));
    }
    util::scratch sc;
    auto* n = reinterpret_cast<int64_t*>(sc.get(static_cast<std::size_t>(l.size) * sizeof(int64_t)));
    if (!n) return fail(fn, comm, status::no_mem);
    int64_t total = 0;
    for (int i = 0; i < l.size; ++i) {
        n[i] = counts ? static_cast<int64_t>(counts[i]) : block;
        if (n[i] > INT64_MAX - total) COLL_FAIL(MPI_ERR_COUNT, "the recvcounts add up past 2^63");
        total += n[i];
    }
    const dame::type* t = nullptr;
    std::size_t sbytes = 0, rbytes = 0;
    COLL_TRY(side(fn, comm, "sendbuf", sendbuf, total, dt, t, sbytes));
    COLL_TRY(side(fn, comm, "recvbuf", recvbuf, n[l.rank], dt, t, rbytes));
    cl::reduction r;
    COLL_TRY(make_reduction(fn, comm, op, *t, dt, r));
    auto s = sched_of(ic);
    if (s) {
        s->set_op(r);
        const std::byte* sd = s->user_stream(sendbuf, total, *t, true);
        std::byte* rd = s->user_stream(recvbuf, n[l.rank], *t, false);
        s->fence();
        cl::add_inter_reduce_scatter(*s, ic, sd, rd, n, r.elem);
        s->user_store(rd, recvbuf, n[l.rank], *t);
    }
    return issue(fn, comm, f, std::move(s), request);
}

// The int and large-count instances the entry points use.
#define INTER_V(C, D)                                                                              \
    template int inter_gatherv(const char*, form, const void*, int64_t, MPI_Datatype, void*,       \
                               const C*, const D*, MPI_Datatype, int, MPI_Comm, dev::comm&,         \
                               MPI_Request*) noexcept;                                             \
    template int inter_scatterv(const char*, form, const void*, const C*, const D*, MPI_Datatype,  \
                                void*, int64_t, MPI_Datatype, int, MPI_Comm, dev::comm&,            \
                                MPI_Request*) noexcept;                                            \
    template int inter_allgatherv(const char*, form, const void*, int64_t, MPI_Datatype, void*,    \
                                  const C*, const D*, MPI_Datatype, MPI_Comm, dev::comm&,           \
                                  MPI_Request*) noexcept;                                          \
    template int inter_alltoallv(const char*, form, const void*, const C*, const D*, MPI_Datatype, \
                                 void*, const C*, const D*, MPI_Datatype, MPI_Comm, dev::comm&,     \
                                 MPI_Request*) noexcept;                                           \
    template int inter_alltoallw(const char*, form, const void*, const C*, const D*,               \
                                 const MPI_Datatype*, void*, const C*, const D*,                    \
                                 const MPI_Datatype*, MPI_Comm, dev::comm&, MPI_Request*) noexcept; \
    template int inter_reduce_scatter(const char*, form, const void*, void*, const C*, int64_t,    \
                                      MPI_Datatype, MPI_Op, MPI_Comm, dev::comm&, MPI_Request*) noexcept;
INTER_V(int, int)
INTER_V(MPI_Count, MPI_Aint)
#undef INTER_V

}  // namespace ch4lite::api::coll
