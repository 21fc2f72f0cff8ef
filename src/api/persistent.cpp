// SPDX-License-Identifier: MIT
// MPI_Start, MPI_Startall and the persistent request object
// (api/persistent.hpp).
#include "api/persistent.hpp"

#include "api/errors.hpp"
#include "api/handles.hpp"

using namespace ch4lite;

namespace ch4lite::api {

dev::request* persistent_alloc(persistent* p) noexcept {
    dev::request* r = dev::request_alloc(dev::req_kind::persistent, 0);
    if (!r) {
        delete p;
        return nullptr;
    }
    r->ext = p;
    return r;
}

int start_persistent(const char* func, dev::request* r) noexcept {
    persistent* p = persistent_of(r);
    if (!p)
        CH4_FAIL_IN(func, MPI_COMM_SELF, MPI_ERR_REQUEST,
                    "the request is not persistent (made by MPI_Send_init, MPI_Recv_init, "
                    "MPI_<collective>_init, MPI_Psend_init or MPI_Precv_init)");
    if (p->active)
        CH4_FAIL_IN(func, p->comm, MPI_ERR_REQUEST,
                    "the persistent request is already active: complete it before starting it again");
    switch (p->kind) {
        case persist_kind::p2p: return start_p2p(func, r, *p);
        case persist_kind::coll: return start_coll(func, r, *p);
        case persist_kind::psend:
        case persist_kind::precv: return start_part(func, r, *p);
        default: break;
    }
    CH4_FAIL_IN(func, p->comm, MPI_ERR_INTERN, "unknown kind of persistent request");
}

}  // namespace ch4lite::api

namespace {

dev::request* lookup_request(MPI_Request h) noexcept {
    return h == MPI_REQUEST_NULL ? nullptr : dev::request_from_handle(reinterpret_cast<uintptr_t>(h));
}

}  // namespace

extern "C" {

CH4_PMPI(MPI_Start)
int MPI_Start(MPI_Request* request) {
    CH4_API_LOCK();
    CH4_REQUIRE_INIT();
    if (!request) CH4_FAIL_SELF(MPI_ERR_ARG, "request is NULL");
    dev::request* r = lookup_request(*request);
    if (!r) CH4_FAIL_SELF(MPI_ERR_REQUEST, "invalid request handle (MPI_REQUEST_NULL or freed)");
    return api::start_persistent(__func__, r);
}

CH4_PMPI(MPI_Startall)
int MPI_Startall(int count, MPI_Request array_of_requests[]) {
    CH4_API_LOCK();
    CH4_REQUIRE_INIT();
    if (count < 0) CH4_FAIL_SELF(MPI_ERR_COUNT, "invalid count %d: must be >= 0", count);
    if (count > 0 && !array_of_requests) CH4_FAIL_SELF(MPI_ERR_ARG, "array_of_requests is NULL");
    // Every handle is checked before any is started, so a bad array starts
    // nothing (a handle given twice is found active when started again).
    for (int i = 0; i < count; ++i) {
        dev::request* r = lookup_request(array_of_requests[i]);
        if (!r)
            CH4_FAIL_SELF(MPI_ERR_REQUEST, "invalid request handle at index %d (MPI_REQUEST_NULL or freed)", i);
        api::persistent* p = api::persistent_of(r);
        if (!p) CH4_FAIL_SELF(MPI_ERR_REQUEST, "the request at index %d is not persistent", i);
        if (p->active)
            CH4_FAIL(p->comm, MPI_ERR_REQUEST,
                     "the persistent request at index %d is already active: complete it first", i);
    }
    for (int i = 0; i < count; ++i)
        if (const int rc = api::start_persistent(__func__, lookup_request(array_of_requests[i])))
            return rc;
    return MPI_SUCCESS;
}

}  // extern "C"
