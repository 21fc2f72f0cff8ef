// SPDX-License-Identifier: MIT
// Buffered mode: MPI_Bsend, MPI_Ibsend, MPI_Buffer_attach / detach / flush /
// iflush and their communicator forms (MPI-4.1 §3.6). The mechanism is in
// api/bsend.hpp; MPI_Bsend_init is in p2p_persistent.cpp.
#include <climits>
#include <limits>
#include <new>
#include <utility>
#include <vector>

#include "api/bsend.hpp"
#include "api/p2p_common.hpp"
#include "device/progress.hpp"

using namespace ch4lite;
using api::bsend_buffer;

namespace {

bsend_buffer* g_process_buffer = nullptr;
// Communicator buffers, by communicator handle (a handle is never reused
// with the same generation while the communicator lives).
std::vector<std::pair<MPI_Comm, bsend_buffer*>> g_comm_buffers;

bsend_buffer** comm_slot(MPI_Comm comm) noexcept {
    for (auto& e : g_comm_buffers)
        if (e.first == comm) return &e.second;
    return nullptr;
}

// Attaches a buffer to `slot` (process or communicator).
int attach(const char* func, MPI_Comm comm, bsend_buffer*& slot, void* buffer, int64_t size) {
    if (slot)
        CH4_FAIL_IN(func, comm, MPI_ERR_BUFFER,
                    "a buffer is already attached (%p, %zu bytes): detach it first",
                    slot->base(), slot->size());
    const bool automatic = buffer == MPI_BUFFER_AUTOMATIC;
    if (!automatic) {
        if (size < 0) CH4_FAIL_IN(func, comm, MPI_ERR_ARG, "invalid size %lld: must be >= 0",
                                  static_cast<long long>(size));
        if (!buffer && size > 0)
            CH4_FAIL_IN(func, comm, MPI_ERR_BUFFER, "buffer is NULL but size is %lld",
                        static_cast<long long>(size));
    }
    auto* b = new (std::nothrow) bsend_buffer(buffer, automatic ? 0 : static_cast<std::size_t>(size),
                                             automatic);
    if (!b) CH4_FAIL_IN(func, comm, MPI_ERR_NO_MEM, "cannot allocate the buffer's bookkeeping");
    slot = b;
    return MPI_SUCCESS;
}

// Waits until no buffered send of b is pending.
void flush(bsend_buffer* b) noexcept {
    if (b) dev::progress_until([b] { return b->pending() == 0; });
}

// Detaches the buffer in `slot` after its sends are done: its address
// (MPI_BUFFER_AUTOMATIC for an automatic one) and size; NULL and 0 when none
// is attached.
template <class Size>
int detach(const char* func, MPI_Comm comm, bsend_buffer*& slot, void* buffer_addr, Size* size) {
    if (!buffer_addr) CH4_FAIL_IN(func, comm, MPI_ERR_ARG, "buffer_addr (output) is NULL");
    if (!size) CH4_FAIL_IN(func, comm, MPI_ERR_ARG, "size (output) is NULL");
    bsend_buffer* b = slot;
    if (!b) {
        *static_cast<void**>(buffer_addr) = nullptr;
        *size = 0;
        return MPI_SUCCESS;
    }
    if (b->size() > static_cast<std::size_t>(std::numeric_limits<Size>::max()))
        CH4_FAIL_IN(func, comm, MPI_ERR_VALUE_TOO_LARGE,
                    "the attached buffer has %zu bytes, more than size can hold: use the _c form",
                    b->size());
    flush(b);
    *static_cast<void**>(buffer_addr) = b->base();
    *size = static_cast<Size>(b->size());
    slot = nullptr;
    delete b;
    return MPI_SUCCESS;
}

int iflush(const char* func, MPI_Comm comm, bsend_buffer* b, MPI_Request* request) {
    if (!request) CH4_FAIL_IN(func, comm, MPI_ERR_ARG, "request (output) is NULL");
    dev::request* r = dev::request_alloc(dev::req_kind::internal, 1);
    if (!r) CH4_FAIL_IN(func, comm, MPI_ERR_NO_MEM, "request pool exhausted");
    r->src_rank = MPI_ANY_SOURCE;
    r->tag = MPI_ANY_TAG;
    if (b)
        b->add_flush_waiter(r);
    else
        r->cc = 0;
    *request = reinterpret_cast<MPI_Request>(dev::request_handle(r));
    return MPI_SUCCESS;
}

dev::comm* checked_comm(const char* func, MPI_Comm comm, int& rc) {
    rc = MPI_SUCCESS;
    if (__builtin_expect(!api::is_initialized(), 0)) {
        rc = api::require_init(func);
        return nullptr;
    }
    dev::comm* c = api::lookup_comm(comm);
    if (!c) rc = api::raise(comm, api::error_code(MPI_ERR_COMM, func, "invalid communicator"));
    return c;
}

int comm_attach(const char* func, MPI_Comm comm, void* buffer, int64_t size) {
    int rc;
    if (!checked_comm(func, comm, rc)) return rc;
    bsend_buffer** s = comm_slot(comm);
    if (!s) {
        try {
            g_comm_buffers.emplace_back(comm, nullptr);
        } catch (const std::bad_alloc&) {
            CH4_FAIL_IN(func, comm, MPI_ERR_NO_MEM, "cannot record the communicator's buffer");
        }
        s = &g_comm_buffers.back().second;
    }
    return attach(func, comm, *s, buffer, size);
}

template <class Size>
int comm_detach(const char* func, MPI_Comm comm, void* buffer_addr, Size* size) {
    int rc;
    if (!checked_comm(func, comm, rc)) return rc;
    bsend_buffer* none = nullptr;
    bsend_buffer** s = comm_slot(comm);
    return detach(func, comm, s ? *s : none, buffer_addr, size);  // (the empty slot stays for reuse)
}

int bsend_impl(const char* func, const void* buf, int64_t count, MPI_Datatype dt, int dest, int tag,
               MPI_Comm comm, MPI_Request* request) {
    CH4_REQUIRE_INIT_IN(func);
    dev::comm* c = api::lookup_comm(comm);
    if (!c) CH4_FAIL_IN(func, comm, MPI_ERR_COMM, "invalid communicator");
    api::dt_info d;
    std::size_t bytes = 0;
    const void* start = nullptr;
    if (const int rc = api::check_message_buffer(func, comm, buf, count, dt, d, bytes, start)) return rc;
    if (dest != MPI_PROC_NULL && (dest < 0 || dest >= c->size))
        CH4_FAIL_IN(func, comm, MPI_ERR_RANK,
                    "invalid destination rank %d: must be in [0, %d) or MPI_PROC_NULL", dest, c->size);
    if (tag < 0 || tag > dev::tag_ub)
        CH4_FAIL_IN(func, comm, MPI_ERR_TAG, "invalid tag %d: must be in [0, %d]", tag, dev::tag_ub);
    return api::bsend_checked(func, *c, comm, buf, count, d, bytes, start, dest, tag, request);
}

int ibsend_impl(const char* func, const void* buf, int64_t count, MPI_Datatype dt, int dest, int tag,
                MPI_Comm comm, MPI_Request* request) {
    if (!request) {
        CH4_REQUIRE_INIT_IN(func);
        CH4_FAIL_IN(func, comm, MPI_ERR_ARG, "request (output) is NULL");
    }
    return bsend_impl(func, buf, count, dt, dest, tag, comm, request);
}

}  // namespace

