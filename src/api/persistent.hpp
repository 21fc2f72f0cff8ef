// SPDX-License-Identifier: MIT
// Persistent and generalized requests: the request objects whose handle
// outlives one operation, or whose completion the user decides.
//
// A persistent request (MPI_Send_init, MPI_Recv_init, MPI_Bcast_init, ...,
// MPI_Psend_init) is a dev::request of kind `persistent` that no transport
// ever sees: its `ext` is the recipe, a subclass of `persistent`. MPI_Start
// makes one activation: an ordinary request (`inner`) started from the
// recipe. The completion functions wait on `inner` and settle the user's
// request from it (api/completion.cpp): the status is the inner request's,
// the inner request goes back to the pool, and the persistent request
// becomes inactive with its handle unchanged. MPI_Request_free of an
// inactive one frees it; of an active point-to-point one lets the
// activation finish on its own (MPI-4.1 §3.7.3); of an active collective or
// partitioned one is an error (§6.13, §4.2).
//
// A generalized request (MPI_Grequest_start) is a dev::request of kind
// `generalized` with cc = 1 until MPI_Grequest_complete; its `ext` holds the
// user's callbacks, called as §13.2 says: query_fn when a completion
// function returns it (its status and error code), free_fn when it is freed
// (after query_fn), cancel_fn from MPI_Cancel.
#pragma once
#include <mpi.h>

#include "device/request.hpp"

namespace ch4lite::api {

enum class persist_kind : uint8_t { p2p, coll, psend, precv };

struct persistent : dev::request_ext {
    explicit persistent(persist_kind k) noexcept : kind(k) {}
    persist_kind kind;
    bool active = false;           // started and not yet returned by a completion function
    dev::request* inner = nullptr; // the current activation (while active)
    MPI_Comm comm = MPI_COMM_NULL; // for errors (and the operation's communicator)
    // The activation is the recipe's own request, re-armed at every start
    // (collectives: api/coll_sched.cpp): completion leaves it allocated.
    bool owns_inner = false;
    // `inner` is an object of the recipe, not of the request pool: an
    // activation that finished without a request (p2p_persistent.cpp's
    // direct paths). Settled by reading its status, never released.
    bool inner_local = false;
    // A point-to-point receive armed instead of posted (device/lazy_recv.hpp):
    // `inner` is not set until persistent_post (wait_target) or MPI_Wait.
    bool armed = false;
};

// The persistent recipe of a request, or nullptr when r is another kind.
inline persistent* persistent_of(dev::request* r) noexcept {
    return r->kind == dev::req_kind::persistent ? static_cast<persistent*>(r->ext) : nullptr;
}

// A new inactive persistent request owning `p` (nullptr, and `p` deleted,
// when the request pool is exhausted).
dev::request* persistent_alloc(persistent* p) noexcept;

// Starts one activation of r (MPI_Start): checks that r is an inactive
// persistent request, then calls the start function of its kind. Returns
// MPI_SUCCESS or the raised error (r unchanged).
int start_persistent(const char* func, dev::request* r) noexcept;

// The start function of each kind, called by start_persistent's switch
// (p.active is false; on success they set p.inner to a started request and
// p.active = true; on failure they raise the error and leave p inactive).
int start_p2p(const char* func, dev::request* r, persistent& p) noexcept;
int start_coll(const char* func, dev::request* r, persistent& p) noexcept;  // api/coll_sched.cpp
int start_part(const char* func, dev::request* r, persistent& p) noexcept;  // psend, precv

// MPI_Wait of an active persistent point-to-point request: waits for the
// activation (through the direct receive path when it can), settles it
// into *status and returns MPI_SUCCESS or the raised error.
int wait_p2p(const char* func, persistent& p, MPI_Status* status) noexcept;
// The same for an active persistent collective (api/coll_sched.cpp): waits
// for the schedule's run, settles it, keeps its activation request.
int wait_coll(const char* func, persistent& p, MPI_Status* status) noexcept;

// What a completion function waits on for user request r: r itself, the
// current activation of a persistent request, or nullptr for an inactive
// persistent request (which, like MPI_REQUEST_NULL, is already "complete"
// with an empty status).
void persistent_post(persistent& p) noexcept;  // posts an armed receive (p2p_persistent.cpp)
inline dev::request* wait_target(dev::request* r) noexcept {
    if (r->kind != dev::req_kind::persistent) return r;
    persistent* p = static_cast<persistent*>(r->ext);
    if (__builtin_expect(p->armed, 0)) persistent_post(*p);
    return p->active ? p->inner : nullptr;
}

// Generalized requests.
struct grequest : dev::request_ext {
    MPI_Grequest_query_function* query_fn = nullptr;
    MPI_Grequest_free_function* free_fn = nullptr;
    MPI_Grequest_cancel_function* cancel_fn = nullptr;
    void* extra_state = nullptr;
};
inline grequest* grequest_of(dev::request* r) noexcept {
    return r->kind == dev::req_kind::generalized ? static_cast<grequest*>(r->ext) : nullptr;
}

}  // namespace ch4lite::api
