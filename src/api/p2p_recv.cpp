// SPDX-License-Identifier: MIT
// The receive family, combined send-receive, probes and MPI_Get_count.
#include <cstdlib>
#include <cstring>

#include "api/p2p_common.hpp"
#include "dame/dame.hpp"
#include "device/progress.hpp"

using namespace ch4lite;

namespace {

int irecv_checked(const char* func, void* buf, int64_t count, MPI_Datatype dt, int source, int tag,
                  MPI_Comm comm, MPI_Request* request) {
    if (!request) {
        CH4_REQUIRE_INIT_IN(func);
        CH4_FAIL_IN(func, comm, MPI_ERR_ARG, "request (output) is NULL");
    }
    return api::recv_impl(func, buf, count, dt, source, tag, comm, MPI_STATUS_IGNORE, request);
}

int sendrecv_impl(const char* func, const void* sbuf, int64_t scount, MPI_Datatype stype, int dest,
                  int stag, void* rbuf, int64_t rcount, MPI_Datatype rtype, int source, int rtag,
                  MPI_Comm comm, MPI_Status* status) {
    MPI_Request rreq = MPI_REQUEST_NULL;
    MPI_Request sreq = MPI_REQUEST_NULL;
    int rc = api::recv_impl(func, rbuf, rcount, rtype, source, rtag, comm, MPI_STATUS_IGNORE, &rreq);
    if (rc != MPI_SUCCESS) return rc;
    rc = api::send_impl(func, sbuf, scount, stype, dest, stag, comm, api::send_mode::standard, &sreq);
    if (rc != MPI_SUCCESS) {
        // Do not leave the receive behind: cancel it (or let it finish).
        dev::request* r = dev::request_from_handle(reinterpret_cast<uintptr_t>(rreq));
        if (r && !dev::cancel_recv(r)) dev::wait(r);
        if (r) dev::request_release(r);
        return rc;
    }
    dev::request* s = dev::request_from_handle(reinterpret_cast<uintptr_t>(sreq));
    dev::request* r = dev::request_from_handle(reinterpret_cast<uintptr_t>(rreq));
    dev::progress_until([&] { return (!s || s->cc == 0) && (!r || r->cc == 0); });
    const int src = s ? api::finish_request(func, s, MPI_STATUS_IGNORE) : MPI_SUCCESS;
    const int rrc = r ? api::finish_request(func, r, status) : MPI_SUCCESS;
    return src != MPI_SUCCESS ? src : rrc;
}

int sendrecv_replace_impl(const char* func, void* buf, int64_t count, MPI_Datatype dt, int dest,
                          int stag, int source, int rtag, MPI_Comm comm, MPI_Status* status) {
    CH4_REQUIRE_INIT_IN(func);
    if (!api::comm_is_valid(comm)) CH4_FAIL_IN(func, comm, MPI_ERR_COMM, "invalid communicator");
    api::dt_info d;
    std::size_t bytes = 0;
    const void* start = nullptr;
    if (const int rc = api::check_message_buffer(func, comm, buf, count, dt, d, bytes, start)) return rc;
    // The outgoing data is copied aside so the receive can land in place.
    void* tmp = bytes ? std::malloc(bytes) : nullptr;
    if (bytes && !tmp) CH4_FAIL_IN(func, comm, MPI_ERR_NO_MEM, "cannot allocate %zu bytes", bytes);
    if (!d.contig && bytes) {  // send the packed stream: same signature as (count, dt)
        dame::pack(*d.t, buf, count, tmp);
        const int rc = sendrecv_impl(func, tmp, static_cast<int64_t>(bytes), MPI_BYTE, dest, stag,
                                     buf, count, dt, source, rtag, comm, status);
        std::free(tmp);
        return rc;
    }
    if (bytes) std::memcpy(tmp, start, bytes);
    const int rc = sendrecv_impl(func, static_cast<std::byte*>(tmp) - d.true_lb, count, dt, dest,
                                 stag, buf, count, dt, source, rtag, comm, status);
    std::free(tmp);
    return rc;
}

int probe_impl(const char* func, int source, int tag, MPI_Comm comm, int* flag, MPI_Status* status,
               bool blocking) {
    CH4_REQUIRE_INIT_IN(func);
    dev::comm* c = api::lookup_comm(comm);
    if (!c) CH4_FAIL_IN(func, comm, MPI_ERR_COMM, "invalid communicator");
    if (source != MPI_PROC_NULL && source != MPI_ANY_SOURCE && (source < 0 || source >= c->size))
        CH4_FAIL_IN(func, comm, MPI_ERR_RANK,
                    "invalid source rank %d: must be in [0, %d), MPI_ANY_SOURCE or MPI_PROC_NULL",
                    source, c->size);
    if (tag != MPI_ANY_TAG && (tag < 0 || tag > dev::tag_ub))
        CH4_FAIL_IN(func, comm, MPI_ERR_TAG, "invalid tag %d: must be in [0, %d] or MPI_ANY_TAG", tag,
                    dev::tag_ub);
    if (!blocking && !flag) CH4_FAIL_IN(func, comm, MPI_ERR_ARG, "flag (output) is NULL");
    if (source == MPI_PROC_NULL) {
        if (flag) *flag = 1;
        if (status != MPI_STATUS_IGNORE) {
            api::set_status_empty(status);
            status->MPI_SOURCE = MPI_PROC_NULL;
        }
        return MPI_SUCCESS;
    }
    int src = 0, t = 0;
    std::size_t bytes = 0;
    bool found = dev::iprobe(*c, source, tag, src, t, bytes);
    if (blocking) {
        unsigned idle = 0;
        while (!found) {
            if (dev::progress() == 0) dev::idle_step(idle);
            found = dev::iprobe(*c, source, tag, src, t, bytes);
        }
    }
    if (flag) *flag = found ? 1 : 0;
    if (found && status != MPI_STATUS_IGNORE) {
        status->MPI_SOURCE = src;
        status->MPI_TAG = t;
        api::set_status_bytes(status, static_cast<int64_t>(bytes));
        api::set_status_cancelled(status, false);
    }
    return MPI_SUCCESS;
}

int get_count_impl(const char* func, const MPI_Status* status, MPI_Datatype dt, int64_t& out) {
    if (!status) CH4_FAIL_SELF_IN(func, MPI_ERR_ARG, "status is NULL");
    api::dt_info d;
    if (!api::resolve_dt(dt, d)) CH4_FAIL_SELF_IN(func, MPI_ERR_TYPE, "invalid datatype");
    const int64_t bytes = api::status_bytes(status);
    if (d.size == 0) {
        out = bytes == 0 ? 0 : int64_t{MPI_UNDEFINED};
    } else {
        out = bytes % d.size == 0 ? bytes / d.size : int64_t{MPI_UNDEFINED};
    }
    return MPI_SUCCESS;
}

}  // namespace

