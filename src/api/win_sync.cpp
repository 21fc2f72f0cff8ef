// SPDX-License-Identifier: MIT
// Synchronization: MPI_Win_fence (rma/fence.cpp does the work) and passive
// target, MPI_Win_lock / unlock / lock_all / unlock_all / flush* / sync
// (rma/passive.cpp). Every epoch rule is checked here (docs/rma-passive.md,
// "Bad input"): a lock of a rank outside the group (MPI_ERR_RANK), a nested
// lock, an unlock or flush without a lock, a lock inside a fence epoch with
// operations or a PSCW access epoch, a fence inside a passive-target or PSCW
// epoch (MPI_ERR_RMA_SYNC).
#include <atomic>

#include "api/win_common.hpp"
#include "rma/sync.hpp"

using namespace ch4lite;

namespace {

constexpr int fence_asserts =
    MPI_MODE_NOSTORE | MPI_MODE_NOPUT | MPI_MODE_NOPRECEDE | MPI_MODE_NOSUCCEED | MPI_MODE_NOCHECK;

// The window of a synchronization call; nullptr after raising MPI_ERR_WIN.
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

// A passive-target epoch may start: no fence epoch with operations, no
// PSCW access epoch, no lock_all.
int may_start_passive(const char* func, MPI_Win win, const rma::win& w) {
    if (w.async & rma::async_start)
        CH4_FAIL_WIN_IN(func, win, MPI_ERR_RMA_SYNC,
                        "a PSCW access epoch (MPI_Win_start) is open: call MPI_Win_complete first");
    if (w.lock_all)
        CH4_FAIL_WIN_IN(func, win, MPI_ERR_RMA_SYNC, "MPI_Win_lock_all is in effect: call MPI_Win_unlock_all first");
    if (!w.async && w.access && w.ops)
        CH4_FAIL_WIN_IN(func, win, MPI_ERR_RMA_SYNC,
                        "a fence epoch with %u RMA operations is open: close it with MPI_Win_fence first",
                        w.ops);
    return MPI_SUCCESS;
}

int sync_result(const char* func, MPI_Win win, rma::win& w, status s, const char* what) {
    if (s == status::ok) return MPI_SUCCESS;
    if (s == status::range) CH4_FAIL_WIN_IN(func, win, MPI_ERR_RMA_RANGE, "%s", w.report.c_str());
    CH4_FAIL_WIN_IN(func, win, api::class_of(s), "%s failed%s%s", what, w.report.empty() ? "" : ": ",
                    w.report.c_str());
}

int check_rank(const char* func, MPI_Win win, const rma::win& w, int rank) {
    if (rank < 0 || rank >= w.nranks())
        CH4_FAIL_WIN_IN(func, win, MPI_ERR_RANK, "invalid rank %d: must be in [0, %d) or MPI_PROC_NULL",
                        rank, w.nranks());
    return MPI_SUCCESS;
}

// rank is locked by Win_lock or lock_all: its flush is allowed.
bool passive_on(const rma::win& w, int rank) {
    return w.lock_all || w.tsync[static_cast<std::size_t>(rank)].lock != rma::lk_none;
}

int flush_impl(const char* func, int rank, MPI_Win win, bool local) {
    int rc;
    rma::win* w = win_of(func, win, rc);
    if (!w) return rc;
    if (rank == MPI_PROC_NULL) return MPI_SUCCESS;
    if (int e = check_rank(func, win, *w, rank)) return e;
    if (!passive_on(*w, rank))
        CH4_FAIL_WIN_IN(func, win, MPI_ERR_RMA_SYNC,
                        "rank %d is not locked: a flush needs a passive-target epoch (MPI_Win_lock or "
                        "MPI_Win_lock_all)", rank);
    return sync_result(func, win, *w, rma::flush(*w, rank, local), "the flush");
}

int flush_all_impl(const char* func, MPI_Win win, bool local) {
    int rc;
    rma::win* w = win_of(func, win, rc);
    if (!w) return rc;
    if (!(w->async & rma::async_lock))
        CH4_FAIL_WIN_IN(func, win, MPI_ERR_RMA_SYNC,
                        "no passive-target epoch is open (MPI_Win_lock or MPI_Win_lock_all)");
    return sync_result(func, win, *w, rma::flush_all(*w, local), "the flush");
}

}  // namespace

