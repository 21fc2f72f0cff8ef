// SPDX-License-Identifier: MIT
// MPI_Request_get_status_any / _all / _some (MPI-4.1 §3.7.5): the array
// forms of MPI_Request_get_status. Like MPI_Testany / Testall / Testsome,
// but nothing is freed or deactivated: the handles stay valid and a later
// completion function still returns each request. Null handles and inactive
// persistent requests count as inactive (empty status).
#include "api/p2p_common.hpp"
#include "api/persistent.hpp"
#include "device/progress.hpp"

using namespace ch4lite;

namespace {

int check_array(const char* func, int count, const MPI_Request reqs[]) {
    CH4_REQUIRE_INIT_IN(func);
    if (count < 0) CH4_FAIL_IN(func, MPI_COMM_SELF, MPI_ERR_COUNT, "invalid count %d: must be >= 0", count);
    if (count > 0 && !reqs) CH4_FAIL_IN(func, MPI_COMM_SELF, MPI_ERR_ARG, "array_of_requests is NULL");
    return MPI_SUCCESS;
}

// What a completion function waits on for handle h: nullptr for a null
// handle or an inactive persistent request; `bad` for an invalid handle.
dev::request* target(MPI_Request h, bool& bad) noexcept {
    bad = false;
    if (h == MPI_REQUEST_NULL) return nullptr;
    dev::request* u = dev::request_from_handle(reinterpret_cast<uintptr_t>(h));
    if (!u) {
        bad = true;
        return nullptr;
    }
    return api::wait_target(u);
}

int resolve(const char* func, int count, const MPI_Request reqs[]) {
    for (int i = 0; i < count; ++i) {
        bool bad = false;
        (void)target(reqs[i], bad);
        if (bad) CH4_FAIL_IN(func, MPI_COMM_SELF, MPI_ERR_REQUEST, "invalid request handle at index %d", i);
    }
    return MPI_SUCCESS;
}

// The status of complete request h (its wait target w), without settling it.
int peek_status(MPI_Request h, dev::request* w, MPI_Status* st, bool set_error = true) noexcept {
    if (st == MPI_STATUS_IGNORE) st = nullptr;
    dev::request* u = dev::request_from_handle(reinterpret_cast<uintptr_t>(h));
    if (api::grequest* g = api::grequest_of(u)) {  // from the user's query function
        MPI_Status tmp;
        MPI_Status* s = st ? st : &tmp;
        api::set_status_empty(s);
        return g->query_fn ? g->query_fn(g->extra_state, s) : MPI_SUCCESS;
    }
    if (st) {
        api::fill_status(st, w);
        if (set_error) st->MPI_ERROR = MPI_SUCCESS;  // not by the single-status get_any
    }
    return MPI_SUCCESS;
}

inline bool done(const dev::request* w) noexcept { return w->cc == 0; }

int get_all(const char* func, int count, const MPI_Request reqs[], int* flag, MPI_Status statuses[]) {
    if (const int rc = check_array(func, count, reqs)) return rc;
    if (!flag) CH4_FAIL_IN(func, MPI_COMM_SELF, MPI_ERR_ARG, "flag (output) is NULL");
    if (const int rc = resolve(func, count, reqs)) return rc;
    auto all_done = [&] {
        bool bad;
        for (int i = 0; i < count; ++i)
            if (dev::request* w = target(reqs[i], bad); w && !done(w)) return false;
        return true;
    };
    if (!all_done()) {
        dev::progress();
        if (!all_done()) {
            *flag = 0;
            return MPI_SUCCESS;
        }
    }
    *flag = 1;
    for (int i = 0; i < count; ++i) {
        MPI_Status* st = statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &statuses[i];
        bool bad;
        dev::request* w = target(reqs[i], bad);
        if (!w) {
            if (st != MPI_STATUS_IGNORE) {
                api::set_status_empty(st);
                st->MPI_ERROR = MPI_SUCCESS;
            }
            continue;
        }
        if (const int rc = peek_status(reqs[i], w, st); rc != MPI_SUCCESS) return api::raise(MPI_COMM_SELF, rc);
    }
    return MPI_SUCCESS;
}

int get_any(const char* func, int count, const MPI_Request reqs[], int* index, int* flag,
            MPI_Status* status) {
    if (const int rc = check_array(func, count, reqs)) return rc;
    if (!index) CH4_FAIL_IN(func, MPI_COMM_SELF, MPI_ERR_ARG, "index (output) is NULL");
    if (!flag) CH4_FAIL_IN(func, MPI_COMM_SELF, MPI_ERR_ARG, "flag (output) is NULL");
    if (const int rc = resolve(func, count, reqs)) return rc;
    bool active = false;
    int found = -1;
    auto scan = [&] {
        bool bad;
        active = false;
        for (int i = 0; i < count; ++i) {
            dev::request* w = target(reqs[i], bad);
            if (!w) continue;
            active = true;
            if (done(w)) {
                found = i;
                return;
            }
        }
    };
    scan();
    if (active && found < 0) {
        dev::progress();
        scan();
    }
    if (!active) {  // nothing active: flag true, index undefined, empty status
        *flag = 1;
        *index = MPI_UNDEFINED;
        if (status != MPI_STATUS_IGNORE) api::set_status_empty(status);
        return MPI_SUCCESS;
    }
    *index = found < 0 ? MPI_UNDEFINED : found;
    *flag = found >= 0;
    if (found < 0) return MPI_SUCCESS;
    bool bad;
    const int rc = peek_status(reqs[found], target(reqs[found], bad), status, false);
    return rc == MPI_SUCCESS ? rc : api::raise(MPI_COMM_SELF, rc);
}

int get_some(const char* func, int count, const MPI_Request reqs[], int* outcount, int indices[],
             MPI_Status statuses[]) {
    if (const int rc = check_array(func, count, reqs)) return rc;
    if (!outcount) CH4_FAIL_IN(func, MPI_COMM_SELF, MPI_ERR_ARG, "outcount (output) is NULL");
    if (count > 0 && !indices) CH4_FAIL_IN(func, MPI_COMM_SELF, MPI_ERR_ARG, "array_of_indices is NULL");
    if (const int rc = resolve(func, count, reqs)) return rc;
    bool active = false, any = false;
    auto scan = [&] {
        bool bad;
        active = any = false;
        for (int i = 0; i < count; ++i) {
            dev::request* w = target(reqs[i], bad);
            if (!w) continue;
            active = true;
            any = any || done(w);
        }
    };
    scan();
    if (active && !any) {
        dev::progress();
        scan();
    }
    if (!active) {
        *outcount = MPI_UNDEFINED;
        return MPI_SUCCESS;
    }
    int n = 0;
    for (int i = 0; i < count; ++i) {
        bool bad;
        dev::request* w = target(reqs[i], bad);
        if (!w || !done(w)) continue;
        MPI_Status* st = statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &statuses[n];
        indices[n++] = i;
        if (const int rc = peek_status(reqs[i], w, st); rc != MPI_SUCCESS) {
            *outcount = n;
            return api::raise(MPI_COMM_SELF, rc);
        }
    }
    *outcount = n;
    return MPI_SUCCESS;
}

}  // namespace

extern "C" {

CH4_PMPI(MPI_Request_get_status_all)
int MPI_Request_get_status_all(int count, const MPI_Request array_of_requests[], int* flag,
                               MPI_Status array_of_statuses[]) {
    CH4_API_LOCK();
    return get_all(__func__, count, array_of_requests, flag, array_of_statuses);
}
CH4_PMPI(MPI_Request_get_status_any)
int MPI_Request_get_status_any(int count, const MPI_Request array_of_requests[], int* index, int* flag,
                               MPI_Status* status) {
    CH4_API_LOCK();
    return get_any(__func__, count, array_of_requests, index, flag, status);
}
CH4_PMPI(MPI_Request_get_status_some)
int MPI_Request_get_status_some(int incount, const MPI_Request array_of_requests[], int* outcount,
                                int array_of_indices[], MPI_Status array_of_statuses[]) {
    CH4_API_LOCK();
    return get_some(__func__, incount, array_of_requests, outcount, array_of_indices, array_of_statuses);
}

}  // extern "C"
