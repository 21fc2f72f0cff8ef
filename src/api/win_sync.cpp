// SPDX-License-Identifier: MIT
// Synchronization: MPI_Win_fence (rma/fence.cpp does the work) and the
// passive-target and PSCW calls, which this library does not implement:
// they fail with MPI_ERR_UNSUPPORTED_OPERATION on the window's handler.
#include "api/win_common.hpp"

using namespace ch4lite;

namespace {

constexpr int fence_asserts =
    MPI_MODE_NOSTORE | MPI_MODE_NOPUT | MPI_MODE_NOPRECEDE | MPI_MODE_NOSUCCEED | MPI_MODE_NOCHECK;

int unsupported(const char* func, MPI_Win win) {
    CH4_REQUIRE_INIT_IN(func);
    if (!api::lookup_win(win)) CH4_FAIL_WIN_IN(func, win, MPI_ERR_WIN, "invalid window");
    CH4_FAIL_WIN_IN(func, win, MPI_ERR_UNSUPPORTED_OPERATION,
                    "not supported: ch4lite implements active-target synchronization with "
                    "MPI_Win_fence only (no passive target, no PSCW)");
}

}  // namespace

extern "C" {

CH4_PMPI(MPI_Win_fence)
int MPI_Win_fence(int assert, MPI_Win win) {
    CH4_REQUIRE_INIT();
    rma::win* w = api::lookup_win(win);
    if (!w) CH4_FAIL_SELF(MPI_ERR_WIN, "invalid window");
    if (assert & ~fence_asserts)
        CH4_FAIL_WIN(win, MPI_ERR_ASSERT,
                     "invalid assert 0x%x: a fence takes MPI_MODE_NOSTORE, NOPUT, NOPRECEDE, "
                     "NOSUCCEED (and NOCHECK)", static_cast<unsigned>(assert));
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
int MPI_Win_lock(int lock_type, int rank, int assert, MPI_Win win) { return unsupported(__func__, win); }
CH4_PMPI(MPI_Win_unlock)
int MPI_Win_unlock(int rank, MPI_Win win) { return unsupported(__func__, win); }
CH4_PMPI(MPI_Win_lock_all)
int MPI_Win_lock_all(int assert, MPI_Win win) { return unsupported(__func__, win); }
CH4_PMPI(MPI_Win_unlock_all)
int MPI_Win_unlock_all(MPI_Win win) { return unsupported(__func__, win); }
CH4_PMPI(MPI_Win_flush)
int MPI_Win_flush(int rank, MPI_Win win) { return unsupported(__func__, win); }
CH4_PMPI(MPI_Win_flush_all)
int MPI_Win_flush_all(MPI_Win win) { return unsupported(__func__, win); }
CH4_PMPI(MPI_Win_flush_local)
int MPI_Win_flush_local(int rank, MPI_Win win) { return unsupported(__func__, win); }
CH4_PMPI(MPI_Win_flush_local_all)
int MPI_Win_flush_local_all(MPI_Win win) { return unsupported(__func__, win); }
CH4_PMPI(MPI_Win_sync)
int MPI_Win_sync(MPI_Win win) { return unsupported(__func__, win); }
CH4_PMPI(MPI_Win_start)
int MPI_Win_start(MPI_Group group, int assert, MPI_Win win) { return unsupported(__func__, win); }
CH4_PMPI(MPI_Win_complete)
int MPI_Win_complete(MPI_Win win) { return unsupported(__func__, win); }
CH4_PMPI(MPI_Win_post)
int MPI_Win_post(MPI_Group group, int assert, MPI_Win win) { return unsupported(__func__, win); }
CH4_PMPI(MPI_Win_wait)
int MPI_Win_wait(MPI_Win win) { return unsupported(__func__, win); }
CH4_PMPI(MPI_Win_test)
int MPI_Win_test(MPI_Win win, int* flag) { return unsupported(__func__, win); }

}  // extern "C"
