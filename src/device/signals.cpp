// SPDX-License-Identifier: MIT
// Debian's libfabric links libpsm_infinipath, whose libinfinipath installs
// handlers for SIGSEGV, SIGBUS, SIGILL, SIGFPE and SIGABRT that print a
// backtrace and exit(1). A rank that crashes must die *by its signal*, so
// that mpiexec (and Hydra) report "killed by signal 11" and exit 139. Our
// constructor runs after those of our dependencies and before main(), so any
// such handler found here belongs to a library, never to the program; we put
// back the default only for handlers whose code lives in libinfinipath or a
// libpsm* object.
// CH4LITE_KEEP_SIGNAL_HANDLERS=1 keeps them.
#include <dlfcn.h>
#include <signal.h>

#include <cstdlib>
#include <initializer_list>
#include <cstring>

namespace {

bool from_psm(void* fn) {
    Dl_info info;
    if (!fn || dladdr(fn, &info) == 0 || !info.dli_fname) return false;
    return std::strstr(info.dli_fname, "libinfinipath") || std::strstr(info.dli_fname, "libpsm");
}

[[gnu::constructor]] void restore_fatal_signal_defaults() {
    const char* keep = std::getenv("CH4LITE_KEEP_SIGNAL_HANDLERS");
    if (keep && *keep == '1') return;
    for (int sig : {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT}) {
        struct sigaction old {};
        if (sigaction(sig, nullptr, &old) != 0) continue;
        void* fn = (old.sa_flags & SA_SIGINFO) ? reinterpret_cast<void*>(old.sa_sigaction)
                                                : reinterpret_cast<void*>(old.sa_handler);
        if (fn == reinterpret_cast<void*>(SIG_DFL) || fn == reinterpret_cast<void*>(SIG_IGN)) continue;
        if (!from_psm(fn)) continue;
        struct sigaction dfl {};
        dfl.sa_handler = SIG_DFL;
        sigemptyset(&dfl.sa_mask);
        sigaction(sig, &dfl, nullptr);
    }
}

}  // namespace
