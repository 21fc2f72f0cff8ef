// SPDX-License-Identifier: MIT
// MPI_Isendrecv and MPI_Isendrecv_replace (MPI-4.1 §3.10), int and _c
// counts. The user's request is the receive's; the send is its child
// (request::parent), so the receive completes only after the send did, and
// reports the status (source, tag, count) a receive reports. The replace
// form sends a packed copy of the buffer, owned by the send request and
// freed with it.
#include <cstdlib>
#include <cstring>
#include <new>

#include "api/p2p_common.hpp"
#include "dame/dame.hpp"
#include "device/progress.hpp"

using namespace ch4lite;

namespace {

// The packed copy an MPI_Isendrecv_replace sends (freed with its request).
struct heap_copy final : dev::request_ext {
    explicit heap_copy(void* p) noexcept : mem(p) {}
    ~heap_copy() override { std::free(mem); }
    void* mem;
};

dev::request* from(MPI_Request h) noexcept {
    return dev::request_from_handle(reinterpret_cast<uintptr_t>(h));
}

// Makes receive r wait for send s too (r->cc was raised by one for it).
void link(dev::request* r, dev::request* s) noexcept {
    if (s->cc == 0) {  // done already (shm cell, inject, MPI_PROC_NULL)
        if (s->result != status::ok) dev::request_fail(r, s->result);
        dev::request_release(s);
        dev::request_complete(r);
    } else {
        s->parent = r;  // its completion completes r, and frees it
    }
}

// Undoes a posted receive after its send could not start.
void drop_recv(dev::request* r) noexcept {
    --r->cc;
    if (r->cc != 0 && !dev::cancel_recv(r)) dev::wait(r);
    dev::request_release(r);
}

int isendrecv_impl(const char* func, const void* sbuf, int64_t scount, MPI_Datatype stype, int dest,
                   int stag, void* rbuf, int64_t rcount, MPI_Datatype rtype, int source, int rtag,
                   MPI_Comm comm, MPI_Request* request, void* owned_copy) {
    MPI_Request rreq = MPI_REQUEST_NULL, sreq = MPI_REQUEST_NULL;
    int rc = api::recv_impl(func, rbuf, rcount, rtype, source, rtag, comm, MPI_STATUS_IGNORE, &rreq);
    if (rc != MPI_SUCCESS) {
        std::free(owned_copy);
        return rc;
    }
    dev::request* r = from(rreq);
    ++r->cc;  // the send's completion
    rc = api::send_impl(func, sbuf, scount, stype, dest, stag, comm, api::send_mode::standard, &sreq);
    if (rc != MPI_SUCCESS) {
        std::free(owned_copy);
        drop_recv(r);
        return rc;
    }
    dev::request* s = from(sreq);
    if (owned_copy) {
        if (s->cc == 0) {
            std::free(owned_copy);
        } else if (auto* h = new (std::nothrow) heap_copy(owned_copy)) {
            s->ext = h;
        } else {  // cannot hand the copy over: let the send finish first
            dev::wait(s);
            std::free(owned_copy);
        }
    }
    link(r, s);
    *request = rreq;
    return MPI_SUCCESS;
}

int isendrecv(const char* func, const void* sbuf, int64_t scount, MPI_Datatype stype, int dest,
              int stag, void* rbuf, int64_t rcount, MPI_Datatype rtype, int source, int rtag,
              MPI_Comm comm, MPI_Request* request) {
    if (!request) {
        CH4_REQUIRE_INIT_IN(func);
        CH4_FAIL_IN(func, comm, MPI_ERR_ARG, "request (output) is NULL");
    }
    return isendrecv_impl(func, sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, source, rtag,
                          comm, request, nullptr);
}

int isendrecv_replace(const char* func, void* buf, int64_t count, MPI_Datatype dt, int dest, int stag,
                      int source, int rtag, MPI_Comm comm, MPI_Request* request) {
    CH4_REQUIRE_INIT_IN(func);
    if (!request) CH4_FAIL_IN(func, comm, MPI_ERR_ARG, "request (output) is NULL");
    if (!api::comm_is_valid(comm)) CH4_FAIL_IN(func, comm, MPI_ERR_COMM, "invalid communicator");
    api::dt_info d;
    std::size_t bytes = 0;
    const void* start = nullptr;
    if (const int rc = api::check_message_buffer(func, comm, buf, count, dt, d, bytes, start)) return rc;
    // The outgoing data is packed aside so the receive can land in place;
    // it goes out as bytes (the same signature as count x dt).
    void* tmp = bytes ? std::malloc(bytes) : nullptr;
    if (bytes && !tmp) CH4_FAIL_IN(func, comm, MPI_ERR_NO_MEM, "cannot allocate %zu bytes", bytes);
    if (bytes) {
        if (d.contig)
            std::memcpy(tmp, start, bytes);
        else
            dame::pack(*d.t, buf, count, tmp);
    }
    return isendrecv_impl(func, tmp, static_cast<int64_t>(bytes), MPI_BYTE, dest, stag, buf, count, dt,
                          source, rtag, comm, request, tmp);
}

}  // namespace

extern "C" {

CH4_PMPI(MPI_Isendrecv)
int MPI_Isendrecv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                  void* recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
                  MPI_Comm comm, MPI_Request* request) {
    CH4_API_LOCK();
    return isendrecv(__func__, sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount,
                     recvtype, source, recvtag, comm, request);
}
CH4_PMPI(MPI_Isendrecv_c)
int MPI_Isendrecv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest,
                    int sendtag, void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int source,
                    int recvtag, MPI_Comm comm, MPI_Request* request) {
    CH4_API_LOCK();
    return isendrecv(__func__, sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount,
                     recvtype, source, recvtag, comm, request);
}
CH4_PMPI(MPI_Isendrecv_replace)
int MPI_Isendrecv_replace(void* buf, int count, MPI_Datatype datatype, int dest, int sendtag,
                          int source, int recvtag, MPI_Comm comm, MPI_Request* request) {
    CH4_API_LOCK();
    return isendrecv_replace(__func__, buf, count, datatype, dest, sendtag, source, recvtag, comm,
                             request);
}
CH4_PMPI(MPI_Isendrecv_replace_c)
int MPI_Isendrecv_replace_c(void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int sendtag,
                            int source, int recvtag, MPI_Comm comm, MPI_Request* request) {
    CH4_API_LOCK();
    return isendrecv_replace(__func__, buf, count, datatype, dest, sendtag, source, recvtag, comm,
                             request);
}

}  // extern "C"
