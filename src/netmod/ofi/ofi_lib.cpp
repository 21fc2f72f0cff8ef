// SPDX-License-Identifier: MIT
// libfabric, loaded at run time (ofi_lib.hpp).
#include "netmod/ofi/ofi_lib.hpp"

#include <dlfcn.h>

#include <chrono>
#include <cstring>

#include "netmod/ofi/ofi_fastload.hpp"
#include "util/env.hpp"
#include "util/log.hpp"
#include "util/signals.hpp"

namespace ch4lite::nm::ofi::lib {

api fns{};

namespace {

void* g_handle = nullptr;
fast::plan g_plan;
bool g_first_getinfo_done = false;

double ms_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

template <class F>
bool bind(void* h, const char* name, F& out, std::string& why) {
    out = reinterpret_cast<F>(::dlsym(h, name));
    if (!out) why.assign("it lacks ").append(name);
    return out != nullptr;
}

// The messages are built with append, not chains of operator+: with the
// standard headers precompiled (cmake/Ch4liteLibrary.cmake), GCC 12 reports
// its -Warray-bounds false positive on such chains from inside libstdc++.
std::string& add(std::string& s, uint32_t v) { return s.append(std::to_string(v)); }

}  // namespace

bool load(std::string& why) {
    if (g_handle) return true;
    const auto t0 = std::chrono::steady_clock::now();
    const char* file = util::env_str("CH4LITE_OFI_LIB", "libfabric.so.1");
    // Without a psm or psm2 adapter, libfabric binds to stand-ins of their
    // libraries instead of waiting 0.2 s for their constructors
    // (ofi_fastload.hpp).
    g_plan = fast::decide();
    std::string standin_why;
    bool standins = g_plan.psm_standins && fast::load_standins(standin_why);
    void* h = nullptr;
    {
        // libinfinipath (libfabric's psm provider) installs signal handlers
        // as it loads: keep the program's.
        const util::psm_signal_guard keep;
        h = ::dlopen(file, RTLD_NOW | RTLD_LOCAL);
        if (!h && standins) {
            // A libfabric that needs more of them than the stand-ins have:
            // the real libraries, then.
            const char* e = ::dlerror();
            standin_why.assign("libfabric refused them: ").append(e ? e : "?");
            fast::unload_standins();
            standins = false;
            h = ::dlopen(file, RTLD_NOW | RTLD_LOCAL);
        }
    }
    if (!h) {
        const char* e = ::dlerror();
        why.assign("cannot load ").append(file).append(": ").append(e ? e : "unknown error");
        return false;
    }
    util::verbose("ofi: %s loaded in %.1f ms (psm/psm2 libraries: %s%s%s)", file, ms_since(t0),
                  standins ? "stand-ins" : "real", standin_why.empty() ? "" : "; stand-ins not used: ",
                  standin_why.c_str());
    // dlsym gives each function's default version: the one a program linked
    // against this library gets. Its structures only ever grew at the end,
    // so the headers of an older release of the same major version read them
    // correctly; another major version may have changed them.
    uint32_t (*version)() = nullptr;
    api f{};
    std::string what;
    if (!bind(h, "fi_version", version, what) || !bind(h, "fi_getinfo", f.getinfo, what) ||
        !bind(h, "fi_freeinfo", f.freeinfo, what) || !bind(h, "fi_dupinfo", f.dupinfo, what) ||
        !bind(h, "fi_fabric", f.fabric, what) || !bind(h, "fi_strerror", f.strerror, what)) {
        why.assign(file).append(" is not libfabric: ").append(what);
        ::dlclose(h);
        return false;
    }
    const uint32_t v = version();
    if (FI_MAJOR(v) != FI_MAJOR_VERSION) {
        why.assign(file).append(" is libfabric ");
        add(add(why, FI_MAJOR(v)).append("."), FI_MINOR(v)).append("; ch4lite was built for major version ");
        add(why, FI_MAJOR_VERSION);
        ::dlclose(h);
        return false;
    }
    fns = f;
    g_handle = h;  // never closed: providers keep threads and handlers
    return true;
}

int getinfo(uint32_t version, const char* node, const char* service, uint64_t flags, const fi_info* hints,
            fi_info** info) {
    if (g_first_getinfo_done) return fns.getinfo(version, node, service, flags, hints, info);
    // The first call initializes every provider: verbs reads /proc/kallsyms
    // unless the host has no RDMA device and we hide it (ofi_fastload.hpp).
    g_first_getinfo_done = true;
    const auto t0 = std::chrono::steady_clock::now();
    int rc;
    bool hidden = false;
    if (g_plan.hide_kallsyms) {
        const fast::kallsyms_hidden hide(g_handle);
        hidden = hide.active();
        rc = fns.getinfo(version, node, service, flags, hints, info);
    } else {
        rc = fns.getinfo(version, node, service, flags, hints, info);
    }
    util::verbose("ofi: first fi_getinfo in %.1f ms (/proc/kallsyms %s, %d open(s) refused)", ms_since(t0),
                  hidden ? "hidden" : "visible", fast::kallsyms_hidden::refused());
    return rc;
}

const char* strerror(int err) { return fns.strerror ? fns.strerror(err) : std::strerror(err); }

}  // namespace ch4lite::nm::ofi::lib
