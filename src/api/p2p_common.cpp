// SPDX-License-Identifier: MIT
#include "api/p2p_common.hpp"

#include "device/device.hpp"
#include "device/progress.hpp"

namespace ch4lite::api {

// The bodies after the argument checks, shared by the MPI calls (inlined
// there: no extra call on the MPI_Send path) and by persistent requests.
inline int send_go(const char* func, dev::comm& c, MPI_Comm comm, const void* buf, int64_t count,
                   const dt_info& d, std::size_t bytes, const void* start, int dest, int tag,
                   send_mode mode, MPI_Request* request) noexcept;
inline int recv_go(const char* func, dev::comm& c, MPI_Comm comm, void* buf, int64_t count,
                   const dt_info& d, std::size_t bytes, const void* start, int source, int tag,
                   MPI_Status* status, MPI_Request* request) noexcept;

int check_message_buffer_raise(const char* func, MPI_Comm comm, const void* buf, int64_t count,
                               MPI_Datatype dt, dt_info& d, std::size_t& bytes,
                               const void*& start) noexcept {
    if (count < 0) CH4_FAIL_IN(func, comm, MPI_ERR_COUNT, "invalid count %lld: must be >= 0",
                               static_cast<long long>(count));
    // No data, no datatype: count 0 with MPI_DATATYPE_NULL is an empty
    // message, as MPICH accepts since 4.0.1 (pmodels/mpich#4659; its test
    // part/nonblocking_pready, and PIO / ESMF, send such). It travels as
    // zero MPI_BYTEs; any other count with MPI_DATATYPE_NULL stays an error.
    if (count == 0 && dt == MPI_DATATYPE_NULL && resolve_dt(MPI_BYTE, d)) {
        bytes = 0;
        start = buf;
        return MPI_SUCCESS;
    }
    if (!resolve_dt(dt, d)) CH4_FAIL_IN(func, comm, MPI_ERR_TYPE, "invalid datatype");
    if (!d.t->committed())
        CH4_FAIL_IN(func, comm, MPI_ERR_TYPE, "datatype is not committed (call MPI_Type_commit)");
    uint64_t total = 0;
    if (__builtin_mul_overflow(static_cast<uint64_t>(count), static_cast<uint64_t>(d.size), &total) ||
        total > static_cast<uint64_t>(INT64_MAX))
        CH4_FAIL_IN(func, comm, MPI_ERR_COUNT, "count %lld of a %lld-byte datatype overflows",
                    static_cast<long long>(count), static_cast<long long>(d.size));
    if (buf == nullptr && total > 0 && d.true_lb == 0)
        CH4_FAIL_IN(func, comm, MPI_ERR_BUFFER, "buffer is NULL but count is %lld",
                    static_cast<long long>(count));
    bytes = static_cast<std::size_t>(total);
    start = static_cast<const std::byte*>(buf) + d.true_lb;
    return MPI_SUCCESS;
}

dev::request* null_request(dev::req_kind kind) noexcept {
    dev::request* r = dev::request_alloc(kind, 0);
    if (!r) return nullptr;
    r->src_rank = MPI_PROC_NULL;
    r->tag = MPI_ANY_TAG;
    r->bytes = 0;
    return r;
}

int send_impl(const char* func, const void* buf, int64_t count, MPI_Datatype dt, int dest, int tag,
              MPI_Comm comm, send_mode mode, MPI_Request* request) noexcept {
    CH4_REQUIRE_INIT_IN(func);
    dev::comm* c = lookup_comm(comm);
    if (!c) CH4_FAIL_IN(func, comm, MPI_ERR_COMM, "invalid communicator");
    dt_info d;
    std::size_t bytes = 0;
    const void* start = nullptr;
    if (const int rc = check_message_buffer(func, comm, buf, count, dt, d, bytes, start)) return rc;
    if (dest != MPI_PROC_NULL && (dest < 0 || dest >= c->size))
        CH4_FAIL_IN(func, comm, MPI_ERR_RANK, "invalid destination rank %d: must be in [0, %d) or MPI_PROC_NULL",
                    dest, c->size);
    if (tag < 0 || tag > dev::tag_ub)
        CH4_FAIL_IN(func, comm, MPI_ERR_TAG, "invalid tag %d: must be in [0, %d]", tag, dev::tag_ub);
    return send_go(func, *c, comm, buf, count, d, bytes, start, dest, tag, mode, request);
}

int send_checked(const char* func, dev::comm& c, MPI_Comm comm, const void* buf, int64_t count,
                 const dt_info& d, std::size_t bytes, const void* start, int dest, int tag,
                 send_mode mode, MPI_Request* request) noexcept {
    return send_go(func, c, comm, buf, count, d, bytes, start, dest, tag, mode, request);
}

[[gnu::always_inline]] inline int send_go(const char* func, dev::comm& cm, MPI_Comm comm, const void* buf,
                                          int64_t count, const dt_info& d, std::size_t bytes,
                                          const void* start, int dest, int tag, send_mode mode,
                                          MPI_Request* request) noexcept {
    dev::comm* c = &cm;
    // MPI_Send of a few bytes to a rank on this node: one ring cell, no
    // request (device/p2p.hpp).
    if (!request && mode != send_mode::sync && dest != MPI_PROC_NULL &&
        (d.contig ? dev::send_direct(c->ctx_p2p(), start, bytes, *c, dest, tag)
                  : bytes > 0 && dev::send_direct_typed(c->ctx_p2p(), buf, *d.t, count, bytes, *c, dest, tag)))
        return MPI_SUCCESS;
    dev::request* r = nullptr;
    if (dest == MPI_PROC_NULL) {
        if (!request) return MPI_SUCCESS;
        r = null_request(dev::req_kind::send);
        if (!r) CH4_FAIL_IN(func, comm, MPI_ERR_NO_MEM, "request pool exhausted");
        *request = reinterpret_cast<MPI_Request>(dev::request_handle(r));
        return MPI_SUCCESS;
    }
    // Noncontiguous buffers take the typed path (device/typed.hpp) with the
    // user's buffer as passed; contiguous ones stay plain byte ranges.
    const status s =
        (d.contig || bytes == 0)
            ? dev::isend(start, bytes, *c, dest, tag, mode == send_mode::sync, r)
            : dev::isend_typed(c->ctx_p2p(), buf, *d.t, count, bytes, *c, dest, tag,
                               mode == send_mode::sync, r);
    if (s != status::ok)
        CH4_FAIL_IN(func, comm, class_of(s), "cannot start the send to rank %d: %s", dest, to_string(s));
    if (request) {
        *request = reinterpret_cast<MPI_Request>(dev::request_handle(r));
        return MPI_SUCCESS;
    }
    dev::wait(r);
    return finish_request(func, r, MPI_STATUS_IGNORE);
}

int recv_impl(const char* func, void* buf, int64_t count, MPI_Datatype dt, int source, int tag,
              MPI_Comm comm, MPI_Status* status, MPI_Request* request) noexcept {
    CH4_REQUIRE_INIT_IN(func);
    dev::comm* c = lookup_comm(comm);
    if (!c) CH4_FAIL_IN(func, comm, MPI_ERR_COMM, "invalid communicator");
    dt_info d;
    std::size_t bytes = 0;
    const void* start = nullptr;
    if (const int rc = check_message_buffer(func, comm, buf, count, dt, d, bytes, start)) return rc;
    if (source != MPI_PROC_NULL && source != MPI_ANY_SOURCE && (source < 0 || source >= c->size))
        CH4_FAIL_IN(func, comm, MPI_ERR_RANK,
                    "invalid source rank %d: must be in [0, %d), MPI_ANY_SOURCE or MPI_PROC_NULL",
                    source, c->size);
    if (tag != MPI_ANY_TAG && (tag < 0 || tag > dev::tag_ub))
        CH4_FAIL_IN(func, comm, MPI_ERR_TAG, "invalid tag %d: must be in [0, %d] or MPI_ANY_TAG", tag,
                    dev::tag_ub);
    return recv_go(func, *c, comm, buf, count, d, bytes, start, source, tag, status, request);
}

int recv_checked(const char* func, dev::comm& c, MPI_Comm comm, void* buf, int64_t count,
                 const dt_info& d, std::size_t bytes, const void* start, int source, int tag,
                 MPI_Status* status, MPI_Request* request) noexcept {
    return recv_go(func, c, comm, buf, count, d, bytes, start, source, tag, status, request);
}

[[gnu::always_inline]] inline int recv_go(const char* func, dev::comm& cm, MPI_Comm comm, void* buf,
                                          int64_t count, const dt_info& d, std::size_t bytes,
                                          const void* start, int source, int tag, MPI_Status* status,
                                          MPI_Request* request) noexcept {
    dev::comm* c = &cm;
    if (source == MPI_PROC_NULL) {
        if (!request) {
            if (status != MPI_STATUS_IGNORE) {
                set_status_empty(status);
                status->MPI_SOURCE = MPI_PROC_NULL;
            }
            return MPI_SUCCESS;
        }
        dev::request* r = null_request(dev::req_kind::recv);
        if (!r) CH4_FAIL_IN(func, comm, MPI_ERR_NO_MEM, "request pool exhausted");
        *request = reinterpret_cast<MPI_Request>(dev::request_handle(r));
        return MPI_SUCCESS;
    }
    if (!request) {
        // MPI_Recv that shared memory can serve without a request.
        dev::direct_recv got;
        const bool contig = d.contig || bytes == 0;
        if (contig ? dev::recv_direct(c->ctx_p2p(), const_cast<void*>(start), bytes, *c, source, tag, got)
                   : dev::recv_direct(c->ctx_p2p(), buf, bytes, *c, source, tag, got, d.t, count)) {
            if (status != MPI_STATUS_IGNORE) {
                status->MPI_SOURCE = got.src_rank;
                status->MPI_TAG = got.tag;
                set_status_bytes(status, static_cast<int64_t>(got.bytes));
                set_status_cancelled(status, false);
            }
            return MPI_SUCCESS;
        }
    }
    dev::request* r = nullptr;
    const ch4lite::status s =
        (d.contig || bytes == 0)
            ? dev::irecv(const_cast<void*>(start), bytes, *c, source, tag, r)
            : dev::irecv_typed(c->ctx_p2p(), buf, *d.t, count, bytes, *c, source, tag, r);
    if (s != status::ok)
        CH4_FAIL_IN(func, comm, class_of(s), "cannot post the receive: %s", to_string(s));
    if (request) {
        *request = reinterpret_cast<MPI_Request>(dev::request_handle(r));
        return MPI_SUCCESS;
    }
    dev::wait(r);
    return finish_request(func, r, status);
}

int settle_request(const char* func, dev::request* r, MPI_Status* st, MPI_Comm& comm) noexcept {
    return settle_request(func, r, st, comm, true);
}

int settle_request(const char* func, dev::request* r, MPI_Status* st, MPI_Comm& comm,
                   bool release) noexcept {
    fill_status(st, r);
    const status result = r->result;
    comm = r->c ? reinterpret_cast<MPI_Comm>(r->c->handle) : MPI_COMM_SELF;
    const int src = r->src_rank;
    const std::size_t bytes = r->bytes;
    const std::size_t cap = r->capacity;
    const bool coll = r->kind == dev::req_kind::coll;
    if (release) dev::request_release(r);
    if (result == status::ok) return MPI_SUCCESS;
    if (coll) {  // a collective's schedule (coll/sched.hpp)
        if (result == status::truncated)
            return error_code(MPI_ERR_TRUNCATE, func,
                              "message sizes differ between processes: a count or datatype does "
                              "not match the other processes' arguments");
        if (result == status::no_mem)
            return error_code(MPI_ERR_NO_MEM, func, "out of memory (request pool or temporary buffers)");
        return error_code(class_of(result), func, "collective communication failed: %s", to_string(result));
    }
    if (result == status::truncated)
        return error_code(MPI_ERR_TRUNCATE, func,
                          "message from rank %d truncated: the receive buffer holds %zu bytes "
                          "(%zu received)", src, cap, bytes);
    return error_code(class_of(result), func, "communication failed: %s", to_string(result));
}

int finish_request(const char* func, dev::request* r, MPI_Status* st) noexcept {
    MPI_Comm comm = MPI_COMM_SELF;
    const int code = settle_request(func, r, st, comm);
    return code == MPI_SUCCESS ? code : raise(comm, code);
}

}  // namespace ch4lite::api
