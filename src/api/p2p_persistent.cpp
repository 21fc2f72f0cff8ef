// SPDX-License-Identifier: MIT
// Persistent point-to-point requests: MPI_Send_init, MPI_Ssend_init,
// MPI_Rsend_init, MPI_Recv_init (int and _c counts). The arguments are
// checked once, at init; the recipe keeps the datatype (retained: the user
// may free the handle) and the communicator handle. Each MPI_Start is then
// the body of MPI_Isend / MPI_Irecv after their checks (api::send_checked,
// recv_checked): the same protocols, the same direct paths.
#include "api/p2p_common.hpp"
#include "api/persistent.hpp"

using namespace ch4lite;
using api::send_mode;

namespace {

struct p2p_recipe : api::persistent {
    p2p_recipe() noexcept : persistent(api::persist_kind::p2p) {}
    ~p2p_recipe() override {
        if (d.t) d.t->release();
    }
    bool send = true;
    send_mode mode = send_mode::standard;
    void* buf = nullptr;
    int64_t count = 0;
    api::dt_info d;
    std::size_t bytes = 0;
    const void* start = nullptr;
    int peer = 0;  // destination or source
    int tag = 0;
};

int init(const char* func, bool send, send_mode mode, const void* buf, int64_t count,
         MPI_Datatype dt, int peer, int tag, MPI_Comm comm, MPI_Request* request) {
    CH4_REQUIRE_INIT_IN(func);
    if (!request) CH4_FAIL_IN(func, comm, MPI_ERR_ARG, "request (output) is NULL");
    dev::comm* c = api::lookup_comm(comm);
    if (!c) CH4_FAIL_IN(func, comm, MPI_ERR_COMM, "invalid communicator");
    api::dt_info d;
    std::size_t bytes = 0;
    const void* start = nullptr;
    if (const int rc = api::check_message_buffer(func, comm, buf, count, dt, d, bytes, start)) return rc;
    if (send) {
        if (peer != MPI_PROC_NULL && (peer < 0 || peer >= c->size))
            CH4_FAIL_IN(func, comm, MPI_ERR_RANK,
                        "invalid destination rank %d: must be in [0, %d) or MPI_PROC_NULL", peer, c->size);
        if (tag < 0 || tag > dev::tag_ub)
            CH4_FAIL_IN(func, comm, MPI_ERR_TAG, "invalid tag %d: must be in [0, %d]", tag, dev::tag_ub);
    } else {
        if (peer != MPI_PROC_NULL && peer != MPI_ANY_SOURCE && (peer < 0 || peer >= c->size))
            CH4_FAIL_IN(func, comm, MPI_ERR_RANK,
                        "invalid source rank %d: must be in [0, %d), MPI_ANY_SOURCE or MPI_PROC_NULL",
                        peer, c->size);
        if (tag != MPI_ANY_TAG && (tag < 0 || tag > dev::tag_ub))
            CH4_FAIL_IN(func, comm, MPI_ERR_TAG, "invalid tag %d: must be in [0, %d] or MPI_ANY_TAG",
                        tag, dev::tag_ub);
    }
    auto* p = new (std::nothrow) p2p_recipe;
    if (!p) CH4_FAIL_IN(func, comm, MPI_ERR_NO_MEM, "cannot allocate the persistent request");
    p->comm = comm;
    p->send = send;
    p->mode = mode;
    p->buf = const_cast<void*>(buf);
    p->count = count;
    p->d = d;
    d.t->retain();
    p->bytes = bytes;
    p->start = start;
    p->peer = peer;
    p->tag = tag;
    dev::request* r = api::persistent_alloc(p);
    if (!r) CH4_FAIL_IN(func, comm, MPI_ERR_NO_MEM, "request pool exhausted");
    *request = reinterpret_cast<MPI_Request>(dev::request_handle(r));
    return MPI_SUCCESS;
}

}  // namespace

namespace ch4lite::api {

int start_p2p(const char* func, dev::request* r, persistent& base) noexcept {
    auto& p = static_cast<p2p_recipe&>(base);
    dev::comm* c = lookup_comm(p.comm);
    if (!c)
        CH4_FAIL_IN(func, p.comm, MPI_ERR_COMM,
                    "the persistent request's communicator was freed");
    MPI_Request inner = MPI_REQUEST_NULL;
    const int rc = p.send ? send_checked(func, *c, p.comm, p.buf, p.count, p.d, p.bytes, p.start,
                                         p.peer, p.tag, p.mode, &inner)
                          : recv_checked(func, *c, p.comm, p.buf, p.count, p.d, p.bytes, p.start,
                                         p.peer, p.tag, MPI_STATUS_IGNORE, &inner);
    if (rc != MPI_SUCCESS) return rc;
    p.inner = dev::request_from_handle(reinterpret_cast<uintptr_t>(inner));
    p.active = true;
    (void)r;
    return MPI_SUCCESS;
}

}  // namespace ch4lite::api

extern "C" {

CH4_PMPI(MPI_Send_init)
int MPI_Send_init(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                  MPI_Request* request) {
    return init(__func__, true, send_mode::standard, buf, count, datatype, dest, tag, comm, request);
}
CH4_PMPI(MPI_Send_init_c)
int MPI_Send_init_c(const void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                    MPI_Comm comm, MPI_Request* request) {
    return init(__func__, true, send_mode::standard, buf, count, datatype, dest, tag, comm, request);
}
CH4_PMPI(MPI_Ssend_init)
int MPI_Ssend_init(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                   MPI_Request* request) {
    return init(__func__, true, send_mode::sync, buf, count, datatype, dest, tag, comm, request);
}
CH4_PMPI(MPI_Ssend_init_c)
int MPI_Ssend_init_c(const void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                     MPI_Comm comm, MPI_Request* request) {
    return init(__func__, true, send_mode::sync, buf, count, datatype, dest, tag, comm, request);
}
CH4_PMPI(MPI_Rsend_init)
int MPI_Rsend_init(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                   MPI_Request* request) {
    return init(__func__, true, send_mode::ready, buf, count, datatype, dest, tag, comm, request);
}
CH4_PMPI(MPI_Rsend_init_c)
int MPI_Rsend_init_c(const void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                     MPI_Comm comm, MPI_Request* request) {
    return init(__func__, true, send_mode::ready, buf, count, datatype, dest, tag, comm, request);
}
CH4_PMPI(MPI_Recv_init)
int MPI_Recv_init(void* buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                  MPI_Request* request) {
    return init(__func__, false, send_mode::standard, buf, count, datatype, source, tag, comm, request);
}
CH4_PMPI(MPI_Recv_init_c)
int MPI_Recv_init_c(void* buf, MPI_Count count, MPI_Datatype datatype, int source, int tag,
                    MPI_Comm comm, MPI_Request* request) {
    return init(__func__, false, send_mode::standard, buf, count, datatype, source, tag, comm, request);
}

}  // extern "C"