namespace ch4lite::api {

void bsend_comm_freed(MPI_Comm comm) noexcept {
    for (auto it = g_comm_buffers.begin(); it != g_comm_buffers.end(); ++it) {
        if (it->first != comm) continue;
        flush(it->second);
        delete it->second;
        g_comm_buffers.erase(it);
        return;
    }
}

bsend_buffer* bsend_buffer_for(MPI_Comm comm) noexcept {
    if (!g_comm_buffers.empty())
        if (bsend_buffer** s = comm_slot(comm); s && *s) return *s;
    return g_process_buffer;
}

}  // namespace ch4lite::api

extern "C" {

CH4_PMPI(MPI_Bsend)
int MPI_Bsend(const void* buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm) {
    CH4_API_LOCK();
    return bsend_impl(__func__, buf, count, dt, dest, tag, comm, nullptr);
}
CH4_PMPI(MPI_Bsend_c)
int MPI_Bsend_c(const void* buf, MPI_Count count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm) {
    CH4_API_LOCK();
    return bsend_impl(__func__, buf, count, dt, dest, tag, comm, nullptr);
}
CH4_PMPI(MPI_Ibsend)
int MPI_Ibsend(const void* buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
               MPI_Request* request) {
    CH4_API_LOCK();
    return ibsend_impl(__func__, buf, count, dt, dest, tag, comm, request);
}
CH4_PMPI(MPI_Ibsend_c)
int MPI_Ibsend_c(const void* buf, MPI_Count count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
                 MPI_Request* request) {
    CH4_API_LOCK();
    return ibsend_impl(__func__, buf, count, dt, dest, tag, comm, request);
}

CH4_PMPI(MPI_Buffer_attach)
int MPI_Buffer_attach(void* buffer, int size) {
    CH4_API_LOCK();
    CH4_REQUIRE_INIT();
    return attach(__func__, MPI_COMM_SELF, g_process_buffer, buffer, size);
}
CH4_PMPI(MPI_Buffer_attach_c)
int MPI_Buffer_attach_c(void* buffer, MPI_Count size) {
    CH4_API_LOCK();
    CH4_REQUIRE_INIT();
    return attach(__func__, MPI_COMM_SELF, g_process_buffer, buffer, size);
}
CH4_PMPI(MPI_Buffer_detach)
int MPI_Buffer_detach(void* buffer_addr, int* size) {
    CH4_API_LOCK();
    CH4_REQUIRE_INIT();
    return detach(__func__, MPI_COMM_SELF, g_process_buffer, buffer_addr, size);
}
CH4_PMPI(MPI_Buffer_detach_c)
int MPI_Buffer_detach_c(void* buffer_addr, MPI_Count* size) {
    CH4_API_LOCK();
    CH4_REQUIRE_INIT();
    return detach(__func__, MPI_COMM_SELF, g_process_buffer, buffer_addr, size);
}
CH4_PMPI(MPI_Buffer_flush)
int MPI_Buffer_flush(void) {
    CH4_API_LOCK();
    CH4_REQUIRE_INIT();
    flush(g_process_buffer);
    return MPI_SUCCESS;
}
CH4_PMPI(MPI_Buffer_iflush)
int MPI_Buffer_iflush(MPI_Request* request) {
    CH4_API_LOCK();
    CH4_REQUIRE_INIT();
    return iflush(__func__, MPI_COMM_SELF, g_process_buffer, request);
}

CH4_PMPI(MPI_Comm_attach_buffer)
int MPI_Comm_attach_buffer(MPI_Comm comm, void* buffer, int size) {
    CH4_API_LOCK();
    return comm_attach(__func__, comm, buffer, size);
}
CH4_PMPI(MPI_Comm_attach_buffer_c)
int MPI_Comm_attach_buffer_c(MPI_Comm comm, void* buffer, MPI_Count size) {
    CH4_API_LOCK();
    return comm_attach(__func__, comm, buffer, size);
}
CH4_PMPI(MPI_Comm_detach_buffer)
int MPI_Comm_detach_buffer(MPI_Comm comm, void* buffer_addr, int* size) {
    CH4_API_LOCK();
    return comm_detach(__func__, comm, buffer_addr, size);
}
CH4_PMPI(MPI_Comm_detach_buffer_c)
int MPI_Comm_detach_buffer_c(MPI_Comm comm, void* buffer_addr, MPI_Count* size) {
    CH4_API_LOCK();
    return comm_detach(__func__, comm, buffer_addr, size);
}
CH4_PMPI(MPI_Comm_flush_buffer)
int MPI_Comm_flush_buffer(MPI_Comm comm) {
    CH4_API_LOCK();
    int rc;
    if (!checked_comm(__func__, comm, rc)) return rc;
    if (bsend_buffer** s = comm_slot(comm)) flush(*s);
    return MPI_SUCCESS;
}
CH4_PMPI(MPI_Comm_iflush_buffer)
int MPI_Comm_iflush_buffer(MPI_Comm comm, MPI_Request* request) {
    CH4_API_LOCK();
    int rc;
    if (!checked_comm(__func__, comm, rc)) return rc;
    bsend_buffer** s = comm_slot(comm);
    return iflush(__func__, comm, s ? *s : nullptr, request);
}

}  // extern "C"
