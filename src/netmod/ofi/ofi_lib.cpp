// SPDX-License-Identifier: MIT
// libfabric, loaded at run time (ofi_lib.hpp).
#include "netmod/ofi/ofi_lib.hpp"

#include <dlfcn.h>

#include <cstring>

#include "util/env.hpp"
#include "util/signals.hpp"

namespace ch4lite::nm::ofi::lib {

api fns{};

namespace {

void* g_handle = nullptr;

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
    const char* file = util::env_str("CH4LITE_OFI_LIB", "libfabric.so.1");
    void* h = nullptr;
    {
        // libinfinipath (libfabric's psm provider) installs signal handlers
        // as it loads: keep the program's.
        const util::psm_signal_guard keep;
        h = ::dlopen(file, RTLD_NOW | RTLD_LOCAL);
    }
    if (!h) {
        const char* e = ::dlerror();
        why.assign("cannot load ").append(file).append(": ").append(e ? e : "unknown error");
        return false;
    }
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

const char* strerror(int err) { return fns.strerror ? fns.strerror(err) : std::strerror(err); }

}  // namespace ch4lite::nm::ofi::lib
