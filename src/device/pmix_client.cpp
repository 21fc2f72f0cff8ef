// SPDX-License-Identifier: MIT
// PMIx client (pmix_client.hpp). Only plain structure fields of pmix.h are
// used, never its macros: several of them call library functions, and
// libmpi does not link libpmix.
#include "device/pmix_client.hpp"

#include <dlfcn.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "util/env.hpp"

#if CH4LITE_HAVE_PMIX
#include <pmix.h>
#endif

namespace ch4lite::dev {

#if CH4LITE_HAVE_PMIX

namespace {

constexpr const char key_prefix[] = "ch4lite.";

struct api {
    decltype(&::PMIx_Init) init;
    decltype(&::PMIx_Finalize) finalize;
    decltype(&::PMIx_Abort) abort;
    decltype(&::PMIx_Put) put;
    decltype(&::PMIx_Commit) commit;
    decltype(&::PMIx_Fence) fence;
    decltype(&::PMIx_Get) get;
    decltype(&::PMIx_Value_destruct) value_destruct;
    decltype(&::PMIx_Error_string) error_string;
    decltype(&::PMIx_Get_version) get_version;
    decltype(&::PMIx_Register_event_handler) register_event_handler;
};

api g_fns{};
void* g_handle = nullptr;

template <class F>
bool bind(void* h, const char* name, F& out, std::string& missing) {
    out = reinterpret_cast<F>(::dlsym(h, name));
    if (!out) missing = name;
    return out != nullptr;
}

bool load(std::string& error) {
    if (g_handle) return true;
    const char* file = util::env_str("CH4LITE_PMIX_LIB", "libpmix.so.2");
    // LOCAL: its plugins link libpmix themselves.
    void* h = ::dlopen(file, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char* e = ::dlerror();
        error.assign("PMIx: cannot load ").append(file).append(": ").append(e ? e : "unknown error");
        return false;
    }
    api f{};
    std::string missing;
    if (!bind(h, "PMIx_Init", f.init, missing) || !bind(h, "PMIx_Finalize", f.finalize, missing) ||
        !bind(h, "PMIx_Abort", f.abort, missing) || !bind(h, "PMIx_Put", f.put, missing) ||
        !bind(h, "PMIx_Commit", f.commit, missing) || !bind(h, "PMIx_Fence", f.fence, missing) ||
        !bind(h, "PMIx_Get", f.get, missing) ||
        !bind(h, "PMIx_Value_destruct", f.value_destruct, missing) ||
        !bind(h, "PMIx_Error_string", f.error_string, missing) ||
        !bind(h, "PMIx_Get_version", f.get_version, missing) ||
        !bind(h, "PMIx_Register_event_handler", f.register_event_handler, missing)) {
        error.assign("PMIx: ").append(file).append(" lacks ").append(missing);
        ::dlclose(h);
        return false;
    }
    g_fns = f;
    g_handle = h;  // never closed: libpmix keeps a progress thread
    return true;
}

std::string say(const char* what, pmix_status_t rc) {
    return std::string("PMIx: ") + what + ": " + g_fns.error_string(rc);
}

void set_bool_info(pmix_info_t& info, const char* key, bool v) {
    std::memset(&info, 0, sizeof info);
    std::snprintf(info.key, sizeof info.key, "%s", key);
    info.value.type = PMIX_BOOL;
    info.value.data.flag = v;
}

void release(pmix_value_t* v) {
    if (!v) return;
    g_fns.value_destruct(v);
    std::free(v);
}

// The server (mpirun's orted, slurmstepd) went away: so has the job.
void lost_connection(size_t, pmix_status_t, const pmix_proc_t*, pmix_info_t*, size_t, pmix_info_t*,
                     size_t, pmix_event_notification_cbfunc_fn_t, void*) {
    static constexpr char msg[] = "ch4lite: the PMIx server (the launcher) is gone: ending this rank\n";
    ssize_t w = ::write(2, msg, sizeof msg - 1);
    (void)w;
    ::_exit(1);
}

}  // namespace

struct pmix_client::impl {
    pmix_proc_t me{};
};

pmix_client::~pmix_client() {
    // A PMIx job that did not finalize (error paths) still detaches.
    if (initialized_) {
        std::string e;
        (void)finalize(e);
    }
}

std::unique_ptr<pmix_client> pmix_client::create(std::string& error) {
    if (!load(error)) return nullptr;
    std::unique_ptr<pmix_client> c(new pmix_client());
    c->p_ = std::make_unique<impl>();
    pmix_proc_t& me = c->p_->me;
    pmix_status_t rc = g_fns.init(&me, nullptr, 0);
    if (rc != PMIX_SUCCESS) {
        error = say("PMIx_Init failed (is the PMIx server of the launcher reachable?)", rc);
        return nullptr;
    }
    c->initialized_ = true;
    c->rank_ = static_cast<int>(me.rank);
    pmix_proc_t wild{};
    std::memcpy(wild.nspace, me.nspace, sizeof wild.nspace);
    wild.rank = PMIX_RANK_WILDCARD;
    pmix_value_t* v = nullptr;
    rc = g_fns.get(&wild, PMIX_JOB_SIZE, nullptr, 0, &v);
    if (rc != PMIX_SUCCESS || !v || v->type != PMIX_UINT32) {
        error = rc != PMIX_SUCCESS ? say("cannot read the job size", rc) : "PMIx: job size is not a uint32";
        release(v);
        return nullptr;
    }
    c->size_ = static_cast<int>(v->data.uint32);
    release(v);
    v = nullptr;
    if (g_fns.get(&me, PMIX_APPNUM, nullptr, 0, &v) == PMIX_SUCCESS && v && v->type == PMIX_UINT32)
        c->appnum_ = static_cast<int>(v->data.uint32);
    release(v);
    if (c->rank_ < 0 || c->size_ < 1 || c->rank_ >= c->size_) {
        error = "PMIx: rank " + std::to_string(c->rank_) + " of size " + std::to_string(c->size_);
        return nullptr;
    }
    // "OpenPMIx 4.2.2rc2, repo rev: ..." -> "PMIx 4.2.2rc2".
    const char* ver = g_fns.get_version();
    std::string vs = ver ? ver : "";
    const std::size_t d = vs.find_first_of("0123456789");
    vs = d == std::string::npos ? std::string() : vs.substr(d, vs.find_first_of(" ,", d) - d);
    c->version_ = vs.empty() ? "PMIx" : "PMIx " + vs;
    pmix_status_t code = PMIX_ERR_LOST_CONNECTION;
    g_fns.register_event_handler(&code, 1, nullptr, 0, lost_connection, nullptr, nullptr);
    return c;
}

status pmix_client::put(const std::string& name, const void* data, std::size_t len,
                        std::string& error) {
    pmix_value_t v{};
    v.type = PMIX_BYTE_OBJECT;
    v.data.bo.bytes = const_cast<char*>(static_cast<const char*>(data));
    v.data.bo.size = len;
    const std::string key = key_prefix + name;
    if (pmix_status_t rc = g_fns.put(PMIX_GLOBAL, key.c_str(), &v); rc != PMIX_SUCCESS) {
        error = say("PMIx_Put failed", rc);
        return status::io;
    }
    return status::ok;
}

status pmix_client::fence(bool collect, std::string& error) {
    if (collect) {
        if (pmix_status_t rc = g_fns.commit(); rc != PMIX_SUCCESS) {
            error = say("PMIx_Commit failed", rc);
            return status::io;
        }
    }
    pmix_info_t info;
    set_bool_info(info, PMIX_COLLECT_DATA, true);
    const pmix_status_t rc = g_fns.fence(nullptr, 0, collect ? &info : nullptr, collect ? 1 : 0);
    if (rc != PMIX_SUCCESS) {
        error = say("PMIx_Fence failed", rc);
        return rc == PMIX_ERR_LOST_CONNECTION ? status::proc_failed : status::io;
    }
    return status::ok;
}

status pmix_client::get(int rank, const std::string& name, std::vector<std::byte>& out,
                        std::string& error) {
    pmix_proc_t p{};
    std::memcpy(p.nspace, p_->me.nspace, sizeof p.nspace);
    p.rank = static_cast<pmix_rank_t>(rank);
    // After a collecting fence the value is here or nowhere: never ask the
    // server to fetch it from the owner (which would wait for it).
    pmix_info_t info;
    set_bool_info(info, PMIX_OPTIONAL, true);
    pmix_value_t* v = nullptr;
    const std::string key = key_prefix + name;
    const pmix_status_t rc = g_fns.get(&p, key.c_str(), &info, 1, &v);
    if (rc == PMIX_ERR_NOT_FOUND) {
        release(v);
        return status::invalid;
    }
    if (rc != PMIX_SUCCESS || !v || v->type != PMIX_BYTE_OBJECT) {
        error = rc != PMIX_SUCCESS ? say("PMIx_Get failed", rc) : "PMIx: value is not a byte object";
        release(v);
        return status::io;
    }
    const auto* b = reinterpret_cast<const std::byte*>(v->data.bo.bytes);
    out.assign(b, b + v->data.bo.size);
    release(v);
    return status::ok;
}

bool pmix_client::node_map(std::vector<int>& node_of, int& num_nodes, std::string& error) {
    // The host of every rank, from the job data the server handed to the
    // local library (no round trip). PMIx_Resolve_peers would do too, but
    // deadlocks in libpmix 4.2.2 under Open MPI 4.1 when the job spans hosts.
    pmix_info_t info;
    set_bool_info(info, PMIX_OPTIONAL, true);
    pmix_proc_t p{};
    std::memcpy(p.nspace, p_->me.nspace, sizeof p.nspace);
    std::vector<std::string> hosts;
    node_of.assign(static_cast<std::size_t>(size_), 0);
    num_nodes = 0;
    for (int r = 0; r < size_; ++r) {
        p.rank = static_cast<pmix_rank_t>(r);
        pmix_value_t* v = nullptr;
        const pmix_status_t rc = g_fns.get(&p, PMIX_HOSTNAME, &info, 1, &v);
        if (rc != PMIX_SUCCESS || !v || v->type != PMIX_STRING || !v->data.string) {
            error = "PMIx: no host name for rank " + std::to_string(r) +
                    (rc != PMIX_SUCCESS ? std::string(" (") + g_fns.error_string(rc) + ")" : std::string());
            release(v);
            return false;
        }
        const std::string h = v->data.string;
        release(v);
        std::size_t id = 0;
        while (id < hosts.size() && hosts[id] != h) ++id;
        if (id == hosts.size()) hosts.push_back(h);
        node_of[static_cast<std::size_t>(r)] = static_cast<int>(id);
    }
    num_nodes = static_cast<int>(hosts.size());
    return true;
}

status pmix_client::finalize(std::string& error) {
    if (!initialized_) return status::ok;
    initialized_ = false;
    if (pmix_status_t rc = g_fns.finalize(nullptr, 0); rc != PMIX_SUCCESS) {
        error = say("PMIx_Finalize failed", rc);
        return status::io;
    }
    return status::ok;
}

void pmix_client::abort(int code, const char* message) noexcept {
    // Our whole namespace.
    pmix_proc_t all{};
    std::memcpy(all.nspace, p_->me.nspace, sizeof all.nspace);
    all.rank = PMIX_RANK_WILDCARD;
    g_fns.abort(code, message ? message : "", &all, 1);
}

#else  // !CH4LITE_HAVE_PMIX

struct pmix_client::impl {};

pmix_client::~pmix_client() = default;

std::unique_ptr<pmix_client> pmix_client::create(std::string& error) {
    error = "PMIx: this ch4lite was built without the PMIx headers (Debian: libpmix-dev)";
    return nullptr;
}
status pmix_client::put(const std::string&, const void*, std::size_t, std::string&) {
    return status::unsupported;
}
status pmix_client::fence(bool, std::string&) { return status::unsupported; }
status pmix_client::get(int, const std::string&, std::vector<std::byte>&, std::string&) {
    return status::unsupported;
}
bool pmix_client::node_map(std::vector<int>&, int&, std::string&) { return false; }
status pmix_client::finalize(std::string&) { return status::ok; }
void pmix_client::abort(int, const char*) noexcept {}

#endif

}  // namespace ch4lite::dev
