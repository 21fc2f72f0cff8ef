// SPDX-License-Identifier: MIT
// MPI_Init / Init_thread / Initialized / Finalize / Finalized / Query_thread /
// Is_thread_main / Abort.
#include <pthread.h>

#include <cstdio>
#include <string>

#include "api/comm_attr.hpp"
#include "api/datatype_f90.hpp"
#include "api/errhandler.hpp"
#include "api/errors.hpp"
#include "api/handles.hpp"
#include "device/comm.hpp"
#include "device/async_progress.hpp"
#include "device/device.hpp"

using namespace ch4lite;

namespace {
pthread_t g_main_thread;

int init_impl(const char* func, int required, int* provided) {
    if (dev::g_dev.initialized || dev::g_dev.finalized)
        return api::raise_self(api::error_code(MPI_ERR_OTHER, func, "MPI is already %s",
                                               dev::g_dev.finalized ? "finalized" : "initialized"));
    if (required != MPI_THREAD_SINGLE && required != MPI_THREAD_FUNNELED &&
        required != MPI_THREAD_SERIALIZED && required != MPI_THREAD_MULTIPLE) {
        std::fprintf(stderr, "ch4lite: %s: invalid thread level %d\n", func, required);
        return MPI_ERR_ARG;
    }
    int prov = MPI_THREAD_SINGLE;
    std::string error;
    const status s = dev::init(required, prov, error);
    if (s != status::ok) {
        std::fprintf(stderr, "ch4lite: %s failed: %s\n", func, error.c_str());
        dev::abort_job(1, error.c_str());
    }
    // MPI_COMM_WORLD and MPI_COMM_SELF start with the initial error handler
    // (mpiexec -initial-errhandler; MPI-4.1 §9.3).
    dev::comm_world().errhandler = api::initial_errhandler();
    dev::comm_self().errhandler = api::initial_errhandler();
    g_main_thread = pthread_self();
    // From here every MPI call takes the lock (util/api_lock.hpp); this
    // call's own guard read it off and releases nothing.
    if (prov == MPI_THREAD_MULTIPLE || dev::g_dev.async_progress) util::api_lock_enable(true);
    if (dev::g_dev.async_progress) dev::async_progress_start();
    if (provided) *provided = prov;
    return MPI_SUCCESS;
}
}  // namespace

extern "C" {

CH4_PMPI(MPI_Init)
int MPI_Init(int* argc, char*** argv) {
    CH4_API_LOCK();
    (void)argc;
    (void)argv;
    return init_impl(__func__, MPI_THREAD_SINGLE, nullptr);
}

CH4_PMPI(MPI_Init_thread)
int MPI_Init_thread(int* argc, char*** argv, int required, int* provided) {
    CH4_API_LOCK();
    (void)argc;
    (void)argv;
    return init_impl(__func__, required, provided);
}

CH4_PMPI(MPI_Initialized)
int MPI_Initialized(int* flag) {
    CH4_API_LOCK();
    if (!flag) CH4_FAIL_ANYTIME(MPI_ERR_ARG, "flag (output) is NULL");
    *flag = dev::g_dev.initialized ? 1 : 0;
    return MPI_SUCCESS;
}

CH4_PMPI(MPI_Finalized)
int MPI_Finalized(int* flag) {
    CH4_API_LOCK();
    if (!flag) CH4_FAIL_ANYTIME(MPI_ERR_ARG, "flag (output) is NULL");
    *flag = dev::g_dev.finalized ? 1 : 0;
    return MPI_SUCCESS;
}

CH4_PMPI(MPI_Query_thread)
int MPI_Query_thread(int* provided) {
    CH4_API_LOCK();
    CH4_REQUIRE_INIT();
    if (!provided) CH4_FAIL_SELF(MPI_ERR_ARG, "provided (output) is NULL");
    *provided = dev::g_dev.thread_level;
    return MPI_SUCCESS;
}

CH4_PMPI(MPI_Is_thread_main)
int MPI_Is_thread_main(int* flag) {
    CH4_API_LOCK();
    CH4_REQUIRE_INIT();
    if (!flag) CH4_FAIL_SELF(MPI_ERR_ARG, "flag (output) is NULL");
    *flag = pthread_equal(pthread_self(), g_main_thread) ? 1 : 0;
    return MPI_SUCCESS;
}

CH4_PMPI(MPI_Finalize)
int MPI_Finalize(void) {
    CH4_API_LOCK();
    CH4_REQUIRE_INIT();
    // MPI_COMM_SELF's attributes go first, while all of MPI still works
    // (MPI-4.1 §11.2.4); an error of a callback is raised on MPI_COMM_SELF
    // and returned once MPI is finalized.
    const int self_rc = api::comm_self_attrs_free();
    if (self_rc != MPI_SUCCESS) (void)api::raise_self(self_rc);
    api::dt::f90_release_all();
    // The progress thread goes first; it only try-locks, so it ends while
    // this call holds the lock.
    dev::async_progress_stop();
    const status s = dev::finalize();
    // No MPI call may follow but the few allowed after MPI_Finalize, which
    // need no lock; this call's guard still releases the one it took.
    util::api_lock_enable(false);
    if (s != status::ok) {
        // The runtime is already down: report on stderr and return the class.
        std::fprintf(stderr, "ch4lite: MPI_Finalize: %s\n", to_string(s));
        return api::class_of(s);
    }
    return self_rc;
}

CH4_PMPI(MPI_Abort)
int MPI_Abort(MPI_Comm comm, int errorcode) {
    CH4_API_LOCK();
    char msg[128];
    // Printed once: by our mpiexec in its banner, else by abort_job.
    std::snprintf(msg, sizeof msg, "MPI_Abort(%s, %d)",
                  comm == MPI_COMM_WORLD ? "MPI_COMM_WORLD" : comm == MPI_COMM_SELF ? "MPI_COMM_SELF" : "comm",
                  errorcode);
    // Exit statuses are 8 bits; keep a non-zero code non-zero.
    int code = errorcode & 0xff;
    if (code == 0 && errorcode != 0) code = 1;
    dev::abort_job(code, msg);
}

}  // extern "C"
