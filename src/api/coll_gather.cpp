// SPDX-License-Identifier: MIT
// MPI_Gather(v), MPI_Igather(v), MPI_Gather(v)_init (and _c). MPI_IN_PLACE
// as sendbuf at the root: its block is already in recvbuf.
#include <climits>

#include "api/coll_inter.hpp"
#include "api/coll_sched.hpp"
#include "coll/build.hpp"

using namespace ch4lite;
using namespace ch4lite::api::coll;

namespace {

// The send side shared by Gather and Gatherv: checks sendbuf, its bytes.
int send_side(const char* fn, MPI_Comm comm, const dev::comm& c, int root, const void* sendbuf,
              int64_t scount, MPI_Datatype sdt, const dame::type*& t, std::size_t& bytes) noexcept {
    t = nullptr;
    bytes = 0;
    if (in_place(sendbuf)) {
        if (c.rank != root)
            COLL_FAIL(MPI_ERR_BUFFER, "MPI_IN_PLACE as sendbuf is allowed only at the root");
        return MPI_SUCCESS;
    }
    COLL_TRY(check_buf(fn, comm, "sendbuf", sendbuf, scount, sdt, t));
    COLL_TRY(stream_bytes(fn, comm, scount, *t, bytes));
    return MPI_SUCCESS;
}

int gather(const char* fn, form f, const void* sendbuf, int64_t scount, MPI_Datatype sdt,
           void* recvbuf, int64_t rcount, MPI_Datatype rdt, int root, MPI_Comm comm, MPI_Info info,
           MPI_Request* request) {
    dev::comm* c = nullptr;
    COLL_TRY(check_comm(fn, comm, c));
    COLL_TRY(check_form(fn, comm, f, info, request));
    if (c->is_inter()) return inter_gather(fn, f, sendbuf, scount, sdt, recvbuf, rcount, rdt, root, comm, *c, request);
    COLL_TRY(check_root(fn, comm, *c, root));
    const int p = c->size;
    const bool am_root = c->rank == root, inplace = in_place(sendbuf);
    const dame::type *st = nullptr, *rt = nullptr;
    std::size_t sbytes = 0, block = 0;
    COLL_TRY(send_side(fn, comm, *c, root, sendbuf, scount, sdt, st, sbytes));
    block = sbytes;
    if (am_root) {
        COLL_TRY(check_buf(fn, comm, "recvbuf", recvbuf, rcount, rdt, rt));
        if (rcount > INT64_MAX / p) COLL_FAIL(MPI_ERR_COUNT, "recvcount times the group size overflows");
        std::size_t total = 0;
        COLL_TRY(stream_bytes(fn, comm, rcount * p, *rt, total));
        block = total / static_cast<std::size_t>(p);
        if (!inplace && sbytes != block)
            COLL_FAIL(MPI_ERR_TRUNCATE,
                      "the root sends %zu bytes but receives %zu bytes per process: sendcount "
                      "and sendtype must match recvcount and recvtype",
                      sbytes, block);
    }
    if (f == form::blocking && !blocking_sched()) {
        stream ss, rs;
        status s = inplace ? status::ok : ss.load(sendbuf, scount, *st);
        if (s == status::ok && am_root)
            s = inplace ? rs.prepare_keep(recvbuf, rcount * p, *rt, root * block, block)
                        : rs.prepare(recvbuf, rcount * p, *rt);
        if (s == status::ok) s = ch4lite::coll::gather(inplace ? nullptr : ss.data(), rs.data(), block, root, *c);
        if (s != status::ok) return fail(fn, comm, s);
        rs.store();
        return MPI_SUCCESS;
    }
    auto s = new_sched(*c);
    if (s) {
        const std::byte* sd = inplace ? nullptr : s->user_stream(sendbuf, scount, *st, true);
        std::byte* rd = nullptr;
        if (am_root) {
            rd = s->user_stream(recvbuf, rcount * p, *rt, false);
            if (inplace && rd && !rt->contiguous() && block)  // my block, already in recvbuf
                s->pack(static_cast<std::byte*>(recvbuf) + root * rcount * rt->extent(), rcount, *rt,
                        rd + root * block);
        }
        s->fence();
        ch4lite::coll::add_gather(*s, sd, rd, block, root);
        if (am_root) s->user_store(rd, recvbuf, rcount * p, *rt);
    }
    return issue(fn, comm, f, std::move(s), request);
}

template <class C, class D>
int gatherv(const char* fn, form f, const void* sendbuf, int64_t scount, MPI_Datatype sdt,
            void* recvbuf, const C* rcounts, const D* displs, MPI_Datatype rdt, int root,
            MPI_Comm comm, MPI_Info info, MPI_Request* request) {
    dev::comm* c = nullptr;
    COLL_TRY(check_comm(fn, comm, c));
    COLL_TRY(check_form(fn, comm, f, info, request));
    if (c->is_inter()) return inter_gatherv(fn, f, sendbuf, scount, sdt, recvbuf, rcounts, displs, rdt, root, comm, *c, request);
    COLL_TRY(check_root(fn, comm, *c, root));
    const int p = c->size;
    const bool am_root = c->rank == root, inplace = in_place(sendbuf);
    const dame::type *st = nullptr, *rt = nullptr;
    std::size_t sbytes = 0;
    COLL_TRY(send_side(fn, comm, *c, root, sendbuf, scount, sdt, st, sbytes));
    if (am_root) {
        COLL_TRY(check_counts(fn, comm, "recvcounts", rcounts, p));
        if (!displs) COLL_FAIL(MPI_ERR_ARG, "displs is NULL");
        int64_t any = 0;
        for (int i = 0; i < p; ++i) any |= rcounts[i];
        COLL_TRY(check_buf(fn, comm, "recvbuf", recvbuf, any ? 1 : 0, rdt, rt));
        const std::size_t mine = static_cast<std::size_t>(rcounts[root] * rt->size());
        if (!inplace && sbytes != mine)
            COLL_FAIL(MPI_ERR_TRUNCATE,
                      "the root sends %zu bytes to itself but recvcounts[%d] holds %zu bytes",
                      sbytes, root, mine);
    }
    if (f == form::blocking && !blocking_sched()) {
        stream ss;
        vstream rv;
        status s = inplace ? status::ok : ss.load(sendbuf, scount, *st);
        if (s == status::ok && am_root) s = rv.prepare(recvbuf, rcounts, displs, *rt, p, inplace ? root : -1);
        if (s == status::ok)
            s = ch4lite::coll::gatherv(inplace ? nullptr : ss.data(), ss.bytes(),
                                       am_root ? rv.blocks() : nullptr, root, *c);
        if (s != status::ok) return fail(fn, comm, s);
        rv.store();
        return MPI_SUCCESS;
    }
    auto s = new_sched(*c);
    if (s) {
        const std::byte* sd = inplace ? nullptr : s->user_stream(sendbuf, scount, *st, true);
        ch4lite::coll::block* b = nullptr;
        if (am_root) b = sched_blocks(*s, recvbuf, rcounts, displs, *rt, p, inplace ? root : -1);
        s->fence();
        if (!am_root || b) ch4lite::coll::add_gatherv(*s, sd, sbytes, b, root);
        if (am_root) sched_store_blocks(*s, b, recvbuf, rcounts, displs, *rt, p, inplace ? root : -1);
    }
    return issue(fn, comm, f, std::move(s), request);
}

}  // namespace

