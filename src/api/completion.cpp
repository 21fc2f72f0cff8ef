// SPDX-License-Identifier: MIT
// MPI_Wait*, MPI_Test*, MPI_Request_free, MPI_Request_get_status, MPI_Cancel,
// MPI_Test_cancelled, for every kind of request: ordinary ones, persistent
// ones (through their current activation) and generalized ones
// (api/persistent.hpp).
#include <new>

#include "api/p2p_common.hpp"
#include "api/persistent.hpp"
#include "coll/sched.hpp"
#include "device/progress.hpp"


using namespace ch4lite;

namespace {

// A user request and what a completion function waits on for it
// (api::wait_target): itself, a persistent request's activation, or nothing
// (an inactive persistent request: complete, empty status).
struct pair_ref {
    dev::request* u;
    dev::request* w;
};

// Settles user request u, whose wait target is complete: fills *st, returns
// the error code (not raised) and the communicator it belongs to; `keep`
// says whether the user's handle stays valid (a persistent request becomes
// inactive) or must become MPI_REQUEST_NULL.
int settle(const char* func, dev::request* u, MPI_Status* st, MPI_Comm& comm, bool& keep) noexcept {
    if (api::persistent* p = api::persistent_of(u)) {
        keep = true;
        comm = p->comm;
        if (!p->active) {
            if (st != MPI_STATUS_IGNORE) api::set_status_empty(st);
            return MPI_SUCCESS;
        }
        dev::request* w = p->inner;
        p->inner = nullptr;
        p->active = false;
        if (p->inner_local) {  // finished without a request: nothing to release
            p->inner_local = false;
            api::fill_status(st, w);
            if (w->result == status::ok) return MPI_SUCCESS;
            return api::error_code(api::class_of(w->result), func, "the receive could not be posted: %s",
                                   to_string(w->result));
        }
        MPI_Comm c = p->comm;
        const int code = api::settle_request(func, w, st, c, !p->owns_inner);
        return code;
    }
    keep = false;
    if (api::grequest* g = api::grequest_of(u)) {
        comm = MPI_COMM_SELF;
        MPI_Status tmp;
        MPI_Status* s = st != MPI_STATUS_IGNORE ? st : &tmp;
        api::set_status_empty(s);
        s->MPI_SOURCE = MPI_UNDEFINED;
        s->MPI_TAG = MPI_UNDEFINED;
        const int rc = g->query_fn ? g->query_fn(g->extra_state, s) : MPI_SUCCESS;
        const int rc2 = g->free_fn ? g->free_fn(g->extra_state) : MPI_SUCCESS;
        dev::request_release(u);
        return rc != MPI_SUCCESS ? rc : rc2;
    }
    return api::settle_request(func, u, st, comm);
}

int settle_raise(const char* func, MPI_Request* handle, dev::request* u, MPI_Status* st) noexcept {
    MPI_Comm comm = MPI_COMM_SELF;
    bool keep = false;
    const int code = settle(func, u, st, comm, keep);
    if (!keep) *handle = MPI_REQUEST_NULL;
    if (code == MPI_SUCCESS) return code;
    // A user callback's own code (generalized requests) is returned as it is,
    // through the handler of MPI_COMM_SELF.
    return api::raise(comm, code);
}

// Argument checks shared by the array forms.
int check_array(const char* func, int count, MPI_Request reqs[]) {
    CH4_REQUIRE_INIT_IN(func);
    if (count < 0) CH4_FAIL_IN(func, MPI_COMM_SELF, MPI_ERR_COUNT, "invalid count %d: must be >= 0", count);
    if (count > 0 && !reqs) CH4_FAIL_IN(func, MPI_COMM_SELF, MPI_ERR_ARG, "array_of_requests is NULL");
    return MPI_SUCCESS;
}

int single(const char* func, MPI_Request* request, int* flag, MPI_Status* status, bool blocking) {
    CH4_REQUIRE_INIT_IN(func);
    if (!request) CH4_FAIL_IN(func, MPI_COMM_SELF, MPI_ERR_ARG, "request is NULL");
    if (!blocking && !flag) CH4_FAIL_IN(func, MPI_COMM_SELF, MPI_ERR_ARG, "flag (output) is NULL");
    if (*request == MPI_REQUEST_NULL) {
        if (flag) *flag = 1;
        if (status != MPI_STATUS_IGNORE) api::set_status_empty(status);
        return MPI_SUCCESS;
    }
    dev::request* u = dev::request_from_handle(reinterpret_cast<uintptr_t>(*request));
    if (!u) CH4_FAIL_IN(func, MPI_COMM_SELF, MPI_ERR_REQUEST, "invalid request handle");
    // MPI_Wait on an active persistent point-to-point request: its own
    // path (direct receives; before wait_target would post an armed one).
    if (blocking && u->kind == dev::req_kind::persistent) {
        api::persistent* p = static_cast<api::persistent*>(u->ext);
        if (p->kind == api::persist_kind::p2p && p->active) return api::wait_p2p(func, *p, status);
        if (p->kind == api::persist_kind::coll && p->active) {
            const int code = api::wait_coll(func, *p, status);
            return code == MPI_SUCCESS ? code : api::raise(p->comm, code);
        }
    }
    if (dev::request* w = api::wait_target(u)) {
        if (blocking) {
            if (w->kind == dev::req_kind::coll)
                coll::wait(w);  // schedules polled first (coll/sched.hpp)
            else
                dev::wait(w);
        } else if (w->cc != 0) {
            dev::progress();
            if (w->cc != 0) {
                *flag = 0;
                return MPI_SUCCESS;
            }
        }
    }
    if (flag) *flag = 1;
    return settle_raise(func, request, u, status);
}

// Settles every completed request of the array; reports errors through
// MPI_ERR_IN_STATUS (statuses given) or the first error's code.
int settle_all(const char* func, int count, MPI_Request reqs[], const pair_ref* r,
               MPI_Status statuses[]) {
    int first_err = MPI_SUCCESS;
    MPI_Comm err_comm = MPI_COMM_SELF;
    for (int i = 0; i < count; ++i) {
        MPI_Status* st = statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &statuses[i];
        if (!r[i].u) {
            if (st != MPI_STATUS_IGNORE) {
                api::set_status_empty(st);
                st->MPI_ERROR = MPI_SUCCESS;
            }
            continue;
        }
        MPI_Comm c = MPI_COMM_SELF;
        bool keep = false;
        const int code = settle(func, r[i].u, st, c, keep);
        if (!keep) reqs[i] = MPI_REQUEST_NULL;
        if (st != MPI_STATUS_IGNORE) st->MPI_ERROR = code;
        if (code != MPI_SUCCESS && first_err == MPI_SUCCESS) {
            first_err = code;
            err_comm = c;
        }
    }
    if (first_err == MPI_SUCCESS) return MPI_SUCCESS;
    if (statuses != MPI_STATUSES_IGNORE)
        return api::raise(err_comm, api::error_code(MPI_ERR_IN_STATUS, func,
                                                    "one or more requests failed; see MPI_ERROR of each status"));
    return api::raise(err_comm, first_err);
}

// Scratch of user requests and their wait targets (small arrays on the stack).
class pair_array {
  public:
    explicit pair_array(int count)
        : p_(count <= 64 ? small_ : new (std::nothrow) pair_ref[static_cast<std::size_t>(count)]) {}
    ~pair_array() {
        if (p_ != small_) delete[] p_;
    }
    pair_array(const pair_array&) = delete;
    pair_array& operator=(const pair_array&) = delete;
    pair_ref* data() noexcept { return p_; }
    bool ok() const noexcept { return p_ != nullptr; }

