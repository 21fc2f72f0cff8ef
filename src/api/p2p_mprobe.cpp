// SPDX-License-Identifier: MIT
// Matched probe and receive: MPI_Mprobe, MPI_Improbe, MPI_Mrecv(_c),
// MPI_Imrecv(_c), and the MPI_Message handle conversions (MPI-4.1 §3.8.2,
// MPI-5.0 ABI). The device takes the probed message out of matching
// (device/mprobe.hpp); a message handle is a generation-checked slot, so a
// message received twice, or a stale handle, is MPI_ERR_REQUEST, never a
// crash.
#include <new>

#include "api/p2p_common.hpp"
#include "device/mprobe.hpp"
#include "device/progress.hpp"
#include "util/handle_table.hpp"

using namespace ch4lite;

namespace {

util::handle_table<dev::message, util::handle_kind::message> g_messages;

int probe_checks(const char* func, int source, int tag, MPI_Comm comm, dev::comm*& c) {
    CH4_REQUIRE_INIT_IN(func);
    c = api::lookup_comm(comm);
    if (!c) CH4_FAIL_IN(func, comm, MPI_ERR_COMM, "invalid communicator");
    if (source != MPI_PROC_NULL && source != MPI_ANY_SOURCE && (source < 0 || source >= c->size))
        CH4_FAIL_IN(func, comm, MPI_ERR_RANK,
                    "invalid source rank %d: must be in [0, %d), MPI_ANY_SOURCE or MPI_PROC_NULL",
                    source, c->size);
    if (tag != MPI_ANY_TAG && (tag < 0 || tag > dev::tag_ub))
        CH4_FAIL_IN(func, comm, MPI_ERR_TAG, "invalid tag %d: must be in [0, %d] or MPI_ANY_TAG", tag,
                    dev::tag_ub);
    return MPI_SUCCESS;
}

void proc_null_status(MPI_Status* status) noexcept {
    if (status == MPI_STATUS_IGNORE) return;
    api::set_status_empty(status);
    status->MPI_SOURCE = MPI_PROC_NULL;
}

int mprobe_impl(const char* func, int source, int tag, MPI_Comm comm, int* flag, MPI_Message* message,
                MPI_Status* status, bool blocking) {
    dev::comm* c = nullptr;
    if (const int rc = probe_checks(func, source, tag, comm, c)) return rc;
    if (!message) CH4_FAIL_IN(func, comm, MPI_ERR_ARG, "message (output) is NULL");
    if (!blocking && !flag) CH4_FAIL_IN(func, comm, MPI_ERR_ARG, "flag (output) is NULL");
    if (source == MPI_PROC_NULL) {
        if (flag) *flag = 1;
        *message = MPI_MESSAGE_NO_PROC;
        proc_null_status(status);
        return MPI_SUCCESS;
    }
    // The object and its handle first: once the device hands a message
    // over, nothing may fail (it would be lost).
    auto* m = new (std::nothrow) dev::message;
    const uintptr_t h = m ? g_messages.insert(m) : 0;
    if (!h) {
        delete m;
        CH4_FAIL_IN(func, comm, MPI_ERR_NO_MEM, "cannot allocate the message object");
    }
    ch4lite::status err = ch4lite::status::ok;
    bool found = dev::improbe(*c, source, tag, *m, err);
    if (blocking) {
        unsigned idle = 0;
        while (!found && err == ch4lite::status::ok) {
            if (dev::progress() == 0) dev::idle_step(idle);
            found = dev::improbe(*c, source, tag, *m, err);
        }
    }
    if (!found) {
        g_messages.erase(h);
        delete m;
        if (err != ch4lite::status::ok)
            CH4_FAIL_IN(func, comm, api::class_of(err), "cannot claim the probed message: %s",
                        to_string(err));
        *flag = 0;
        return MPI_SUCCESS;
    }
    if (flag) *flag = 1;
    *message = reinterpret_cast<MPI_Message>(h);
    if (status != MPI_STATUS_IGNORE) {
        status->MPI_SOURCE = m->src_rank;
        status->MPI_TAG = m->tag;
        api::set_status_bytes(status, static_cast<int64_t>(m->bytes));
        api::set_status_cancelled(status, false);
    }
    return MPI_SUCCESS;
}

int mrecv_impl(const char* func, void* buf, int64_t count, MPI_Datatype dt, MPI_Message* message,
               MPI_Status* status, MPI_Request* request) {
    CH4_REQUIRE_INIT_IN(func);
    if (!message) CH4_FAIL_SELF_IN(func, MPI_ERR_ARG, "message is NULL");
    if (*message == MPI_MESSAGE_NO_PROC) {  // as a receive from MPI_PROC_NULL
        api::dt_info d;
        std::size_t bytes = 0;
        const void* start = nullptr;
        if (const int rc = api::check_message_buffer(func, MPI_COMM_SELF, buf, count, dt, d, bytes, start))
            return rc;
        if (request) {
            dev::request* r = api::null_request(dev::req_kind::recv);
            if (!r) CH4_FAIL_SELF_IN(func, MPI_ERR_NO_MEM, "request pool exhausted");
            *request = reinterpret_cast<MPI_Request>(dev::request_handle(r));
        }
        proc_null_status(status);
        *message = MPI_MESSAGE_NULL;
        return MPI_SUCCESS;
    }
    const uintptr_t h = reinterpret_cast<uintptr_t>(*message);
    dev::message* m = g_messages.lookup(h);
    if (!m)
        CH4_FAIL_SELF_IN(func, MPI_ERR_REQUEST,
                         "invalid message handle: MPI_MESSAGE_NULL, not from MPI_Mprobe/MPI_Improbe, "
                         "or a message already received");
    const MPI_Comm comm = reinterpret_cast<MPI_Comm>(m->c->handle);
    api::dt_info d;
    std::size_t bytes = 0;
    const void* start = nullptr;
    if (const int rc = api::check_message_buffer(func, comm, buf, count, dt, d, bytes, start)) return rc;
    dev::request* r = dev::request_alloc(dev::req_kind::recv, 1);
    if (!r) CH4_FAIL_IN(func, comm, MPI_ERR_NO_MEM, "request pool exhausted");
    r->stage = nullptr;
    r->capacity = bytes;
    if (d.contig || bytes == 0) {
        r->buf = const_cast<void*>(start);
    } else {
        d.t->retain();
        r->dt = d.t;
        r->count = count;
        r->buf = buf;
    }
    dev::mrecv_start(*m, r);  // the message is the request's now
    g_messages.erase(h);
    delete m;
    *message = MPI_MESSAGE_NULL;
    if (request) {
        *request = reinterpret_cast<MPI_Request>(dev::request_handle(r));
        return MPI_SUCCESS;
    }
    dev::wait(r);
    return api::finish_request(func, r, status);
}

}  // namespace

