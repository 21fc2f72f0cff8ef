// SPDX-License-Identifier: MIT
// Window error handlers: raise_win (errors.hpp) and MPI_Win_create /
// set / get / call_errhandler. A window starts with MPI_ERRORS_ARE_FATAL
// (MPI 9.3: windows do not inherit the communicator's handler).
#include <new>

#include "api/errhandler.hpp"
#include "api/errors.hpp"
#include "api/win_common.hpp"

namespace ch4lite::api {

int raise_win(MPI_Win win, int code) noexcept {
    rma::win* w = lookup_win(win);
    if (!w) return raise_self(code);
    MPI_Win target = win;
    run_errhandler(w->errhandler, &target, true, code);
    return code;
}

}  // namespace ch4lite::api

using namespace ch4lite;

extern "C" {

CH4_PMPI(MPI_Win_create_errhandler)
int MPI_Win_create_errhandler(MPI_Win_errhandler_function* fn, MPI_Errhandler* errhandler) {
    CH4_API_LOCK();
    CH4_REQUIRE_INIT();
    if (!fn) CH4_FAIL_SELF(MPI_ERR_ARG, "win_errhandler_fn is NULL");
    if (!errhandler) CH4_FAIL_SELF(MPI_ERR_ARG, "errhandler (output) is NULL");
    auto* o = new (std::nothrow) api::errhandler_obj;
    if (!o) CH4_FAIL_SELF(MPI_ERR_NO_MEM, "cannot allocate an error handler");
    o->k = api::errhandler_obj::kind::win;
    o->win_fn = fn;
    *errhandler = api::errhandler_create(o);
    if (*errhandler == MPI_ERRHANDLER_NULL) {
        delete o;
        CH4_FAIL_SELF(MPI_ERR_NO_MEM, "out of memory or too many error handlers");
    }
    return MPI_SUCCESS;
}

CH4_PMPI(MPI_Win_set_errhandler)
int MPI_Win_set_errhandler(MPI_Win win, MPI_Errhandler errhandler) {
    CH4_API_LOCK();
    CH4_REQUIRE_INIT();
    rma::win* w = api::lookup_win(win);
    if (!w) CH4_FAIL_SELF(MPI_ERR_WIN, "invalid window");
    if (!api::errhandler_valid(errhandler))
        CH4_FAIL_WIN(win, MPI_ERR_ERRHANDLER, "invalid error handler: must be a predefined or created handler");
    api::errhandler_obj* o = api::lookup_errhandler(errhandler);
    if (o && o->k != api::errhandler_obj::kind::win)
        CH4_FAIL_WIN(win, MPI_ERR_ERRHANDLER, "error handler was not created for windows");
    api::errhandler_retain(errhandler);
    api::errhandler_release(w->errhandler);
    w->errhandler = errhandler;
    return MPI_SUCCESS;
}

CH4_PMPI(MPI_Win_get_errhandler)
int MPI_Win_get_errhandler(MPI_Win win, MPI_Errhandler* errhandler) {
    CH4_API_LOCK();
    CH4_REQUIRE_INIT();
    rma::win* w = api::lookup_win(win);
    if (!w) CH4_FAIL_SELF(MPI_ERR_WIN, "invalid window");
    if (!errhandler) CH4_FAIL_WIN(win, MPI_ERR_ARG, "errhandler (output) is NULL");
    api::errhandler_retain(w->errhandler);  // the caller frees it
    *errhandler = w->errhandler;
    return MPI_SUCCESS;
}

CH4_PMPI(MPI_Win_call_errhandler)
int MPI_Win_call_errhandler(MPI_Win win, int errorcode) {
    CH4_API_LOCK();
    CH4_REQUIRE_INIT();
    rma::win* w = api::lookup_win(win);
    if (!w) CH4_FAIL_SELF(MPI_ERR_WIN, "invalid window");
    MPI_Win target = win;
    api::run_errhandler(w->errhandler, &target, true, errorcode);
    return MPI_SUCCESS;
}

}  // extern "C"