  private:
    pair_ref small_[64];
    pair_ref* p_;
};

// Resolves the handles and their wait targets; MPI_SUCCESS or the raised error.
int resolve_pairs(const char* func, int count, MPI_Request reqs[], pair_array& arr) {
    if (!arr.ok()) CH4_FAIL_IN(func, MPI_COMM_SELF, MPI_ERR_NO_MEM, "cannot allocate %d entries", count);
    pair_ref* r = arr.data();
    for (int i = 0; i < count; ++i) {
        if (reqs[i] == MPI_REQUEST_NULL) {
            r[i] = {nullptr, nullptr};
            continue;
        }
        dev::request* u = dev::request_from_handle(reinterpret_cast<uintptr_t>(reqs[i]));
        if (!u)
            CH4_FAIL_IN(func, MPI_COMM_SELF, MPI_ERR_REQUEST, "invalid request handle at index %d", i);
        r[i] = {u, api::wait_target(u)};
    }
    return MPI_SUCCESS;
}

int all(const char* func, int count, MPI_Request reqs[], int* flag, MPI_Status statuses[], bool blocking) {
    if (const int rc = check_array(func, count, reqs)) return rc;
    if (!blocking && !flag) CH4_FAIL_IN(func, MPI_COMM_SELF, MPI_ERR_ARG, "flag (output) is NULL");
    pair_array arr(count);
    if (const int rc = resolve_pairs(func, count, reqs, arr)) return rc;
    const pair_ref* r = arr.data();
    auto done = [&] {
        for (int i = 0; i < count; ++i)
            if (r[i].w && r[i].w->cc != 0) return false;
        return true;
    };
    if (blocking) {
        dev::progress_until(done);
    } else if (!done()) {
        dev::progress();
        if (!done()) {
            *flag = 0;
            return MPI_SUCCESS;
        }
    }
    if (flag) *flag = 1;
    return settle_all(func, count, reqs, r, statuses);
}

// Active: a request a completion function can still return (not null, not
// an inactive persistent request).
inline bool is_active(const pair_ref& p) noexcept { return p.w != nullptr; }

int any(const char* func, int count, MPI_Request reqs[], int* index, int* flag, MPI_Status* status,
        bool blocking) {
    if (const int rc = check_array(func, count, reqs)) return rc;
    if (!index) CH4_FAIL_IN(func, MPI_COMM_SELF, MPI_ERR_ARG, "index (output) is NULL");
    if (!blocking && !flag) CH4_FAIL_IN(func, MPI_COMM_SELF, MPI_ERR_ARG, "flag (output) is NULL");
    pair_array arr(count);
    if (const int rc = resolve_pairs(func, count, reqs, arr)) return rc;
    const pair_ref* r = arr.data();
    int found = -1;
    bool active = false;
    auto scan = [&] {
        for (int i = 0; i < count; ++i) {
            if (!is_active(r[i])) continue;
            active = true;
            if (r[i].w->cc == 0) {
                found = i;
                return true;
            }
        }
        return !active;
    };
    if (blocking) {
        dev::progress_until(scan);
    } else if (!scan()) {
        dev::progress();
        scan();
    }
    if (!active) {  // no active request: done, with an empty status
        *index = MPI_UNDEFINED;
        if (flag) *flag = 1;
        if (status != MPI_STATUS_IGNORE) api::set_status_empty(status);
        return MPI_SUCCESS;
    }
    if (found < 0) {
        *flag = 0;
        *index = MPI_UNDEFINED;
        return MPI_SUCCESS;
    }
    if (flag) *flag = 1;
    *index = found;
    return settle_raise(func, &reqs[found], r[found].u, status);
}

int some(const char* func, int count, MPI_Request reqs[], int* outcount, int indices[],
         MPI_Status statuses[], bool blocking) {
    if (const int rc = check_array(func, count, reqs)) return rc;
    if (!outcount) CH4_FAIL_IN(func, MPI_COMM_SELF, MPI_ERR_ARG, "outcount (output) is NULL");
    if (count > 0 && !indices) CH4_FAIL_IN(func, MPI_COMM_SELF, MPI_ERR_ARG, "array_of_indices is NULL");
    pair_array arr(count);
    if (const int rc = resolve_pairs(func, count, reqs, arr)) return rc;
    pair_ref* r = arr.data();
    bool active = false;
    auto any_done = [&] {
        active = false;
        for (int i = 0; i < count; ++i) {
            if (!is_active(r[i])) continue;
            active = true;
            if (r[i].w->cc == 0) return true;
        }
        return !active;
    };
    if (blocking)
        dev::progress_until(any_done);
    else if (!any_done()) {
        dev::progress();
        any_done();
    }
    if (!active) {
        *outcount = MPI_UNDEFINED;
        return MPI_SUCCESS;
    }
    // Compact the completed ones to the front, then settle them together.
    int n = 0;
    for (int i = 0; i < count; ++i) {
        if (!is_active(r[i]) || r[i].w->cc != 0) continue;
        indices[n] = i;
        r[n] = r[i];
        ++n;
    }
    *outcount = n;
    int first_err = MPI_SUCCESS;
    MPI_Comm err_comm = MPI_COMM_SELF;
    for (int k = 0; k < n; ++k) {
        MPI_Status* st = statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &statuses[k];
        MPI_Comm c = MPI_COMM_SELF;
        bool keep = false;
        const int code = settle(func, r[k].u, st, c, keep);
        if (!keep) reqs[indices[k]] = MPI_REQUEST_NULL;
        if (st != MPI_STATUS_IGNORE) st->MPI_ERROR = code;
        if (code != MPI_SUCCESS && first_err == MPI_SUCCESS) {
            first_err = code;
            err_comm = c;
        }
    }
    if (first_err == MPI_SUCCESS) return MPI_SUCCESS;
    if (statuses != MPI_STATUSES_IGNORE)
        return api::raise(err_comm, api::error_code(MPI_ERR_IN_STATUS, func,
                                                    "one or more requests failed; see MPI_ERROR of each status"));
    return api::raise(err_comm, first_err);
}

}  // namespace

