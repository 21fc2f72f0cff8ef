// SPDX-License-Identifier: MIT
// Info objects: MPI_Info_create, _dup, _free, _set, _get, _get_string,
// _get_valuelen, _delete, _get_nkeys, _get_nthkey, _create_env, and the
// predefined MPI_INFO_ENV (api/info_obj.hpp).
//
// Keys are at most MPI_MAX_INFO_KEY - 1 characters and values at most
// MPI_MAX_INFO_VAL - 1 (so each fits, with its terminating null, in an array
// of the constant's size, as C programs declare them; Open MPI's limits).
// The info functions may be called before MPI_Init and after
// MPI_Finalize (MPI-4.1 §11.4.1); errors then return their class.
#include "api/info_obj.hpp"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>
#include <new>

#include "api/errors.hpp"
#include "device/device.hpp"
#include "util/handle_table.hpp"

using namespace ch4lite;

namespace ch4lite::api {

namespace {

util::handle_table<info_obj, util::handle_kind::info> g_infos;
std::mutex g_info_lock;  // info objects may be used before MPI_Init, by any thread

// The environment keys of MPI-4.1 §11.4.2 we can tell: the command, its
// arguments, the job size, this host, the architecture, the working
// directory.
info_obj* make_env(int argc, char** argv) {
    auto* o = new (std::nothrow) info_obj;
    if (!o) return nullptr;
    try {
        std::vector<std::string> args;
        if (argv) {
            for (int i = 0; i < argc && argv[i]; ++i) args.emplace_back(argv[i]);
        } else {
            std::ifstream in("/proc/self/cmdline", std::ios::binary);
            std::string a;
            while (std::getline(in, a, '\0')) args.push_back(a);
        }
        if (!args.empty()) {
            o->kv.emplace_back("command", args[0]);
            std::string rest;
            for (std::size_t i = 1; i < args.size(); ++i) rest += (i > 1 ? " " : "") + args[i];
            if (args.size() > 1) o->kv.emplace_back("argv", rest);
        }
        // The same before MPI_Init, after it and after MPI_Finalize (MPICH
        // info/infocreateenv compares them): the launcher's job size
        // (PMI_SIZE; 1 for a singleton), which MPI_Init takes as the world.
        {
            long n = 1;
            if (dev::g_active) {
                n = dev::g_dev.world_size;
            } else if (const char* e = std::getenv("PMI_SIZE")) {
                char* end = nullptr;
                const long v = std::strtol(e, &end, 10);
                if (end != e && *end == '\0' && v > 0) n = v;
            }
            o->kv.emplace_back("maxprocs", std::to_string(n));
        }
        char host[256] = "";
        if (gethostname(host, sizeof host) == 0) {
            host[sizeof host - 1] = '\0';
            o->kv.emplace_back("host", host);
        }
#if defined(__x86_64__)
        o->kv.emplace_back("arch", "x86_64");
#elif defined(__aarch64__)
        o->kv.emplace_back("arch", "aarch64");
#endif
        char cwd[4096];
        if (getcwd(cwd, sizeof cwd)) o->kv.emplace_back("wdir", cwd);
        // No "thread_level": MPI-4.1 §11.4.2 defines it as the level
        // requested before the program started (a launcher option), which
        // mpiexec does not offer; the level MPI_Init_thread provides is not it.
    } catch (const std::bad_alloc&) {
        delete o;
        return nullptr;
    }
    return o;
}

// MPI_INFO_ENV, made at its first use and kept for the life of the process.
const info_obj* env_info() {
    static const info_obj* env = make_env(0, nullptr);
    return env;
}

info_obj* lookup_mutable(MPI_Info h) noexcept {
    return g_infos.lookup(reinterpret_cast<uintptr_t>(h));
}

}  // namespace

const std::string* info_obj::find(const char* key) const noexcept {
    for (const auto& p : kv)
        if (p.first == key) return &p.second;
    return nullptr;
}

bool lookup_info(MPI_Info h, const info_obj*& out) noexcept {
    if (h == MPI_INFO_NULL) {
        out = nullptr;
        return true;
    }
    if (h == MPI_INFO_ENV) {
        out = env_info();
        return out != nullptr;
    }
    std::lock_guard<std::mutex> g(g_info_lock);
    out = lookup_mutable(h);
    return out != nullptr;
}

bool info_get(MPI_Info h, const char* key, std::string& value) noexcept {
    const info_obj* o = nullptr;
    if (!lookup_info(h, o) || !o) return false;
    std::lock_guard<std::mutex> g(g_info_lock);
    const std::string* v = o->find(key);
    if (!v) return false;
    try {
        value = *v;
    } catch (const std::bad_alloc&) {
        return false;
    }
    return true;
}

MPI_Info info_make(std::vector<std::pair<std::string, std::string>> kv) noexcept {
    auto* o = new (std::nothrow) info_obj;
    if (!o) return MPI_INFO_NULL;
    o->kv = std::move(kv);
    std::lock_guard<std::mutex> g(g_info_lock);
    const uintptr_t h = g_infos.insert(o);
    if (!h) {
        delete o;
        return MPI_INFO_NULL;
    }
    return reinterpret_cast<MPI_Info>(h);
}

}  // namespace ch4lite::api

