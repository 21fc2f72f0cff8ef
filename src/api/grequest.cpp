// SPDX-License-Identifier: MIT
// Generalized requests (MPI-4.1 §13.2): MPI_Grequest_start,
// MPI_Grequest_complete. The completion functions call the user's callbacks
// (api/completion.cpp, api/persistent.hpp).
#include <new>

#include "api/errors.hpp"
#include "api/persistent.hpp"

using namespace ch4lite;

extern "C" {

CH4_PMPI(MPI_Grequest_start)
int MPI_Grequest_start(MPI_Grequest_query_function* query_fn, MPI_Grequest_free_function* free_fn,
                       MPI_Grequest_cancel_function* cancel_fn, void* extra_state,
                       MPI_Request* request) {
    CH4_API_LOCK();
    CH4_REQUIRE_INIT();
    if (!request) CH4_FAIL_SELF(MPI_ERR_ARG, "request (output) is NULL");
    if (!query_fn || !free_fn || !cancel_fn)
        CH4_FAIL_SELF(MPI_ERR_ARG, "query_fn, free_fn and cancel_fn must all be functions (%s is NULL)",
                      !query_fn ? "query_fn" : !free_fn ? "free_fn" : "cancel_fn");
    auto* g = new (std::nothrow) api::grequest;
    if (!g) CH4_FAIL_SELF(MPI_ERR_NO_MEM, "cannot allocate the generalized request");
    g->query_fn = query_fn;
    g->free_fn = free_fn;
    g->cancel_fn = cancel_fn;
    g->extra_state = extra_state;
    dev::request* r = dev::request_alloc(dev::req_kind::generalized, 1);
    if (!r) {
        delete g;
        CH4_FAIL_SELF(MPI_ERR_NO_MEM, "request pool exhausted");
    }
    r->ext = g;
    *request = reinterpret_cast<MPI_Request>(dev::request_handle(r));
    return MPI_SUCCESS;
}

CH4_PMPI(MPI_Grequest_complete)
int MPI_Grequest_complete(MPI_Request request) {
    CH4_API_LOCK();
    CH4_REQUIRE_INIT();
    dev::request* r = request == MPI_REQUEST_NULL
                          ? nullptr
                          : dev::request_from_handle(reinterpret_cast<uintptr_t>(request));
    api::grequest* g = r ? api::grequest_of(r) : nullptr;
    if (!g) CH4_FAIL_SELF(MPI_ERR_REQUEST, "not a generalized request (made by MPI_Grequest_start)");
    if (r->cc == 0) CH4_FAIL_SELF(MPI_ERR_REQUEST, "the generalized request is already complete");
    // A waiting thread reads cc in its progress loop.
    __atomic_store_n(&r->cc, 0, __ATOMIC_RELEASE);
    if (r->flags & dev::rf_released) {  // MPI_Request_free came first: free it now
        const int rc = g->free_fn(g->extra_state);
        dev::request_free_now(r);
        if (rc != MPI_SUCCESS) return api::raise(MPI_COMM_SELF, rc);
    }
    return MPI_SUCCESS;
}

}  // extern "C"
