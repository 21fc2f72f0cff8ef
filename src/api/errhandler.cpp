// SPDX-License-Identifier: MIT
// Error handlers: the handler table, running a handler, and the MPI functions
// that create, attach, query, call and free them.
#include "api/errhandler.hpp"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>

#include "api/errors.hpp"
#include "api/handles.hpp"
#include "device/comm.hpp"
#include "device/device.hpp"
#include "util/handle_table.hpp"

namespace ch4lite::api {

namespace {
util::handle_table<errhandler_obj, util::handle_kind::errhandler> g_errhandlers;

uintptr_t hval(MPI_Errhandler h) { return reinterpret_cast<uintptr_t>(h); }
}  // namespace

bool errhandler_is_builtin(MPI_Errhandler h) noexcept {
    return h == MPI_ERRORS_ARE_FATAL || h == MPI_ERRORS_ABORT || h == MPI_ERRORS_RETURN;
}
errhandler_obj* lookup_errhandler(MPI_Errhandler h) noexcept { return g_errhandlers.lookup(hval(h)); }
bool errhandler_valid(MPI_Errhandler h) noexcept {
    return errhandler_is_builtin(h) || lookup_errhandler(h) != nullptr;
}
void errhandler_retain(MPI_Errhandler h) noexcept {
    if (errhandler_obj* o = lookup_errhandler(h)) ++o->refs;
}
void errhandler_release(MPI_Errhandler h) noexcept {
    errhandler_obj* o = lookup_errhandler(h);
    if (o && --o->refs == 0) {
        g_errhandlers.erase(hval(h));
        delete o;
    }
}
MPI_Errhandler errhandler_create(errhandler_obj* obj) noexcept {
    const uintptr_t h = g_errhandlers.insert(obj);
    return h ? reinterpret_cast<MPI_Errhandler>(h) : MPI_ERRHANDLER_NULL;
}

void run_errhandler(MPI_Errhandler h, void* target, bool is_win, int code) noexcept {
    if (h == MPI_ERRORS_RETURN) return;
    if (errhandler_obj* o = lookup_errhandler(h)) {
        if (!is_win && o->comm_fn) o->comm_fn(static_cast<MPI_Comm*>(target), &code);
        if (is_win && o->win_fn) o->win_fn(static_cast<MPI_Win*>(target), &code);
        return;
    }
    // MPI_ERRORS_ARE_FATAL / MPI_ERRORS_ABORT: end the job with one
    // message, which the launcher prints (our mpiexec in its banner; under
    // others the rank prints it, dev::abort_job).
    char msg[MPI_MAX_ERROR_STRING + 640];
    int n = std::snprintf(msg, sizeof msg, "fatal error: %s -- ", text_of(code));
    if (n < 0 || static_cast<std::size_t>(n) >= sizeof msg) n = 0;
    (void)fatal_context(msg + n, sizeof msg - static_cast<std::size_t>(n), h, target, is_win);
    const int exit_code = class_of(code) > 0 && class_of(code) < 256 ? class_of(code) : 1;
    if (dev::g_dev.initialized && !dev::g_dev.finalized) dev::abort_job(exit_code, msg);
    char line[sizeof msg + 32];
    const int m = std::snprintf(line, sizeof line, "ch4lite: %s\n", msg);
    if (m > 0) {
        ssize_t w = ::write(2, line, static_cast<size_t>(m) < sizeof line ? m : sizeof line - 1);
        (void)w;
    }
    std::_Exit(exit_code);
}

}  // namespace ch4lite::api

using namespace ch4lite;