namespace {

// Info functions may run before MPI_Init and after MPI_Finalize: then an
// error returns its class (no handler can run), else it is raised on
// MPI_COMM_SELF with its message.
#define INFO_FAIL(func, cls, ...) \
    return api::is_initialized() ? api::raise_self(api::error_code((cls), (func), __VA_ARGS__)) : (cls)

// A created (not predefined) info object, for the functions that change or
// free one.
int writable(const char* func, MPI_Info info, api::info_obj*& out) {
    if (info == MPI_INFO_ENV)
        INFO_FAIL(func, MPI_ERR_INFO, "MPI_INFO_ENV is predefined and cannot be changed or freed");
    if (info == MPI_INFO_NULL) INFO_FAIL(func, MPI_ERR_INFO, "info is MPI_INFO_NULL");
    out = api::lookup_mutable(info);
    if (!out) INFO_FAIL(func, MPI_ERR_INFO, CH4_INFO_MSG, static_cast<void*>(info));
    return MPI_SUCCESS;
}

// Any readable info object (MPI_INFO_ENV or created).
int readable(const char* func, MPI_Info info, const api::info_obj*& out) {
    if (info == MPI_INFO_NULL) INFO_FAIL(func, MPI_ERR_INFO, "info is MPI_INFO_NULL");
    if (!api::lookup_info(info, out) || !out)
        INFO_FAIL(func, MPI_ERR_INFO, CH4_INFO_MSG, static_cast<void*>(info));
    return MPI_SUCCESS;
}

int check_key(const char* func, const char* key) {
    if (!key) INFO_FAIL(func, MPI_ERR_INFO_KEY, "key is NULL");
    const std::size_t n = strnlen(key, MPI_MAX_INFO_KEY);
    if (n == 0) INFO_FAIL(func, MPI_ERR_INFO_KEY, "key is empty");
    if (n >= MPI_MAX_INFO_KEY)
        INFO_FAIL(func, MPI_ERR_INFO_KEY, "key is longer than %d characters (MPI_MAX_INFO_KEY - 1)",
                  MPI_MAX_INFO_KEY - 1);
    return MPI_SUCCESS;
}

api::info_obj* new_obj(const char* func, MPI_Info* info, int& rc) {
    rc = MPI_SUCCESS;
    auto* o = new (std::nothrow) api::info_obj;
    uintptr_t h = 0;
    if (o) {
        std::lock_guard<std::mutex> g(api::g_info_lock);
        h = api::g_infos.insert(o);
    }
    if (!h) {
        delete o;
        rc = api::is_initialized()
                 ? api::raise_self(api::error_code(MPI_ERR_NO_MEM, func, "cannot allocate an info object"))
                 : MPI_ERR_NO_MEM;
        return nullptr;
    }
    *info = reinterpret_cast<MPI_Info>(h);
    return o;
}

}  // namespace

