// SPDX-License-Identifier: MIT
// MPI_Wait*, MPI_Test*, MPI_Request_free, MPI_Request_get_status, MPI_Cancel,
// MPI_Test_cancelled.
#include "api/completion.hpp"

#include <new>

#include "api/p2p_common.hpp"
#include "device/progress.hpp"

namespace ch4lite::api {

request_array::request_array(int count)
    : p_(count <= 64 ? small_ : new (std::nothrow) dev::request*[static_cast<std::size_t>(count)]) {}
request_array::~request_array() {
    if (p_ != small_) delete[] p_;
}

int resolve_requests(const char* func, int count, MPI_Request handles[], dev::request** reqs) noexcept {
    for (int i = 0; i < count; ++i) {
        if (handles[i] == MPI_REQUEST_NULL) {
            reqs[i] = nullptr;
            continue;
        }
        reqs[i] = dev::request_from_handle(reinterpret_cast<uintptr_t>(handles[i]));
        if (!reqs[i])
            CH4_FAIL_IN(func, MPI_COMM_SELF, MPI_ERR_REQUEST, "invalid request handle at index %d", i);
    }
    return MPI_SUCCESS;
}

}  // namespace ch4lite::api

using namespace ch4lite;

namespace {

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
    dev::request* r = dev::request_from_handle(reinterpret_cast<uintptr_t>(*request));
    if (!r) CH4_FAIL_IN(func, MPI_COMM_SELF, MPI_ERR_REQUEST, "invalid request handle");
    if (blocking) {
        dev::wait(r);
    } else if (r->cc != 0) {
        dev::progress();
        if (r->cc != 0) {
            *flag = 0;
            return MPI_SUCCESS;
        }
    }
    if (flag) *flag = 1;
    *request = MPI_REQUEST_NULL;
    return api::finish_request(func, r, status);
}

