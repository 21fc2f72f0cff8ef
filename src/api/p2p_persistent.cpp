// SPDX-License-Identifier: MIT
// Persistent point-to-point requests: MPI_Send_init, MPI_Bsend_init,
// MPI_Ssend_init, MPI_Rsend_init, MPI_Recv_init (int and _c counts). The
// arguments are checked once, at init; the recipe keeps the datatype
// (retained: the user may free the handle) and the communicator handle.
// Each MPI_Start is then the body of MPI_Isend / MPI_Irecv after their
// checks: the same protocols. For a contiguous message on a node, a start
// takes the request-free direct paths of MPI_Send / MPI_Recv (device/p2p.hpp,
// docs/shm.md "Direct paths") when they apply:
//   send  one shm ring cell written at MPI_Start: done, no request;
//   recv  a matching eager message already queued is copied out at
//         MPI_Start; else the receive is armed, not posted
//         (device/lazy_recv.hpp: any receive or probe of its context posts
//         it first, so matching order is kept), and MPI_Wait, when it is
//         the only receive of its context, waits on the rings themselves
//         (recv_direct), as MPI_Recv does; when the first matching message
//         needs the request path, the receive is posted then and matches
//         that message from the unexpected queue. Any other completion
//         function (MPI_Test, MPI_Waitall, ...) posts it (wait_target).
// Such an activation is the recipe's own `done` request (inner_local), which
// the completion functions settle without releasing.
#include "api/bsend.hpp"
#include "api/p2p_common.hpp"
#include "api/persistent.hpp"
#include "device/lazy_recv.hpp"

using namespace ch4lite;
using api::send_mode;

namespace {

struct p2p_recipe : api::persistent {
    p2p_recipe() noexcept : persistent(api::persist_kind::p2p) {}
    ~p2p_recipe() override {
        if (d.t) d.t->release();
    }
    bool send = true;
    bool buffered = false;  // MPI_Bsend_init
    send_mode mode = send_mode::standard;
    void* buf = nullptr;
    int64_t count = 0;
    api::dt_info d;
    std::size_t bytes = 0;
    const void* start = nullptr;
    int peer = 0;  // destination or source
    int tag = 0;
    // Set at init: a contiguous message to or from a real peer (the direct
    // paths may apply), and the part of it a send's start needs.
    bool direct_send = false;  // and standard or ready mode, not buffered
    bool direct_recv = false;
    dev::request done;  // the activation of a start that needed no request
    dev::lazy_recv lz;  // the receive while armed
};

int init(const char* func, bool send, send_mode mode, const void* buf, int64_t count,
         MPI_Datatype dt, int peer, int tag, MPI_Comm comm, MPI_Request* request,
         bool buffered = false) {
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
    p->buffered = buffered;
    p->mode = mode;
    p->buf = const_cast<void*>(buf);
    p->count = count;
    p->d = d;
    d.t->retain();
    p->bytes = bytes;
    p->start = start;
    p->peer = peer;
    p->tag = tag;
    const bool contig = d.contig || bytes == 0;
    p->direct_send = send && !buffered && mode != send_mode::sync && peer != MPI_PROC_NULL && contig;
    p->direct_recv = !send && peer != MPI_PROC_NULL && contig;
    if (send) {  // what a send that needed no request reports (nothing a user reads)
        p->done.kind = dev::req_kind::send;
        p->done.tag = tag;
        p->done.bytes = bytes;
    }
    dev::request* r = api::persistent_alloc(p);
    if (!r) CH4_FAIL_IN(func, comm, MPI_ERR_NO_MEM, "request pool exhausted");
    *request = reinterpret_cast<MPI_Request>(dev::request_handle(r));
    return MPI_SUCCESS;
}

}  // namespace