extern "C" {

CH4_PMPI(MPI_Mprobe)
int MPI_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message* message, MPI_Status* status) {
    CH4_API_LOCK();
    return mprobe_impl(__func__, source, tag, comm, nullptr, message, status, true);
}
CH4_PMPI(MPI_Improbe)
int MPI_Improbe(int source, int tag, MPI_Comm comm, int* flag, MPI_Message* message, MPI_Status* status) {
    CH4_API_LOCK();
    return mprobe_impl(__func__, source, tag, comm, flag, message, status, false);
}
CH4_PMPI(MPI_Mrecv)
int MPI_Mrecv(void* buf, int count, MPI_Datatype datatype, MPI_Message* message, MPI_Status* status) {
    CH4_API_LOCK();
    return mrecv_impl(__func__, buf, count, datatype, message, status, nullptr);
}
CH4_PMPI(MPI_Mrecv_c)
int MPI_Mrecv_c(void* buf, MPI_Count count, MPI_Datatype datatype, MPI_Message* message,
                MPI_Status* status) {
    CH4_API_LOCK();
    return mrecv_impl(__func__, buf, count, datatype, message, status, nullptr);
}
CH4_PMPI(MPI_Imrecv)
int MPI_Imrecv(void* buf, int count, MPI_Datatype datatype, MPI_Message* message, MPI_Request* request) {
    CH4_API_LOCK();
    if (!request) {
        CH4_REQUIRE_INIT();
        CH4_FAIL_SELF(MPI_ERR_ARG, "request (output) is NULL");
    }
    return mrecv_impl(__func__, buf, count, datatype, message, MPI_STATUS_IGNORE, request);
}
CH4_PMPI(MPI_Imrecv_c)
int MPI_Imrecv_c(void* buf, MPI_Count count, MPI_Datatype datatype, MPI_Message* message,
                 MPI_Request* request) {
    CH4_API_LOCK();
    if (!request) {
        CH4_REQUIRE_INIT();
        CH4_FAIL_SELF(MPI_ERR_ARG, "request (output) is NULL");
    }
    return mrecv_impl(__func__, buf, count, datatype, message, MPI_STATUS_IGNORE, request);
}

// Handles are 31-bit integers (util/handle.hpp): exact both ways.
CH4_PMPI(MPI_Message_toint)
int MPI_Message_toint(MPI_Message message) {
    CH4_API_LOCK();
    return static_cast<int>(reinterpret_cast<uintptr_t>(message));
}
CH4_PMPI(MPI_Message_fromint)
MPI_Message MPI_Message_fromint(int message) {
    CH4_API_LOCK();
    return reinterpret_cast<MPI_Message>(static_cast<uintptr_t>(static_cast<unsigned>(message)));
}

}  // extern "C"
