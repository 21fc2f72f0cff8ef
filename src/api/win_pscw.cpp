// SPDX-License-Identifier: MIT
// General active-target synchronization: MPI_Win_post, start, complete,
// wait, test (rma/pscw.cpp). Checked here: the group (MPI_ERR_GROUP: not a
// group, or a member outside the window), the assert, and the epoch rules
// (MPI_ERR_RMA_SYNC: a second post or start, complete / wait / test without
// one, a start inside a passive-target epoch or a fence epoch with
// operations). An origin that completes an epoch to a target whose post
// group does not name it makes that target's wait fail with MPI_ERR_RMA_SYNC.
#include <new>
#include <vector>

#include "api/group_handles.hpp"
#include "api/win_common.hpp"
#include "device/comm.hpp"
#include "rma/sync.hpp"

using namespace ch4lite;

namespace {

constexpr int post_asserts = MPI_MODE_NOCHECK | MPI_MODE_NOSTORE | MPI_MODE_NOPUT;

rma::win* win_of(const char* func, MPI_Win win, int& rc) {
    rc = MPI_SUCCESS;
    if (!api::is_initialized()) {
        rc = api::require_init(func);
        return nullptr;
    }
    rma::win* w = api::lookup_win(win);
    if (!w) rc = api::raise_self(api::error_code(MPI_ERR_WIN, func, "invalid window"));
    return w;
}

// The group's members as ranks of the window's communicator.
int ranks_of(const char* func, MPI_Win win, const rma::win& w, MPI_Group group, std::vector<int>& out) {
    const dev::group* g = api::lookup_group(group);
    if (!g) CH4_FAIL_WIN_IN(func, win, MPI_ERR_GROUP, "invalid group");
    try {
        out.resize(static_cast<std::size_t>(g->size()));
    } catch (const std::bad_alloc&) {
        CH4_FAIL_WIN_IN(func, win, MPI_ERR_NO_MEM, "out of memory reading the group");
    }
    for (int i = 0; i < g->size(); ++i) {
        const int r = w.comm->map.rank_of(g->lpid(i));
        if (r < 0)
            CH4_FAIL_WIN_IN(func, win, MPI_ERR_GROUP,
                            "member %d of the group is not in the window's group", i);
        out[static_cast<std::size_t>(i)] = r;
    }
    return MPI_SUCCESS;
}

int result(const char* func, MPI_Win win, rma::win& w, status s) {
    if (s == status::ok) return MPI_SUCCESS;
    if (s == status::invalid) CH4_FAIL_WIN_IN(func, win, MPI_ERR_RMA_SYNC, "%s", w.report.c_str());
    if (s == status::range) CH4_FAIL_WIN_IN(func, win, MPI_ERR_RMA_RANGE, "%s", w.report.c_str());
    CH4_FAIL_WIN_IN(func, win, api::class_of(s), "synchronization failed%s%s",
                    w.report.empty() ? "" : ": ", w.report.c_str());
}

}  // namespace

extern "C" {

CH4_PMPI(MPI_Win_post)
int MPI_Win_post(MPI_Group group, int assert, MPI_Win win) {
    CH4_API_LOCK();
    int rc;
    rma::win* w = win_of(__func__, win, rc);
    if (!w) return rc;
    if (assert & ~post_asserts)
        CH4_FAIL_WIN(win, MPI_ERR_ASSERT,
                     "invalid assert 0x%x: post takes MPI_MODE_NOCHECK, NOSTORE and NOPUT",
                     static_cast<unsigned>(assert));
    std::vector<int> ranks;
    if (int e = ranks_of(__func__, win, *w, group, ranks)) return e;
    if (w->exposed)
        CH4_FAIL_WIN(win, MPI_ERR_RMA_SYNC, "an exposure epoch is open already: call MPI_Win_wait first");
    if (!w->async && w->access && w->ops)
        CH4_FAIL_WIN(win, MPI_ERR_RMA_SYNC,
                     "a fence epoch with %u RMA operations is open: close it with MPI_Win_fence first",
                     w->ops);
    return result(__func__, win, *w, rma::post(*w, std::move(ranks), assert));
}

CH4_PMPI(MPI_Win_start)
int MPI_Win_start(MPI_Group group, int assert, MPI_Win win) {
    CH4_API_LOCK();
    int rc;
    rma::win* w = win_of(__func__, win, rc);
    if (!w) return rc;
    if (assert & ~MPI_MODE_NOCHECK)
        CH4_FAIL_WIN(win, MPI_ERR_ASSERT, "invalid assert 0x%x: start takes MPI_MODE_NOCHECK only",
                     static_cast<unsigned>(assert));
    std::vector<int> ranks;
    if (int e = ranks_of(__func__, win, *w, group, ranks)) return e;
    if (w->async & rma::async_start)
        CH4_FAIL_WIN(win, MPI_ERR_RMA_SYNC, "an access epoch (MPI_Win_start) is open already");
    if (w->async & rma::async_lock)
        CH4_FAIL_WIN(win, MPI_ERR_RMA_SYNC, "a passive-target epoch is open: unlock first");
    if (w->access && w->ops)
        CH4_FAIL_WIN(win, MPI_ERR_RMA_SYNC,
                     "a fence epoch with %u RMA operations is open: close it with MPI_Win_fence first",
                     w->ops);
    return result(__func__, win, *w, rma::start(*w, std::move(ranks), assert));
}

CH4_PMPI(MPI_Win_complete)
int MPI_Win_complete(MPI_Win win) {
    CH4_API_LOCK();
    int rc;
    rma::win* w = win_of(__func__, win, rc);
    if (!w) return rc;
    if (!(w->async & rma::async_start))
        CH4_FAIL_WIN(win, MPI_ERR_RMA_SYNC, "no access epoch (MPI_Win_start) is open");
    return result(__func__, win, *w, rma::complete(*w));
}

CH4_PMPI(MPI_Win_wait)
int MPI_Win_wait(MPI_Win win) {
    CH4_API_LOCK();
    int rc;
    rma::win* w = win_of(__func__, win, rc);
    if (!w) return rc;
    if (!w->exposed) CH4_FAIL_WIN(win, MPI_ERR_RMA_SYNC, "no exposure epoch (MPI_Win_post) is open");
    return result(__func__, win, *w, rma::wait(*w));
}

CH4_PMPI(MPI_Win_test)
int MPI_Win_test(MPI_Win win, int* flag) {
    CH4_API_LOCK();
    int rc;
    rma::win* w = win_of(__func__, win, rc);
    if (!w) return rc;
    if (!flag) CH4_FAIL_WIN(win, MPI_ERR_ARG, "flag (output) is NULL");
    if (!w->exposed) CH4_FAIL_WIN(win, MPI_ERR_RMA_SYNC, "no exposure epoch (MPI_Win_post) is open");
    status s = status::ok;
    *flag = rma::test(*w, s) ? 1 : 0;
    return result(__func__, win, *w, s);
}

}  // extern "C"