extern "C" {

CH4_PMPI(MPI_Recv)
int MPI_Recv(void* buf, int count, MPI_Datatype dt, int source, int tag, MPI_Comm comm,
             MPI_Status* status) {
    CH4_API_LOCK();
    return api::recv_impl(__func__, buf, count, dt, source, tag, comm, status, nullptr);
}
CH4_PMPI(MPI_Recv_c)
int MPI_Recv_c(void* buf, MPI_Count count, MPI_Datatype dt, int source, int tag, MPI_Comm comm,
               MPI_Status* status) {
    CH4_API_LOCK();
    return api::recv_impl(__func__, buf, count, dt, source, tag, comm, status, nullptr);
}
CH4_PMPI(MPI_Irecv)
int MPI_Irecv(void* buf, int count, MPI_Datatype dt, int source, int tag, MPI_Comm comm,
              MPI_Request* request) {
    CH4_API_LOCK();
    return irecv_checked(__func__, buf, count, dt, source, tag, comm, request);
}
CH4_PMPI(MPI_Irecv_c)
int MPI_Irecv_c(void* buf, MPI_Count count, MPI_Datatype dt, int source, int tag, MPI_Comm comm,
                MPI_Request* request) {
    CH4_API_LOCK();
    return irecv_checked(__func__, buf, count, dt, source, tag, comm, request);
}
CH4_PMPI(MPI_Sendrecv)
int MPI_Sendrecv(const void* sbuf, int scount, MPI_Datatype stype, int dest, int stag, void* rbuf,
                 int rcount, MPI_Datatype rtype, int source, int rtag, MPI_Comm comm,
                 MPI_Status* status) {
    CH4_API_LOCK();
    return sendrecv_impl(__func__, sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, source,
                         rtag, comm, status);
}
CH4_PMPI(MPI_Sendrecv_c)
int MPI_Sendrecv_c(const void* sbuf, MPI_Count scount, MPI_Datatype stype, int dest, int stag,
                   void* rbuf, MPI_Count rcount, MPI_Datatype rtype, int source, int rtag,
                   MPI_Comm comm, MPI_Status* status) {
    CH4_API_LOCK();
    return sendrecv_impl(__func__, sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, source,
                         rtag, comm, status);
}
CH4_PMPI(MPI_Sendrecv_replace)
int MPI_Sendrecv_replace(void* buf, int count, MPI_Datatype dt, int dest, int stag, int source,
                         int rtag, MPI_Comm comm, MPI_Status* status) {
    CH4_API_LOCK();
    return sendrecv_replace_impl(__func__, buf, count, dt, dest, stag, source, rtag, comm, status);
}
CH4_PMPI(MPI_Sendrecv_replace_c)
int MPI_Sendrecv_replace_c(void* buf, MPI_Count count, MPI_Datatype dt, int dest, int stag,
                           int source, int rtag, MPI_Comm comm, MPI_Status* status) {
    CH4_API_LOCK();
    return sendrecv_replace_impl(__func__, buf, count, dt, dest, stag, source, rtag, comm, status);
}
CH4_PMPI(MPI_Probe)
int MPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status* status) {
    CH4_API_LOCK();
    return probe_impl(__func__, source, tag, comm, nullptr, status, true);
}
CH4_PMPI(MPI_Iprobe)
int MPI_Iprobe(int source, int tag, MPI_Comm comm, int* flag, MPI_Status* status) {
    CH4_API_LOCK();
    return probe_impl(__func__, source, tag, comm, flag, status, false);
}
CH4_PMPI(MPI_Get_count)
int MPI_Get_count(const MPI_Status* status, MPI_Datatype dt, int* count) {
    CH4_API_LOCK();
    CH4_REQUIRE_INIT();
    if (!count) CH4_FAIL_SELF(MPI_ERR_ARG, "count (output) is NULL");
    int64_t n = 0;
    if (const int rc = get_count_impl(__func__, status, dt, n)) return rc;
    *count = n > INT32_MAX ? MPI_UNDEFINED : static_cast<int>(n);
    return MPI_SUCCESS;
}
CH4_PMPI(MPI_Get_count_c)
int MPI_Get_count_c(const MPI_Status* status, MPI_Datatype dt, MPI_Count* count) {
    CH4_API_LOCK();
    CH4_REQUIRE_INIT();
    if (!count) CH4_FAIL_SELF(MPI_ERR_ARG, "count (output) is NULL");
    int64_t n = 0;
    if (const int rc = get_count_impl(__func__, status, dt, n)) return rc;
    *count = n;
    return MPI_SUCCESS;
}

}  // extern "C"