namespace ch4lite::api {

namespace {

// The start finished without a request: `done` is the activation.
int finish_local(p2p_recipe& p, dev::req_kind kind, int src, int tag, std::size_t bytes,
                 status result = status::ok) noexcept {
    dev::request& d = p.done;
    d.kind = kind;
    d.cc = 0;
    d.result = result;
    d.cancelled = false;
    d.src_rank = src;
    d.tag = tag;
    d.bytes = bytes;
    p.inner = &d;
    p.inner_local = true;
    p.active = true;
    return MPI_SUCCESS;
}

int started(const char* func, p2p_recipe& p, status s, dev::request* a) noexcept {
    if (s != status::ok)
        CH4_FAIL_IN(func, p.comm, class_of(s), "cannot start the %s: %s", p.send ? "send" : "receive",
                    to_string(s));
    p.inner = a;
    p.active = true;
    return MPI_SUCCESS;
}

// Whether the device matches point-to-point itself (the direct paths' domain).
inline bool device_matching() noexcept {
    if constexpr (dev::native_tagged) return dev::g_dev.device_matching;
    return true;
}

}  // namespace

namespace {

// Every start the direct paths do not take (cold).
[[gnu::noinline]] int start_general(const char* func, p2p_recipe& p, dev::comm* c) noexcept {
    if (!c)
        CH4_FAIL_IN(func, p.comm, MPI_ERR_COMM, "the persistent request's communicator was freed");
    void* buf = const_cast<void*>(p.start);
    dev::request* a = nullptr;
    if (p.direct_send) {
        const status s = dev::isend(buf, p.bytes, *c, p.peer, p.tag, false, a);
        return started(func, p, s, a);
    }
    if (p.direct_recv) {
        if (device_matching() && !dev::queues().unexpected_empty(c->ctx_p2p())) {
            // Unexpected messages never match a posted receive (a receive
            // takes from them when posted, an arrival matches the posted
            // ones first): the first match here is this receive's.
            dev::direct_recv got;
            if (dev::am_take_unexpected_eager(c->ctx_p2p(), p.peer, p.tag, buf, p.bytes, got) ==
                dev::direct_take::taken)
                return finish_local(p, dev::req_kind::recv, got.src_rank, got.tag, got.bytes);
        }
        const status s = dev::irecv(buf, p.bytes, *c, p.peer, p.tag, a);
        return started(func, p, s, a);
    }
    MPI_Request inner = MPI_REQUEST_NULL;
    const int rc = p.buffered ? bsend_checked(func, *c, p.comm, p.buf, p.count, p.d, p.bytes, p.start,
                                              p.peer, p.tag, &inner)
                 : p.send ? send_checked(func, *c, p.comm, p.buf, p.count, p.d, p.bytes, p.start,
                                         p.peer, p.tag, p.mode, &inner)
                          : recv_checked(func, *c, p.comm, p.buf, p.count, p.d, p.bytes, p.start,
                                         p.peer, p.tag, MPI_STATUS_IGNORE, &inner);
    if (rc != MPI_SUCCESS) return rc;
    p.inner = dev::request_from_handle(reinterpret_cast<uintptr_t>(inner));
    p.active = true;
    return MPI_SUCCESS;
}

}  // namespace

int start_p2p(const char* func, dev::request* r, persistent& base) noexcept {
    auto& p = static_cast<p2p_recipe&>(base);
    (void)r;
    dev::comm* c = lookup_comm(p.comm);
    if (__builtin_expect(c != nullptr, 1)) {
        if (p.direct_send && dev::send_direct(c->ctx_p2p(), p.start, p.bytes, *c, p.peer, p.tag)) {
            p.inner = &p.done;  // its fields were set at init
            p.inner_local = true;
            p.active = true;
            return MPI_SUCCESS;
        }
        // A receive is armed, posted when anything could tell (lazy_recv.hpp),
        // unless its message is already queued (start_general takes it).
        if (p.direct_recv && device_matching() && dev::queues().unexpected_empty(c->ctx_p2p())) {
            dev::lazy_recv& l = p.lz;
            l.buf = const_cast<void*>(p.start);
            l.bytes = p.bytes;
            l.c = c;
            l.rank = p.peer;
            l.tag = p.tag;
            l.ctx = c->ctx_p2p();
            dev::lazy_arm(l);
            p.armed = true;
            p.inner = nullptr;
            p.active = true;
            return MPI_SUCCESS;
        }
    }
    return start_general(func, p, c);
}

void persistent_post(persistent& base) noexcept {
    auto& p = static_cast<p2p_recipe&>(base);
    dev::lazy_recv& l = p.lz;
    if (l.armed) dev::lazy_post_ctx(l.ctx);  // with the earlier ones of its context
    p.armed = false;
    if (l.posted)
        p.inner = l.posted;
    else
        (void)finish_local(p, dev::req_kind::recv, MPI_PROC_NULL, MPI_ANY_TAG, 0, l.error);
}

namespace {

// MPI_Wait of an armed receive or of a request (wait_p2p's other cases).
[[gnu::noinline]] int wait_general(const char* func, p2p_recipe& p, MPI_Status* st) noexcept {
    if (p.armed) {
        dev::lazy_recv& l = p.lz;
        if (l.armed && dev::lazy_only(l) && dev::queues().posted_empty(l.ctx)) {
            // Nothing else on the context to keep order with: as MPI_Recv.
            dev::lazy_disarm(l);
            p.armed = false;
            dev::direct_recv got;
            if (dev::recv_direct(l.ctx, l.buf, l.bytes, *l.c, l.rank, l.tag, got)) {
                p.active = false;
                if (st != MPI_STATUS_IGNORE) {
                    st->MPI_SOURCE = got.src_rank;
                    st->MPI_TAG = got.tag;
                    set_status_bytes(st, static_cast<int64_t>(got.bytes));
                    set_status_cancelled(st, false);
                }
                return MPI_SUCCESS;
            }
            // The first match needs the request path (rendezvous, Ssend,
            // too long, a remote source): it waits in the unexpected queue.
            dev::lazy_post_now(l);
            if (l.posted)
                p.inner = l.posted;
            else
                (void)finish_local(p, dev::req_kind::recv, MPI_PROC_NULL, MPI_ANY_TAG, 0, l.error);
        } else {
            persistent_post(p);
        }
    }
    dev::request* w = p.inner;
    p.inner = nullptr;
    p.active = false;
    if (p.inner_local) {  // done at MPI_Start (or failed to post)
        p.inner_local = false;
        fill_status(st, w);
        if (w->result == status::ok) return MPI_SUCCESS;
        CH4_FAIL_IN(func, p.comm, class_of(w->result), "the receive could not be posted: %s",
                    to_string(w->result));
    }
    dev::wait(w);
    MPI_Comm c = p.comm;
    const int code = settle_request(func, w, st, c);
    return code == MPI_SUCCESS ? code : raise(c, code);
}

}  // namespace

int wait_p2p(const char* func, persistent& base, MPI_Status* st) noexcept {
    auto& p = static_cast<p2p_recipe&>(base);
    if (p.inner_local && p.inner->result == status::ok) {  // a send done at MPI_Start
        if (st != MPI_STATUS_IGNORE) fill_status(st, p.inner);
        p.inner = nullptr;
        p.inner_local = false;
        p.active = false;
        return MPI_SUCCESS;
    }
    return wait_general(func, p, st);
}

}  // namespace ch4lite::api

