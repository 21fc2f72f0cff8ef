// SPDX-License-Identifier: MIT
// MPI_Win_create, MPI_Win_allocate, MPI_Win_allocate_shared,
// MPI_Win_create_dynamic (and their _c forms), MPI_Win_shared_query,
// MPI_Win_attach / detach, MPI_Win_free. Creation errors are raised on the
// communicator (there is no window yet). The window's info hints are read
// at creation (win_info.cpp).
#include <cstdint>
#include <string>

#include "api/errhandler.hpp"
#include "api/errors.hpp"
#include "api/handles.hpp"
#include "api/win_attrs.hpp"
#include "api/info_obj.hpp"
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
    api::win_hints(*w, info);
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
    api::win_hints(*w, info);
    *static_cast<void**>(baseptr) = base;
    *win = reinterpret_cast<MPI_Win>(w->handle);
    return MPI_SUCCESS;
}

int allocate_shared_impl(const char* func, MPI_Aint size, int64_t disp_unit, MPI_Info info,
                         MPI_Comm comm, void* baseptr, MPI_Win* win) {
    CH4_REQUIRE_INIT_IN(func);
    dev::comm* c = nullptr;
    if (int rc = check_create(func, size, disp_unit, info, comm, win, c)) return rc;
    if (!baseptr) CH4_FAIL_IN(func, comm, MPI_ERR_ARG, "baseptr is NULL");
    std::string v;
    const bool noncontig = api::info_get(info, "alloc_shared_noncontig", v) && v == "true";
    rma::win* w = nullptr;
    void* base = nullptr;
    const status s = rma::win_allocate_shared(static_cast<uint64_t>(size), disp_unit, noncontig, *c, base, w);
    if (s == status::unsupported)
        CH4_FAIL_IN(func, comm, MPI_ERR_RMA_SHARED,
                    "the processes of comm do not share one node's memory (use a communicator "
                    "from MPI_Comm_split_type with MPI_COMM_TYPE_SHARED)");
    if (s != status::ok)
        CH4_FAIL_IN(func, comm, api::class_of(s), "cannot create a shared window of %ld bytes: %s",
                    static_cast<long>(size), to_string(s));
    api::win_hints(*w, info);
    *static_cast<void**>(baseptr) = base;
    *win = reinterpret_cast<MPI_Win>(w->handle);
    return MPI_SUCCESS;
}

// MPI_Win_shared_query: any flavor (MPI-4.1): the memory of `rank` if this
// process can load and store it (a shared window; a Win_allocate window's
// node peers in the window's segment; a Win_create window we mapped; our
// own), else size 0 and NULL; size 0 and NULL for a member with no memory.
template <class Disp>
int shared_query_impl(const char* func, MPI_Win win, int rank, MPI_Aint* size, Disp* disp_unit,
                      void* baseptr) {
    CH4_REQUIRE_INIT_IN(func);
    rma::win* w = api::lookup_win(win);
    if (!w) CH4_FAIL_SELF_IN(func, MPI_ERR_WIN, "invalid window");
    if (!size || !disp_unit || !baseptr)
        CH4_FAIL_WIN_IN(func, win, MPI_ERR_ARG, "size, disp_unit or baseptr is NULL");
    if (rank != MPI_PROC_NULL && (rank < 0 || rank >= w->nranks()))
        CH4_FAIL_WIN_IN(func, win, MPI_ERR_RANK, "invalid rank %d: must be in [0, %d) or MPI_PROC_NULL",
                        rank, w->nranks());
    if (rank == MPI_PROC_NULL) {  // the lowest rank with memory
        rank = -1;
        for (int r = 0; r < w->nranks() && rank < 0; ++r)
            if (w->peers[static_cast<std::size_t>(r)].size > 0) rank = r;
    }
    void* base = nullptr;
    uint64_t bytes = 0;
    int64_t unit = 1;
    if (rank >= 0 && w->fl != rma::flavor::dynamic) {
        const auto i = static_cast<std::size_t>(rank);
        base = rank == w->rank() ? static_cast<void*>(w->base) : static_cast<void*>(w->direct_base[i]);
        if (base) {
            bytes = w->peers[i].size;
            unit = w->peers[i].disp_unit;
            // A member that gave no memory has no base address (NULL, as
            // MPICH returns: rma/win_shared_noncontig_put checks it).
            if (bytes == 0) base = nullptr;
        }
    }
    *size = static_cast<MPI_Aint>(bytes);
    *disp_unit = static_cast<Disp>(unit);
    *static_cast<void**>(baseptr) = base;
    return MPI_SUCCESS;
}

}  // namespace