extern "C" {

CH4_PMPI(MPI_Comm_create_errhandler)
int MPI_Comm_create_errhandler(MPI_Comm_errhandler_function* fn, MPI_Errhandler* errhandler) {
    CH4_API_LOCK();
    CH4_REQUIRE_INIT();
    if (!fn) CH4_FAIL_SELF(MPI_ERR_ARG, "comm_errhandler_fn is NULL");
    if (!errhandler) CH4_FAIL_SELF(MPI_ERR_ARG, "errhandler (output) is NULL");
    auto* o = new (std::nothrow) api::errhandler_obj;
    if (!o) CH4_FAIL_SELF(MPI_ERR_NO_MEM, "cannot allocate an error handler");
    o->k = api::errhandler_obj::kind::comm;
    o->comm_fn = fn;
    *errhandler = api::errhandler_create(o);
    if (*errhandler == MPI_ERRHANDLER_NULL) {
        delete o;
        CH4_FAIL_SELF(MPI_ERR_NO_MEM, "out of memory or too many error handlers");
    }
    return MPI_SUCCESS;
}

CH4_PMPI(MPI_Comm_set_errhandler)
int MPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler) {
    CH4_API_LOCK();
    CH4_REQUIRE_INIT();
    dev::comm* c = api::lookup_comm(comm);
    if (!c) CH4_FAIL(comm, MPI_ERR_COMM, "invalid communicator");
    if (!api::errhandler_valid(errhandler))
        CH4_FAIL(comm, MPI_ERR_ERRHANDLER, "invalid error handler: must be a predefined or created handler");
    api::errhandler_obj* o = api::lookup_errhandler(errhandler);
    if (o && o->k != api::errhandler_obj::kind::comm)
        CH4_FAIL(comm, MPI_ERR_ERRHANDLER, "error handler was not created for communicators");
    api::errhandler_retain(errhandler);
    api::errhandler_release(c->errhandler);
    c->errhandler = errhandler;
    return MPI_SUCCESS;
}

CH4_PMPI(MPI_Comm_get_errhandler)
int MPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler* errhandler) {
    CH4_API_LOCK();
    CH4_REQUIRE_INIT();
    dev::comm* c = api::lookup_comm(comm);
    if (!c) CH4_FAIL(comm, MPI_ERR_COMM, "invalid communicator");
    if (!errhandler) CH4_FAIL(comm, MPI_ERR_ARG, "errhandler (output) is NULL");
    api::errhandler_retain(c->errhandler);  // the caller must free it (MPI 9.3)
    *errhandler = c->errhandler;
    return MPI_SUCCESS;
}

CH4_PMPI(MPI_Comm_call_errhandler)
int MPI_Comm_call_errhandler(MPI_Comm comm, int errorcode) {
    CH4_API_LOCK();
    CH4_REQUIRE_INIT();
    dev::comm* c = api::lookup_comm(comm);
    if (!c) CH4_FAIL(comm, MPI_ERR_COMM, "invalid communicator");
    MPI_Comm target = comm;
    api::run_errhandler(c->errhandler, &target, false, errorcode);
    return MPI_SUCCESS;
}

CH4_PMPI(MPI_Errhandler_free)
int MPI_Errhandler_free(MPI_Errhandler* errhandler) {
    CH4_API_LOCK();
    CH4_REQUIRE_INIT();
    if (!errhandler) CH4_FAIL_SELF(MPI_ERR_ARG, "errhandler is NULL");
    if (!api::errhandler_valid(*errhandler))
        CH4_FAIL_SELF(MPI_ERR_ERRHANDLER, "invalid error handler");
    api::errhandler_release(*errhandler);  // predefined handlers: no effect
    *errhandler = MPI_ERRHANDLER_NULL;
    return MPI_SUCCESS;
}

CH4_PMPI(MPI_Error_string)
int MPI_Error_string(int errorcode, char* string, int* resultlen) {
    CH4_API_LOCK();
    if (!string || !resultlen) CH4_FAIL_ANYTIME(MPI_ERR_ARG, "string or resultlen is NULL");
    if (!api::valid_code(errorcode)) CH4_FAIL_ANYTIME(MPI_ERR_ARG, "invalid error code %d", errorcode);
    const char* t = api::text_of(errorcode);
    std::snprintf(string, MPI_MAX_ERROR_STRING, "%s", t);
    *resultlen = static_cast<int>(std::strlen(string));
    return MPI_SUCCESS;
}

CH4_PMPI(MPI_Error_class)
int MPI_Error_class(int errorcode, int* errorclass) {
    CH4_API_LOCK();
    if (!errorclass) CH4_FAIL_ANYTIME(MPI_ERR_ARG, "errorclass is NULL");
    if (!api::valid_code(errorcode)) CH4_FAIL_ANYTIME(MPI_ERR_ARG, "invalid error code %d", errorcode);
    *errorclass = api::class_of(errorcode);
    return MPI_SUCCESS;
}

}  // extern "C"