extern "C" {

CH4_PMPI(MPI_Win_fence)
int MPI_Win_fence(int assert, MPI_Win win) {
    CH4_API_LOCK();
    CH4_REQUIRE_INIT();
    rma::win* w = api::lookup_win(win);
    if (!w) CH4_FAIL_SELF(MPI_ERR_WIN, "invalid window");
    if (assert & ~fence_asserts)
        CH4_FAIL_WIN(win, MPI_ERR_ASSERT,
                     "invalid assert 0x%x: a fence takes MPI_MODE_NOSTORE, NOPUT, NOPRECEDE, "
                     "NOSUCCEED (and NOCHECK)", static_cast<unsigned>(assert));
    if (w->async)
        CH4_FAIL_WIN(win, MPI_ERR_RMA_SYNC,
                     "a %s epoch is open: a fence cannot close it",
                     (w->async & rma::async_start) ? "PSCW access (MPI_Win_start)" : "passive-target (MPI_Win_lock)");
    if (w->exposed)
        CH4_FAIL_WIN(win, MPI_ERR_RMA_SYNC, "an exposure epoch (MPI_Win_post) is open: call MPI_Win_wait first");
    if ((assert & MPI_MODE_NOPRECEDE) && w->ops)
        CH4_FAIL_WIN(win, MPI_ERR_RMA_SYNC,
                     "MPI_MODE_NOPRECEDE, but %u RMA operations were issued in the epoch it closes",
                     w->ops);
    const status s = rma::fence(*w, assert);
    if (s == status::range)
        CH4_FAIL_WIN(win, MPI_ERR_RMA_RANGE, "%s", w->report.c_str());
    if (s != status::ok)
        CH4_FAIL_WIN(win, api::class_of(s), "the fence failed%s%s", w->report.empty() ? "" : ": ",
                     w->report.c_str());
    return MPI_SUCCESS;
}

CH4_PMPI(MPI_Win_lock)
int MPI_Win_lock(int lock_type, int rank, int assert, MPI_Win win) {
    CH4_API_LOCK();
    int rc;
    rma::win* w = win_of(__func__, win, rc);
    if (!w) return rc;
    if (lock_type != MPI_LOCK_SHARED && lock_type != MPI_LOCK_EXCLUSIVE)
        CH4_FAIL_WIN(win, MPI_ERR_LOCKTYPE,
                     "invalid lock_type %d: must be MPI_LOCK_SHARED or MPI_LOCK_EXCLUSIVE", lock_type);
    if (assert & ~MPI_MODE_NOCHECK)
        CH4_FAIL_WIN(win, MPI_ERR_ASSERT, "invalid assert 0x%x: a lock takes MPI_MODE_NOCHECK only",
                     static_cast<unsigned>(assert));
    if (rank == MPI_PROC_NULL) return MPI_SUCCESS;
    if (int e = check_rank(__func__, win, *w, rank)) return e;
    if (int e = may_start_passive(__func__, win, *w)) return e;
    if (w->tsync[static_cast<std::size_t>(rank)].lock != rma::lk_none)
        CH4_FAIL_WIN(win, MPI_ERR_RMA_SYNC, "rank %d is already locked by this process (nested lock)", rank);
    const int type = lock_type == MPI_LOCK_EXCLUSIVE ? rma::lk_excl : rma::lk_shared;
    return sync_result(__func__, win, *w, rma::lock(*w, type, rank, assert), "the lock");
}

CH4_PMPI(MPI_Win_unlock)
int MPI_Win_unlock(int rank, MPI_Win win) {
    CH4_API_LOCK();
    int rc;
    rma::win* w = win_of(__func__, win, rc);
    if (!w) return rc;
    if (rank == MPI_PROC_NULL) return MPI_SUCCESS;
    if (int e = check_rank(__func__, win, *w, rank)) return e;
    if (w->lock_all || w->tsync[static_cast<std::size_t>(rank)].lock == rma::lk_none)
        CH4_FAIL_WIN(win, MPI_ERR_RMA_SYNC, "rank %d is not locked by MPI_Win_lock%s", rank,
                     w->lock_all ? " (MPI_Win_lock_all is in effect: MPI_Win_unlock_all ends it)" : "");
    return sync_result(__func__, win, *w, rma::unlock(*w, rank), "the unlock");
}

CH4_PMPI(MPI_Win_lock_all)
int MPI_Win_lock_all(int assert, MPI_Win win) {
    CH4_API_LOCK();
    int rc;
    rma::win* w = win_of(__func__, win, rc);
    if (!w) return rc;
    if (assert & ~MPI_MODE_NOCHECK)
        CH4_FAIL_WIN(win, MPI_ERR_ASSERT, "invalid assert 0x%x: lock_all takes MPI_MODE_NOCHECK only",
                     static_cast<unsigned>(assert));
    if (int e = may_start_passive(__func__, win, *w)) return e;
    if (w->nlocked)
        CH4_FAIL_WIN(win, MPI_ERR_RMA_SYNC, "%u ranks are locked by MPI_Win_lock: unlock them first",
                     w->nlocked);
    return sync_result(__func__, win, *w, rma::lock_all(*w, assert), "lock_all");
}

CH4_PMPI(MPI_Win_unlock_all)
int MPI_Win_unlock_all(MPI_Win win) {
    CH4_API_LOCK();
    int rc;
    rma::win* w = win_of(__func__, win, rc);
    if (!w) return rc;
    if (!w->lock_all) CH4_FAIL_WIN(win, MPI_ERR_RMA_SYNC, "MPI_Win_lock_all is not in effect");
    return sync_result(__func__, win, *w, rma::unlock_all(*w), "unlock_all");
}

CH4_PMPI(MPI_Win_flush)
int MPI_Win_flush(int rank, MPI_Win win) { CH4_API_LOCK(); return flush_impl(__func__, rank, win, false); }
CH4_PMPI(MPI_Win_flush_local)
int MPI_Win_flush_local(int rank, MPI_Win win) { CH4_API_LOCK(); return flush_impl(__func__, rank, win, true); }
CH4_PMPI(MPI_Win_flush_all)
int MPI_Win_flush_all(MPI_Win win) { CH4_API_LOCK(); return flush_all_impl(__func__, win, false); }
CH4_PMPI(MPI_Win_flush_local_all)
int MPI_Win_flush_local_all(MPI_Win win) { CH4_API_LOCK(); return flush_all_impl(__func__, win, true); }

CH4_PMPI(MPI_Win_sync)
int MPI_Win_sync(MPI_Win win) {
    CH4_API_LOCK();
    int rc;
    rma::win* w = win_of(__func__, win, rc);
    if (!w) return rc;
    rma::win_sync(*w);
    return MPI_SUCCESS;
}

}  // extern "C"