// Settles every completed request of the array; reports errors through
// MPI_ERR_IN_STATUS (statuses given) or the first error's code.
int settle_all(const char* func, int count, MPI_Request reqs[], dev::request** r,
               MPI_Status statuses[]) {
    int first_err = MPI_SUCCESS;
    MPI_Comm err_comm = MPI_COMM_SELF;
    for (int i = 0; i < count; ++i) {
        MPI_Status* st = statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &statuses[i];
        if (!r[i]) {
            if (st != MPI_STATUS_IGNORE) api::set_status_empty(st);
            continue;
        }
        MPI_Comm c = MPI_COMM_SELF;
        const int code = api::settle_request(func, r[i], st, c);
        reqs[i] = MPI_REQUEST_NULL;
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

int all(const char* func, int count, MPI_Request reqs[], int* flag, MPI_Status statuses[], bool blocking) {
    if (const int rc = check_array(func, count, reqs)) return rc;
    if (!blocking && !flag) CH4_FAIL_IN(func, MPI_COMM_SELF, MPI_ERR_ARG, "flag (output) is NULL");
    api::request_array arr(count);
    if (!arr.ok()) CH4_FAIL_IN(func, MPI_COMM_SELF, MPI_ERR_NO_MEM, "cannot allocate %d entries", count);
    dev::request** r = arr.data();
    if (const int rc = api::resolve_requests(func, count, reqs, r)) return rc;
    auto done = [&] {
        for (int i = 0; i < count; ++i)
            if (r[i] && r[i]->cc != 0) return false;
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

int any(const char* func, int count, MPI_Request reqs[], int* index, int* flag, MPI_Status* status,
        bool blocking) {
    if (const int rc = check_array(func, count, reqs)) return rc;
    if (!index) CH4_FAIL_IN(func, MPI_COMM_SELF, MPI_ERR_ARG, "index (output) is NULL");
    if (!blocking && !flag) CH4_FAIL_IN(func, MPI_COMM_SELF, MPI_ERR_ARG, "flag (output) is NULL");
    api::request_array arr(count);
    if (!arr.ok()) CH4_FAIL_IN(func, MPI_COMM_SELF, MPI_ERR_NO_MEM, "cannot allocate %d entries", count);
    dev::request** r = arr.data();
    if (const int rc = api::resolve_requests(func, count, reqs, r)) return rc;
    int found = -1;
    bool active = false;
    auto scan = [&] {
        for (int i = 0; i < count; ++i) {
            if (!r[i]) continue;
            active = true;
            if (r[i]->cc == 0) {
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
    reqs[found] = MPI_REQUEST_NULL;
    return api::finish_request(func, r[found], status);
}

int some(const char* func, int count, MPI_Request reqs[], int* outcount, int indices[],
         MPI_Status statuses[], bool blocking) {
    if (const int rc = check_array(func, count, reqs)) return rc;
    if (!outcount) CH4_FAIL_IN(func, MPI_COMM_SELF, MPI_ERR_ARG, "outcount (output) is NULL");
    if (count > 0 && !indices) CH4_FAIL_IN(func, MPI_COMM_SELF, MPI_ERR_ARG, "array_of_indices is NULL");
    api::request_array arr(count);
    if (!arr.ok()) CH4_FAIL_IN(func, MPI_COMM_SELF, MPI_ERR_NO_MEM, "cannot allocate %d entries", count);
    dev::request** r = arr.data();
    if (const int rc = api::resolve_requests(func, count, reqs, r)) return rc;
    bool active = false;
    auto any_done = [&] {
        active = false;
        for (int i = 0; i < count; ++i) {
            if (!r[i]) continue;
            active = true;
            if (r[i]->cc == 0) return true;
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
        if (!r[i] || r[i]->cc != 0) continue;
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
        const int code = api::settle_request(func, r[k], st, c);
        reqs[indices[k]] = MPI_REQUEST_NULL;
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
    return single(__func__, request, nullptr, status, true);
}
CH4_PMPI(MPI_Test)
int MPI_Test(MPI_Request* request, int* flag, MPI_Status* status) {
    return single(__func__, request, flag, status, false);
}
CH4_PMPI(MPI_Waitall)
int MPI_Waitall(int count, MPI_Request reqs[], MPI_Status statuses[]) {
    return all(__func__, count, reqs, nullptr, statuses, true);
}
CH4_PMPI(MPI_Testall)
int MPI_Testall(int count, MPI_Request reqs[], int* flag, MPI_Status statuses[]) {
    return all(__func__, count, reqs, flag, statuses, false);
}
CH4_PMPI(MPI_Waitany)
int MPI_Waitany(int count, MPI_Request reqs[], int* index, MPI_Status* status) {
    return any(__func__, count, reqs, index, nullptr, status, true);
}
CH4_PMPI(MPI_Testany)
int MPI_Testany(int count, MPI_Request reqs[], int* index, int* flag, MPI_Status* status) {
    return any(__func__, count, reqs, index, flag, status, false);
}
CH4_PMPI(MPI_Waitsome)
int MPI_Waitsome(int count, MPI_Request reqs[], int* outcount, int indices[], MPI_Status statuses[]) {
    return some(__func__, count, reqs, outcount, indices, statuses, true);
}
CH4_PMPI(MPI_Testsome)
int MPI_Testsome(int count, MPI_Request reqs[], int* outcount, int indices[], MPI_Status statuses[]) {
    return some(__func__, count, reqs, outcount, indices, statuses, false);
}

CH4_PMPI(MPI_Request_get_status)
int MPI_Request_get_status(MPI_Request request, int* flag, MPI_Status* status) {
    CH4_REQUIRE_INIT();
    if (!flag) CH4_FAIL_SELF(MPI_ERR_ARG, "flag (output) is NULL");
    if (request == MPI_REQUEST_NULL) {
        *flag = 1;
        if (status != MPI_STATUS_IGNORE) api::set_status_empty(status);
        return MPI_SUCCESS;
    }
    dev::request* r = dev::request_from_handle(reinterpret_cast<uintptr_t>(request));
    if (!r) CH4_FAIL_SELF(MPI_ERR_REQUEST, "invalid request handle");
    if (r->cc != 0) dev::progress();
    *flag = r->cc == 0;
    if (*flag) api::fill_status(status, r);
    return MPI_SUCCESS;
}

CH4_PMPI(MPI_Request_free)
int MPI_Request_free(MPI_Request* request) {
    CH4_REQUIRE_INIT();
    if (!request) CH4_FAIL_SELF(MPI_ERR_ARG, "request is NULL");
    dev::request* r = dev::request_from_handle(reinterpret_cast<uintptr_t>(*request));
    if (!r) CH4_FAIL_SELF(MPI_ERR_REQUEST, "invalid request handle (MPI_REQUEST_NULL or freed)");
    dev::request_release(r);
    *request = MPI_REQUEST_NULL;
    return MPI_SUCCESS;
}

CH4_PMPI(MPI_Cancel)
int MPI_Cancel(MPI_Request* request) {
    CH4_REQUIRE_INIT();
    if (!request) CH4_FAIL_SELF(MPI_ERR_ARG, "request is NULL");
    dev::request* r = dev::request_from_handle(reinterpret_cast<uintptr_t>(*request));
    if (!r) CH4_FAIL_SELF(MPI_ERR_REQUEST, "invalid request handle (MPI_REQUEST_NULL or freed)");
    // Receives are cancelled when not yet matched; a send cannot be
    // cancelled here (MPI allows a cancel to fail): it completes normally
    // and MPI_Test_cancelled reports false.
    if (r->kind == dev::req_kind::recv) (void)dev::cancel_recv(r);
    return MPI_SUCCESS;
}

CH4_PMPI(MPI_Test_cancelled)
int MPI_Test_cancelled(const MPI_Status* status, int* flag) {
    CH4_REQUIRE_INIT();
    if (!status || !flag) CH4_FAIL_SELF(MPI_ERR_ARG, "status or flag is NULL");
    *flag = api::status_cancelled(status) ? 1 : 0;
    return MPI_SUCCESS;
}

}  // extern "C"