extern "C" {

CH4_PMPI(MPI_Info_create)
int MPI_Info_create(MPI_Info* info) {
    CH4_API_LOCK();
    if (!info) INFO_FAIL(__func__, MPI_ERR_ARG, "info (output) is NULL");
    int rc;
    new_obj(__func__, info, rc);
    return rc;
}

CH4_PMPI(MPI_Info_create_env)
int MPI_Info_create_env(int argc, char* argv[], MPI_Info* info) {
    CH4_API_LOCK();
    if (!info) INFO_FAIL(__func__, MPI_ERR_ARG, "info (output) is NULL");
    if (argc < 0) INFO_FAIL(__func__, MPI_ERR_ARG, "argc is %d: must be >= 0", argc);
    api::info_obj* env = api::make_env(argc, argv);
    if (!env) INFO_FAIL(__func__, MPI_ERR_NO_MEM, "cannot allocate an info object");
    int rc;
    api::info_obj* o = new_obj(__func__, info, rc);
    if (o) o->kv = std::move(env->kv);
    delete env;
    return rc;
}

CH4_PMPI(MPI_Info_dup)
int MPI_Info_dup(MPI_Info info, MPI_Info* newinfo) {
    CH4_API_LOCK();
    const api::info_obj* src;
    if (const int rc = readable(__func__, info, src)) return rc;
    if (!newinfo) INFO_FAIL(__func__, MPI_ERR_ARG, "newinfo (output) is NULL");
    auto* o = new (std::nothrow) api::info_obj;
    if (!o) INFO_FAIL(__func__, MPI_ERR_NO_MEM, "cannot allocate an info object");
    uintptr_t h = 0;
    {
        std::lock_guard<std::mutex> g(api::g_info_lock);
        try {
            o->kv = src->kv;
            h = api::g_infos.insert(o);
        } catch (const std::bad_alloc&) {
        }
    }
    if (!h) {
        delete o;
        INFO_FAIL(__func__, MPI_ERR_NO_MEM, "cannot allocate an info object");
    }
    *newinfo = reinterpret_cast<MPI_Info>(h);
    return MPI_SUCCESS;
}

CH4_PMPI(MPI_Info_free)
int MPI_Info_free(MPI_Info* info) {
    CH4_API_LOCK();
    if (!info) INFO_FAIL(__func__, MPI_ERR_ARG, "info is NULL");
    api::info_obj* o;
    if (const int rc = writable(__func__, *info, o)) return rc;
    {
        std::lock_guard<std::mutex> g(api::g_info_lock);
        api::g_infos.erase(reinterpret_cast<uintptr_t>(*info));
    }
    delete o;
    *info = MPI_INFO_NULL;
    return MPI_SUCCESS;
}

CH4_PMPI(MPI_Info_set)
int MPI_Info_set(MPI_Info info, const char* key, const char* value) {
    CH4_API_LOCK();
    api::info_obj* o;
    if (const int rc = writable(__func__, info, o)) return rc;
    if (const int rc = check_key(__func__, key)) return rc;
    if (!value) INFO_FAIL(__func__, MPI_ERR_INFO_VALUE, "value is NULL");
    if (strnlen(value, MPI_MAX_INFO_VAL) >= MPI_MAX_INFO_VAL)
        INFO_FAIL(__func__, MPI_ERR_INFO_VALUE,
                  "value of key \"%s\" is longer than %d characters (MPI_MAX_INFO_VAL - 1)", key,
                  MPI_MAX_INFO_VAL - 1);
    std::lock_guard<std::mutex> g(api::g_info_lock);
    try {
        for (auto& p : o->kv)
            if (p.first == key) {
                p.second = value;
                return MPI_SUCCESS;
            }
        o->kv.emplace_back(key, value);
    } catch (const std::bad_alloc&) {
        INFO_FAIL(__func__, MPI_ERR_NO_MEM, "cannot store key \"%s\"", key);
    }
    return MPI_SUCCESS;
}

CH4_PMPI(MPI_Info_delete)
int MPI_Info_delete(MPI_Info info, const char* key) {
    CH4_API_LOCK();
    api::info_obj* o;
    if (const int rc = writable(__func__, info, o)) return rc;
    if (const int rc = check_key(__func__, key)) return rc;
    std::lock_guard<std::mutex> g(api::g_info_lock);
    for (auto it = o->kv.begin(); it != o->kv.end(); ++it)
        if (it->first == key) {
            o->kv.erase(it);
            return MPI_SUCCESS;
        }
    INFO_FAIL(__func__, MPI_ERR_INFO_NOKEY, "no key \"%s\" in the info object", key);
}

CH4_PMPI(MPI_Info_get)
int MPI_Info_get(MPI_Info info, const char* key, int valuelen, char* value, int* flag) {
    CH4_API_LOCK();
    const api::info_obj* o;
    if (const int rc = readable(__func__, info, o)) return rc;
    if (const int rc = check_key(__func__, key)) return rc;
    if (valuelen < 0) INFO_FAIL(__func__, MPI_ERR_ARG, "valuelen is %d: must be >= 0", valuelen);
    if (!flag) INFO_FAIL(__func__, MPI_ERR_ARG, "flag (output) is NULL");
    std::lock_guard<std::mutex> g(api::g_info_lock);
    const std::string* v = o->find(key);
    *flag = v != nullptr;
    if (v) {
        if (!value) INFO_FAIL(__func__, MPI_ERR_ARG, "value (output) is NULL");
        // valuelen is one less than the space the caller has (MPI-4.1 §10).
        const std::size_t n = std::min(v->size(), static_cast<std::size_t>(valuelen));
        std::memcpy(value, v->data(), n);
        value[n] = '\0';
    }
    return MPI_SUCCESS;
}

CH4_PMPI(MPI_Info_get_string)
int MPI_Info_get_string(MPI_Info info, const char* key, int* buflen, char* value, int* flag) {
    CH4_API_LOCK();
    const api::info_obj* o;
    if (const int rc = readable(__func__, info, o)) return rc;
    if (const int rc = check_key(__func__, key)) return rc;
    if (!buflen || !flag) INFO_FAIL(__func__, MPI_ERR_ARG, "buflen or flag is NULL");
    if (*buflen < 0) INFO_FAIL(__func__, MPI_ERR_ARG, "*buflen is %d: must be >= 0", *buflen);
    std::lock_guard<std::mutex> g(api::g_info_lock);
    const std::string* v = o->find(key);
    *flag = v != nullptr;
    if (!v) return MPI_SUCCESS;
    // Up to *buflen - 1 characters and a null; *buflen becomes the value's
    // length plus one, so a first call with 0 tells the size (§10).
    if (*buflen > 0) {
        if (!value) INFO_FAIL(__func__, MPI_ERR_ARG, "value (output) is NULL");
        const std::size_t n = std::min(v->size(), static_cast<std::size_t>(*buflen - 1));
        std::memcpy(value, v->data(), n);
        value[n] = '\0';
    }
    *buflen = static_cast<int>(v->size()) + 1;
    return MPI_SUCCESS;
}

CH4_PMPI(MPI_Info_get_valuelen)
int MPI_Info_get_valuelen(MPI_Info info, const char* key, int* valuelen, int* flag) {
    CH4_API_LOCK();
    const api::info_obj* o;
    if (const int rc = readable(__func__, info, o)) return rc;
    if (const int rc = check_key(__func__, key)) return rc;
    if (!valuelen || !flag) INFO_FAIL(__func__, MPI_ERR_ARG, "valuelen or flag is NULL");
    std::lock_guard<std::mutex> g(api::g_info_lock);
    const std::string* v = o->find(key);
    *flag = v != nullptr;
    if (v) *valuelen = static_cast<int>(v->size());
    return MPI_SUCCESS;
}

CH4_PMPI(MPI_Info_get_nkeys)
int MPI_Info_get_nkeys(MPI_Info info, int* nkeys) {
    CH4_API_LOCK();
    const api::info_obj* o;
    if (const int rc = readable(__func__, info, o)) return rc;
    if (!nkeys) INFO_FAIL(__func__, MPI_ERR_ARG, "nkeys (output) is NULL");
    std::lock_guard<std::mutex> g(api::g_info_lock);
    *nkeys = static_cast<int>(o->kv.size());
    return MPI_SUCCESS;
}

CH4_PMPI(MPI_Info_get_nthkey)
int MPI_Info_get_nthkey(MPI_Info info, int n, char* key) {
    CH4_API_LOCK();
    const api::info_obj* o;
    if (const int rc = readable(__func__, info, o)) return rc;
    if (!key) INFO_FAIL(__func__, MPI_ERR_ARG, "key (output) is NULL");
    std::lock_guard<std::mutex> g(api::g_info_lock);
    if (n < 0 || static_cast<std::size_t>(n) >= o->kv.size())
        INFO_FAIL(__func__, MPI_ERR_ARG, "n is %d: must be in [0, %zu) (MPI_Info_get_nkeys)", n,
                  o->kv.size());
    const std::string& k = o->kv[static_cast<std::size_t>(n)].first;
    std::memcpy(key, k.c_str(), k.size() + 1);
    return MPI_SUCCESS;
}

}  // extern "C"

extern "C" {

// Handles are 31-bit integers by construction (util/handle.hpp), so the
// conversions are exact both ways (MPI-5.0 ABI).
CH4_PMPI(MPI_Info_toint)
int MPI_Info_toint(MPI_Info info) { CH4_API_LOCK(); return static_cast<int>(reinterpret_cast<uintptr_t>(info)); }
CH4_PMPI(MPI_Info_fromint)
MPI_Info MPI_Info_fromint(int info) {
    CH4_API_LOCK();
    return reinterpret_cast<MPI_Info>(static_cast<uintptr_t>(static_cast<unsigned>(info)));
}

}  // extern "C"
