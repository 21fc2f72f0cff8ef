// SPDX-License-Identifier: MIT
// Debian's libfabric links libpsm_infinipath, whose libinfinipath installs
// handlers for SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGINT and SIGTERM
// that print a backtrace and exit(1). A rank that crashes must die *by its
// signal*, so that mpiexec (and Hydra) report "killed by signal 11" and exit
// 139, and a program's own handlers must stay in place.
// - libmpi loads libfabric itself only when a job needs the network
//   (netmod/ofi/ofi_lib.cpp), under a psm_signal_guard (signals.hpp).
// - A program that links libfabric itself has the library loaded before
//   main(). Our constructor runs after those of our dependencies and before
//   main(), so any such handler found there belongs to a library, never to
//   the program: for the fatal signals we put back the default where the
//   handler's code lives in libinfinipath or a libpsm* object.
// CH4LITE_KEEP_SIGNAL_HANDLERS=1 keeps them.
#include "util/signals.hpp"

#include <dlfcn.h>

#include <cstdlib>
#include <cstring>

namespace {

bool from_psm(void* fn) {
    Dl_info info;
    if (!fn || dladdr(fn, &info) == 0 || !info.dli_fname) return false;
    return std::strstr(info.dli_fname, "libinfinipath") || std::strstr(info.dli_fname, "libpsm");
}

bool keep_handlers() {
    const char* keep = std::getenv("CH4LITE_KEEP_SIGNAL_HANDLERS");
    return keep && *keep == '1';
}

void* handler_of(const struct sigaction& a) {
    return (a.sa_flags & SA_SIGINFO) ? reinterpret_cast<void*>(a.sa_sigaction)
                                     : reinterpret_cast<void*>(a.sa_handler);
}

// The signals libinfinipath takes; the first five are the fatal ones.
constexpr int guarded[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGINT, SIGTERM};
constexpr int n_fatal = 5;

// Installs `with` for sig if sig's handler now lives in libinfinipath or a
// libpsm* object.
void replace_psm_handler(int sig, const struct sigaction& with) {
    struct sigaction now {};
    if (sigaction(sig, nullptr, &now) == 0 && from_psm(handler_of(now))) sigaction(sig, &with, nullptr);
}

[[gnu::constructor]] void restore_fatal_signal_defaults() {
    if (keep_handlers()) return;
    struct sigaction dfl {};
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    for (int i = 0; i < n_fatal; ++i) replace_psm_handler(guarded[i], dfl);
}

}  // namespace

namespace ch4lite::util {

static_assert(sizeof guarded / sizeof guarded[0] == 7);

psm_signal_guard::psm_signal_guard() noexcept {
    for (int i = 0; i < n; ++i) valid_[i] = sigaction(guarded[i], nullptr, &before_[i]) == 0;
}

psm_signal_guard::~psm_signal_guard() {
    if (keep_handlers()) return;
    for (int i = 0; i < n; ++i)
        if (valid_[i]) replace_psm_handler(guarded[i], before_[i]);
}

}  // namespace ch4lite::util
