// SPDX-License-Identifier: MIT
// MPI_Win_create, MPI_Win_allocate (and their _c forms), MPI_Win_free.
// Creation errors are raised on the communicator (there is no window yet).
#include <cstdint>

#include "api/errhandler.hpp"
#include "api/errors.hpp"
#include "api/handles.hpp"
#include "api/win_attrs.hpp"
#include "api/win_common.hpp"
#include "device/comm.hpp"

using namespace ch4lite;

namespace {

// Shared checks; returns MPI_SUCCESS or the raised code.
int check_create(const char* func, MPI_Aint size, int64_t disp_unit, MPI_Info info, MPI_Comm comm,
                 MPI_Win* win, dev::comm*& c) {
    c = api::lookup_comm(comm);
    if (!c) CH4_FAIL_IN(func, comm, MPI_ERR_COMM, "invalid communicator");
    if (c->is_inter()) CH4_FAIL_IN(func, comm, MPI_ERR_COMM, "a window needs an intracommunicator");
    if (!api::info_is_valid(info))
        CH4_FAIL_IN(func, comm, MPI_ERR_INFO, CH4_INFO_MSG, static_cast<void*>(info));
    if (!win) CH4_FAIL_IN(func, comm, MPI_ERR_ARG, "win (output) is NULL");
    if (size < 0) CH4_FAIL_IN(func, comm, MPI_ERR_SIZE, "invalid size %ld: must be >= 0", static_cast<long>(size));
    if (disp_unit <= 0)
        CH4_FAIL_IN(func, comm, MPI_ERR_DISP, "invalid disp_unit %ld: must be > 0", static_cast<long>(disp_unit));
    return MPI_SUCCESS;
}

int create_impl(const char* func, void* base, MPI_Aint size, int64_t disp_unit, MPI_Info info,
                MPI_Comm comm, MPI_Win* win) {
    CH4_REQUIRE_INIT_IN(func);
    dev::comm* c = nullptr;
    if (int rc = check_create(func, size, disp_unit, info, comm, win, c)) return rc;
    if (!base && size > 0) CH4_FAIL_IN(func, comm, MPI_ERR_BASE, "base is NULL but size is %ld", static_cast<long>(size));
    rma::win* w = nullptr;
    const status s = rma::win_create(base, static_cast<uint64_t>(size), disp_unit, *c, w);
    if (s != status::ok)
        CH4_FAIL_IN(func, comm, api::class_of(s), "cannot create the window: %s", to_string(s));
    *win = reinterpret_cast<MPI_Win>(w->handle);
    return MPI_SUCCESS;
}

int allocate_impl(const char* func, MPI_Aint size, int64_t disp_unit, MPI_Info info, MPI_Comm comm,
                  void* baseptr, MPI_Win* win) {
    CH4_REQUIRE_INIT_IN(func);
    dev::comm* c = nullptr;
    if (int rc = check_create(func, size, disp_unit, info, comm, win, c)) return rc;
    if (!baseptr) CH4_FAIL_IN(func, comm, MPI_ERR_ARG, "baseptr is NULL");
    rma::win* w = nullptr;
    void* base = nullptr;
    const status s = rma::win_allocate(static_cast<uint64_t>(size), disp_unit, *c, base, w);
    if (s != status::ok)
        CH4_FAIL_IN(func, comm, api::class_of(s), "cannot create a window of %ld bytes: %s",
                    static_cast<long>(size), to_string(s));
    *static_cast<void**>(baseptr) = base;
    *win = reinterpret_cast<MPI_Win>(w->handle);
    return MPI_SUCCESS;
}

}  // namespace

extern "C" {

CH4_PMPI(MPI_Win_create)
int MPI_Win_create(void* base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                   MPI_Win* win) {
    // no window info keys are interpreted
    return create_impl(__func__, base, size, disp_unit, info, comm, win);
}

CH4_PMPI(MPI_Win_create_c)
int MPI_Win_create_c(void* base, MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm,
                     MPI_Win* win) {
    return create_impl(__func__, base, size, disp_unit, info, comm, win);
}

CH4_PMPI(MPI_Win_allocate)
int MPI_Win_allocate(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void* baseptr,
                     MPI_Win* win) {
    return allocate_impl(__func__, size, disp_unit, info, comm, baseptr, win);
}

CH4_PMPI(MPI_Win_allocate_c)
int MPI_Win_allocate_c(MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm,
                       void* baseptr, MPI_Win* win) {
    return allocate_impl(__func__, size, disp_unit, info, comm, baseptr, win);
}

CH4_PMPI(MPI_Win_free)
int MPI_Win_free(MPI_Win* win) {
    CH4_REQUIRE_INIT();
    if (!win) CH4_FAIL_SELF(MPI_ERR_ARG, "win is NULL");
    rma::win* w = api::lookup_win(*win);
    if (!w) CH4_FAIL_SELF(MPI_ERR_WIN, "invalid window");
    if (w->ops)
        CH4_FAIL_WIN(*win, MPI_ERR_RMA_SYNC,
                     "%u RMA operations issued since the last fence are pending: "
                     "close the epoch with MPI_Win_fence first", w->ops);
    // The attributes' delete callbacks (MPI-4.1 §12.2.7). The free is
    // collective: a failed callback is raised on the window, which is then
    // freed all the same, and its code returned.
    const int attr_rc = api::win_attrs_delete_all(*win);
    if (attr_rc != MPI_SUCCESS) (void)api::raise_win(*win, attr_rc);
    api::win_attrs_drop(*win);
    const MPI_Errhandler eh = w->errhandler;
    const status s = rma::win_free(w);
    api::errhandler_release(eh);
    *win = MPI_WIN_NULL;
    if (s != status::ok) CH4_FAIL_SELF(api::class_of(s), "synchronizing the window's members failed");
    return attr_rc;
}

}  // extern "C"