extern "C" {
CH4_PMPI(MPI_Gather)
int MPI_Gather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
               int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
    CH4_API_LOCK();
    return gather(__func__, form::blocking, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                  recvtype, root, comm, MPI_INFO_NULL, nullptr);
}
CH4_PMPI(MPI_Gather_c)
int MPI_Gather_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                 MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
    CH4_API_LOCK();
    return gather(__func__, form::blocking, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                  recvtype, root, comm, MPI_INFO_NULL, nullptr);
}
CH4_PMPI(MPI_Igather)
int MPI_Igather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request* request) {
    CH4_API_LOCK();
    return gather(__func__, form::nonblocking, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                  recvtype, root, comm, MPI_INFO_NULL, request);
}
CH4_PMPI(MPI_Igather_c)
int MPI_Igather_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                  MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                  MPI_Request* request) {
    CH4_API_LOCK();
    return gather(__func__, form::nonblocking, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                  recvtype, root, comm, MPI_INFO_NULL, request);
}
CH4_PMPI(MPI_Gather_init)
int MPI_Gather_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                    int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                    MPI_Request* request) {
    CH4_API_LOCK();
    return gather(__func__, form::persistent, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                  recvtype, root, comm, info, request);
}
CH4_PMPI(MPI_Gather_init_c)
int MPI_Gather_init_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                      void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                      MPI_Comm comm, MPI_Info info, MPI_Request* request) {
    CH4_API_LOCK();
    return gather(__func__, form::persistent, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                  recvtype, root, comm, info, request);
}
CH4_PMPI(MPI_Gatherv)
int MPI_Gatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                MPI_Comm comm) {
    CH4_API_LOCK();
    return gatherv(__func__, form::blocking, sendbuf, sendcount, sendtype, recvbuf, recvcounts,
                   displs, recvtype, root, comm, MPI_INFO_NULL, nullptr);
}
CH4_PMPI(MPI_Gatherv_c)
int MPI_Gatherv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                  const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
                  int root, MPI_Comm comm) {
    CH4_API_LOCK();
    return gatherv(__func__, form::blocking, sendbuf, sendcount, sendtype, recvbuf, recvcounts,
                   displs, recvtype, root, comm, MPI_INFO_NULL, nullptr);
}
CH4_PMPI(MPI_Igatherv)
int MPI_Igatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                 const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                 MPI_Comm comm, MPI_Request* request) {
    CH4_API_LOCK();
    return gatherv(__func__, form::nonblocking, sendbuf, sendcount, sendtype, recvbuf, recvcounts,
                   displs, recvtype, root, comm, MPI_INFO_NULL, request);
}
CH4_PMPI(MPI_Igatherv_c)
int MPI_Igatherv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                   const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
                   int root, MPI_Comm comm, MPI_Request* request) {
    CH4_API_LOCK();
    return gatherv(__func__, form::nonblocking, sendbuf, sendcount, sendtype, recvbuf, recvcounts,
                   displs, recvtype, root, comm, MPI_INFO_NULL, request);
}
CH4_PMPI(MPI_Gatherv_init)
int MPI_Gatherv_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                     const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                     MPI_Comm comm, MPI_Info info, MPI_Request* request) {
    CH4_API_LOCK();
    return gatherv(__func__, form::persistent, sendbuf, sendcount, sendtype, recvbuf, recvcounts,
                   displs, recvtype, root, comm, info, request);
}
CH4_PMPI(MPI_Gatherv_init_c)
int MPI_Gatherv_init_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                       void* recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                       MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                       MPI_Request* request) {
    CH4_API_LOCK();
    return gatherv(__func__, form::persistent, sendbuf, sendcount, sendtype, recvbuf, recvcounts,
                   displs, recvtype, root, comm, info, request);
}
}