extern "C" {

CH4_PMPI(MPI_Send_init)
int MPI_Send_init(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                  MPI_Request* request) {
    CH4_API_LOCK();
    return init(__func__, true, send_mode::standard, buf, count, datatype, dest, tag, comm, request);
}
CH4_PMPI(MPI_Send_init_c)
int MPI_Send_init_c(const void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                    MPI_Comm comm, MPI_Request* request) {
    CH4_API_LOCK();
    return init(__func__, true, send_mode::standard, buf, count, datatype, dest, tag, comm, request);
}
CH4_PMPI(MPI_Bsend_init)
int MPI_Bsend_init(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                   MPI_Request* request) {
    CH4_API_LOCK();
    return init(__func__, true, send_mode::standard, buf, count, datatype, dest, tag, comm, request,
                true);
}
CH4_PMPI(MPI_Bsend_init_c)
int MPI_Bsend_init_c(const void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                     MPI_Comm comm, MPI_Request* request) {
    CH4_API_LOCK();
    return init(__func__, true, send_mode::standard, buf, count, datatype, dest, tag, comm, request,
                true);
}
CH4_PMPI(MPI_Ssend_init)
int MPI_Ssend_init(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                   MPI_Request* request) {
    CH4_API_LOCK();
    return init(__func__, true, send_mode::sync, buf, count, datatype, dest, tag, comm, request);
}
CH4_PMPI(MPI_Ssend_init_c)
int MPI_Ssend_init_c(const void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                     MPI_Comm comm, MPI_Request* request) {
    CH4_API_LOCK();
    return init(__func__, true, send_mode::sync, buf, count, datatype, dest, tag, comm, request);
}
CH4_PMPI(MPI_Rsend_init)
int MPI_Rsend_init(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                   MPI_Request* request) {
    CH4_API_LOCK();
    return init(__func__, true, send_mode::ready, buf, count, datatype, dest, tag, comm, request);
}
CH4_PMPI(MPI_Rsend_init_c)
int MPI_Rsend_init_c(const void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                     MPI_Comm comm, MPI_Request* request) {
    CH4_API_LOCK();
    return init(__func__, true, send_mode::ready, buf, count, datatype, dest, tag, comm, request);
}
CH4_PMPI(MPI_Recv_init)
int MPI_Recv_init(void* buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                  MPI_Request* request) {
    CH4_API_LOCK();
    return init(__func__, false, send_mode::standard, buf, count, datatype, source, tag, comm, request);
}
CH4_PMPI(MPI_Recv_init_c)
int MPI_Recv_init_c(void* buf, MPI_Count count, MPI_Datatype datatype, int source, int tag,
                    MPI_Comm comm, MPI_Request* request) {
    CH4_API_LOCK();
    return init(__func__, false, send_mode::standard, buf, count, datatype, source, tag, comm, request);
}

}  // extern "C"