extern "C" {

CH4_PMPI(MPI_Win_create)
int MPI_Win_create(void* base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                   MPI_Win* win) {
    CH4_API_LOCK();
    // no window info keys are interpreted
    return create_impl(__func__, base, size, disp_unit, info, comm, win);
}

CH4_PMPI(MPI_Win_create_c)
int MPI_Win_create_c(void* base, MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm,
                     MPI_Win* win) {
    CH4_API_LOCK();
    return create_impl(__func__, base, size, disp_unit, info, comm, win);
}

CH4_PMPI(MPI_Win_allocate)
int MPI_Win_allocate(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void* baseptr,
                     MPI_Win* win) {
    CH4_API_LOCK();
    return allocate_impl(__func__, size, disp_unit, info, comm, baseptr, win);
}

CH4_PMPI(MPI_Win_allocate_c)
int MPI_Win_allocate_c(MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm,
                       void* baseptr, MPI_Win* win) {
    CH4_API_LOCK();
    return allocate_impl(__func__, size, disp_unit, info, comm, baseptr, win);
}

CH4_PMPI(MPI_Win_allocate_shared)
int MPI_Win_allocate_shared(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void* baseptr,
                            MPI_Win* win) {
    CH4_API_LOCK();
    return allocate_shared_impl(__func__, size, disp_unit, info, comm, baseptr, win);
}

CH4_PMPI(MPI_Win_allocate_shared_c)
int MPI_Win_allocate_shared_c(MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm,
                              void* baseptr, MPI_Win* win) {
    CH4_API_LOCK();
    return allocate_shared_impl(__func__, size, disp_unit, info, comm, baseptr, win);
}

CH4_PMPI(MPI_Win_shared_query)
int MPI_Win_shared_query(MPI_Win win, int rank, MPI_Aint* size, int* disp_unit, void* baseptr) {
    CH4_API_LOCK();
    return shared_query_impl(__func__, win, rank, size, disp_unit, baseptr);
}

CH4_PMPI(MPI_Win_shared_query_c)
int MPI_Win_shared_query_c(MPI_Win win, int rank, MPI_Aint* size, MPI_Aint* disp_unit, void* baseptr) {
    CH4_API_LOCK();
    return shared_query_impl(__func__, win, rank, size, disp_unit, baseptr);
}

CH4_PMPI(MPI_Win_create_dynamic)
int MPI_Win_create_dynamic(MPI_Info info, MPI_Comm comm, MPI_Win* win) {
    CH4_API_LOCK();
    CH4_REQUIRE_INIT();
    dev::comm* c = nullptr;
    if (int rc = check_create(__func__, 0, 1, info, comm, win, c)) return rc;
    rma::win* w = nullptr;
    const status s = rma::win_create_dynamic(*c, w);
    if (s != status::ok)
        CH4_FAIL(comm, api::class_of(s), "cannot create the window: %s", to_string(s));
    api::win_hints(*w, info);
    *win = reinterpret_cast<MPI_Win>(w->handle);
    return MPI_SUCCESS;
}

CH4_PMPI(MPI_Win_attach)
int MPI_Win_attach(MPI_Win win, void* base, MPI_Aint size) {
    CH4_API_LOCK();
    CH4_REQUIRE_INIT();
    rma::win* w = api::lookup_win(win);
    if (!w) CH4_FAIL_SELF(MPI_ERR_WIN, "invalid window");
    if (w->fl != rma::flavor::dynamic)
        CH4_FAIL_WIN(win, MPI_ERR_RMA_FLAVOR, "the window was not made by MPI_Win_create_dynamic");
    if (size < 0) CH4_FAIL_WIN(win, MPI_ERR_SIZE, "invalid size %ld: must be >= 0", static_cast<long>(size));
    if (!base && size > 0) CH4_FAIL_WIN(win, MPI_ERR_ARG, "base is NULL but size is %ld", static_cast<long>(size));
    const status s = rma::attach(*w, base, static_cast<uint64_t>(size));
    if (s == status::invalid)
        CH4_FAIL_WIN(win, MPI_ERR_RMA_ATTACH,
                     "[%p, +%ld) overlaps a region attached to this window already", base,
                     static_cast<long>(size));
    if (s != status::ok) CH4_FAIL_WIN(win, api::class_of(s), "cannot attach the region");
    return MPI_SUCCESS;
}

CH4_PMPI(MPI_Win_detach)
int MPI_Win_detach(MPI_Win win, const void* base) {
    CH4_API_LOCK();
    CH4_REQUIRE_INIT();
    rma::win* w = api::lookup_win(win);
    if (!w) CH4_FAIL_SELF(MPI_ERR_WIN, "invalid window");
    if (w->fl != rma::flavor::dynamic)
        CH4_FAIL_WIN(win, MPI_ERR_RMA_FLAVOR, "the window was not made by MPI_Win_create_dynamic");
    if (rma::detach(*w, base) != status::ok)
        CH4_FAIL_WIN(win, MPI_ERR_RMA_ATTACH, "no region attached at %p", base);
    return MPI_SUCCESS;
}

CH4_PMPI(MPI_Win_free)
int MPI_Win_free(MPI_Win* win) {
    CH4_API_LOCK();
    CH4_REQUIRE_INIT();
    if (!win) CH4_FAIL_SELF(MPI_ERR_ARG, "win is NULL");
    rma::win* w = api::lookup_win(*win);
    if (!w) CH4_FAIL_SELF(MPI_ERR_WIN, "invalid window");
    if (w->async || w->exposed)
        CH4_FAIL_WIN(*win, MPI_ERR_RMA_SYNC, "a %s is open: close it before MPI_Win_free",
                     w->lock_all || w->nlocked ? "passive-target epoch (a lock is held)"
                     : w->exposed ? "PSCW exposure epoch (MPI_Win_post)"
                                  : "PSCW access epoch (MPI_Win_start)");
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