extern "C" {

CH4_PMPI(MPI_Wait)
int MPI_Wait(MPI_Request* request, MPI_Status* status) {
    CH4_API_LOCK();
    // An active persistent point-to-point request goes straight to its own
    // path (p2p_persistent.cpp; single() would do the same after more checks).
    if (__builtin_expect(api::is_initialized() && request != nullptr, 1)) {
        dev::request* u = dev::request_from_handle(reinterpret_cast<uintptr_t>(*request));
        if (u && u->kind == dev::req_kind::persistent) {
            api::persistent* p = static_cast<api::persistent*>(u->ext);
            if (p->kind == api::persist_kind::p2p && p->active) return api::wait_p2p(__func__, *p, status);
        }
    }
    return single(__func__, request, nullptr, status, true);
}
CH4_PMPI(MPI_Test)
int MPI_Test(MPI_Request* request, int* flag, MPI_Status* status) {
    CH4_API_LOCK();
    return single(__func__, request, flag, status, false);
}
CH4_PMPI(MPI_Waitall)
int MPI_Waitall(int count, MPI_Request reqs[], MPI_Status statuses[]) {
    CH4_API_LOCK();
    return all(__func__, count, reqs, nullptr, statuses, true);
}
CH4_PMPI(MPI_Testall)
int MPI_Testall(int count, MPI_Request reqs[], int* flag, MPI_Status statuses[]) {
    CH4_API_LOCK();
    return all(__func__, count, reqs, flag, statuses, false);
}
CH4_PMPI(MPI_Waitany)
int MPI_Waitany(int count, MPI_Request reqs[], int* index, MPI_Status* status) {
    CH4_API_LOCK();
    return any(__func__, count, reqs, index, nullptr, status, true);
}
CH4_PMPI(MPI_Testany)
int MPI_Testany(int count, MPI_Request reqs[], int* index, int* flag, MPI_Status* status) {
    CH4_API_LOCK();
    return any(__func__, count, reqs, index, flag, status, false);
}
CH4_PMPI(MPI_Waitsome)
int MPI_Waitsome(int count, MPI_Request reqs[], int* outcount, int indices[], MPI_Status statuses[]) {
    CH4_API_LOCK();
    return some(__func__, count, reqs, outcount, indices, statuses, true);
}
CH4_PMPI(MPI_Testsome)
int MPI_Testsome(int count, MPI_Request reqs[], int* outcount, int indices[], MPI_Status statuses[]) {
    CH4_API_LOCK();
    return some(__func__, count, reqs, outcount, indices, statuses, false);
}

CH4_PMPI(MPI_Request_get_status)
int MPI_Request_get_status(MPI_Request request, int* flag, MPI_Status* status) {
    CH4_API_LOCK();
    CH4_REQUIRE_INIT();
    if (!flag) CH4_FAIL_SELF(MPI_ERR_ARG, "flag (output) is NULL");
    if (request == MPI_REQUEST_NULL) {
        *flag = 1;
        if (status != MPI_STATUS_IGNORE) api::set_status_empty(status);
        return MPI_SUCCESS;
    }
    dev::request* u = dev::request_from_handle(reinterpret_cast<uintptr_t>(request));
    if (!u) CH4_FAIL_SELF(MPI_ERR_REQUEST, "invalid request handle");
    dev::request* w = api::wait_target(u);
    if (!w) {  // an inactive persistent request
        *flag = 1;
        if (status != MPI_STATUS_IGNORE) api::set_status_empty(status);
        return MPI_SUCCESS;
    }
    if (w->cc != 0) dev::progress();
    *flag = w->cc == 0;
    if (!*flag) return MPI_SUCCESS;
    if (api::grequest* g = api::grequest_of(u)) {
        // The status comes from the user's query function (MPI-4.1 §13.2).
        MPI_Status tmp;
        MPI_Status* s = status != MPI_STATUS_IGNORE ? status : &tmp;
        api::set_status_empty(s);
        const int rc = g->query_fn ? g->query_fn(g->extra_state, s) : MPI_SUCCESS;
        return rc == MPI_SUCCESS ? rc : api::raise(MPI_COMM_SELF, rc);
    }
    api::fill_status(status, w);
    return MPI_SUCCESS;
}

CH4_PMPI(MPI_Request_free)
int MPI_Request_free(MPI_Request* request) {
    CH4_API_LOCK();
    CH4_REQUIRE_INIT();
    if (!request) CH4_FAIL_SELF(MPI_ERR_ARG, "request is NULL");
    dev::request* r = dev::request_from_handle(reinterpret_cast<uintptr_t>(*request));
    if (!r) CH4_FAIL_SELF(MPI_ERR_REQUEST, "invalid request handle (MPI_REQUEST_NULL or freed)");
    if (api::persistent* p = api::persistent_of(r)) {
        (void)api::wait_target(r);  // an armed receive is posted first
        if (p->active) {
            if (p->kind != api::persist_kind::p2p)
                CH4_FAIL(p->comm, MPI_ERR_REQUEST,
                         "the persistent %s request is active: complete it (MPI_Wait/MPI_Test) "
                         "before freeing it",
                         p->kind == api::persist_kind::coll ? "collective" : "partitioned");
            // The activation completes on its own; nothing reports it.
            if (!p->inner_local) dev::request_release(p->inner);
            p->inner = nullptr;
            p->inner_local = false;
            p->active = false;
        }
        dev::request_release(r);
        *request = MPI_REQUEST_NULL;
        return MPI_SUCCESS;
    }
    if (api::grequest* g = api::grequest_of(r)) {
        // free_fn runs now if the request is complete, else when
        // MPI_Grequest_complete completes it (api/grequest.cpp).
        *request = MPI_REQUEST_NULL;
        if (r->cc == 0) {
            const int rc = g->free_fn ? g->free_fn(g->extra_state) : MPI_SUCCESS;
            dev::request_release(r);
            return rc == MPI_SUCCESS ? rc : api::raise(MPI_COMM_SELF, rc);
        }
        r->flags |= dev::rf_released;
        return MPI_SUCCESS;
    }
    // MPI-4.1 §6.12: freeing an active nonblocking collective's request is
    // erroneous (its buffers and the other processes still depend on it).
    if (r->kind == dev::req_kind::coll && r->cc != 0)
        CH4_FAIL(r->c ? reinterpret_cast<MPI_Comm>(r->c->handle) : MPI_COMM_SELF, MPI_ERR_REQUEST,
                 "the nonblocking collective is still active: complete it (MPI_Wait/MPI_Test) "
                 "before freeing its request");
    dev::request_release(r);
    *request = MPI_REQUEST_NULL;
    return MPI_SUCCESS;
}

CH4_PMPI(MPI_Cancel)
int MPI_Cancel(MPI_Request* request) {
    CH4_API_LOCK();
    CH4_REQUIRE_INIT();
    if (!request) CH4_FAIL_SELF(MPI_ERR_ARG, "request is NULL");
    dev::request* r = dev::request_from_handle(reinterpret_cast<uintptr_t>(*request));
    if (!r) CH4_FAIL_SELF(MPI_ERR_REQUEST, "invalid request handle (MPI_REQUEST_NULL or freed)");
    if (api::persistent* p = api::persistent_of(r)) {
        if (!p->active)
            CH4_FAIL(p->comm, MPI_ERR_REQUEST, "the persistent request is inactive (not started)");
        if (p->kind == api::persist_kind::psend || p->kind == api::persist_kind::precv)
            CH4_FAIL(p->comm, MPI_ERR_REQUEST,
                     "an active partitioned request cannot be cancelled (MPI-4.1 §4.1)");
        r = api::wait_target(r);  // (posts an armed receive)
    }
    if (api::grequest* g = api::grequest_of(r)) {
        const int rc = g->cancel_fn ? g->cancel_fn(g->extra_state, r->cc == 0) : MPI_SUCCESS;
        return rc == MPI_SUCCESS ? rc : api::raise(MPI_COMM_SELF, rc);
    }
    // Receives are cancelled when not yet matched. A send that waits for
    // its receiver (rendezvous, MPI_Ssend) is withdrawn if the receiver has
    // not matched it yet, on the device-matching path (docs/p2p.md,
    // "Cancel"); any other send completes normally and MPI_Test_cancelled
    // reports false (MPI allows a cancel to fail).
    if (r->kind == dev::req_kind::recv)
        (void)dev::cancel_recv(r);
    else if (r->kind == dev::req_kind::send)
        (void)dev::cancel_send(r);
    return MPI_SUCCESS;
}

CH4_PMPI(MPI_Test_cancelled)
int MPI_Test_cancelled(const MPI_Status* status, int* flag) {
    CH4_API_LOCK();
    CH4_REQUIRE_INIT();
    if (!status || !flag) CH4_FAIL_SELF(MPI_ERR_ARG, "status or flag is NULL");
    *flag = api::status_cancelled(status) ? 1 : 0;
    return MPI_SUCCESS;
}

}  // extern "C"
