// SPDX-License-Identifier: MIT
// Attribute caching on communicators: MPI_Comm_create_keyval /
// free_keyval / set_attr / get_attr / delete_attr, the predefined
// attributes (MPI_TAG_UB, MPI_HOST, MPI_IO, MPI_WTIME_IS_GLOBAL,
// MPI_APPNUM, MPI_UNIVERSE_SIZE, MPI_LASTUSEDCODE, on every communicator),
// and the copy / delete callbacks. The ABI's callback sentinels are values,
// not functions: NULL_COPY_FN = 0, DUP_FN = 1, NULL_DELETE_FN = 0.
#include "api/comm_attr.hpp"

#include "api/attr_ops.hpp"

#include <cstdint>
#include <new>

#include "api/errors.hpp"
#include "api/errors_user.hpp"
#include "api/handles.hpp"
#include "device/attr.hpp"
#include "device/device.hpp"

using namespace ch4lite;

namespace ch4lite::api {

namespace {

bool predefined_keyval(int k) noexcept { return k >= MPI_TAG_UB && k <= MPI_UNIVERSE_SIZE; }

// Values the predefined attributes point to (MPI hands out their address).
int g_tag_ub, g_host, g_io, g_wtime_global, g_appnum, g_lastcode, g_universe;

int* predefined_value(int k) noexcept {
    g_tag_ub = dev::tag_ub;
    g_host = MPI_PROC_NULL;  // no process is "the host"
    g_io = MPI_ANY_SOURCE;   // every process can do I/O
    g_wtime_global = 0;      // clocks are per node
    g_appnum = dev::g_dev.boot.appnum();
    g_lastcode = last_used_code();
    g_universe = dev::g_dev.world_size;
    switch (k) {
        case MPI_TAG_UB: return &g_tag_ub;
        case MPI_HOST: return &g_host;
        case MPI_IO: return &g_io;
        case MPI_WTIME_IS_GLOBAL: return &g_wtime_global;
        case MPI_APPNUM: return &g_appnum;
        case MPI_LASTUSEDCODE: return &g_lastcode;
        case MPI_UNIVERSE_SIZE: return &g_universe;
        default: return nullptr;
    }
}

// A live communicator keyval (also one the user freed while attributes
// still use it: those keep working, MPI-4.1 §7.7.2), or nullptr.
dev::keyval* comm_keyval_of(int k) noexcept {
    dev::keyval* kv = dev::keyval_lookup(k);
    return kv && kv->kind == dev::attr_kind::comm ? kv : nullptr;
}

// The delete callback of keyval k for `value` on communicator h.
auto deleter(const char* fn, MPI_Comm h) noexcept {
    return [fn, h](int k, void* value) noexcept -> int {
        dev::keyval* kv = dev::keyval_lookup(k);
        if (!kv || !kv->comm_delete) return MPI_SUCCESS;  // NULL_DELETE_FN
        return attr::callback_code(fn, "delete", kv->comm_delete(h, k, value, kv->extra_state));
    };
}

void* copy_fn_of(const dev::keyval& kv) noexcept { return reinterpret_cast<void*>(kv.comm_copy); }

}  // namespace

int attrs_copy(const char* fn, MPI_Comm old, dev::comm& from, dev::comm& to) noexcept {
    const auto nh = reinterpret_cast<MPI_Comm>(to.handle);
    const int rc = attr::copy_all(
        [&]() noexcept { return &from.attrs; }, [&]() noexcept { return &to.attrs; },
        [&](dev::keyval& kv, int k, void* in, void* out, int* flag) noexcept {
            return attr::callback_code(fn, "copy", kv.comm_copy(old, k, kv.extra_state, in, out, flag));
        },
        deleter(fn, nh), copy_fn_of);
    return rc == -1 ? error_code(MPI_ERR_NO_MEM, fn, "out of memory copying attributes") : rc;
}

int attrs_delete_all(const char* fn, MPI_Comm h, dev::comm& c) noexcept {
    return attr::delete_all([&]() noexcept { return &c.attrs; }, deleter(fn, h));
}

int comm_self_attrs_free() noexcept {
    if (!is_initialized()) return MPI_SUCCESS;
    dev::comm& self = dev::comm_self();
    auto list = [&]() noexcept { return &self.attrs; };
    // Every callback runs, also after one fails: the first error is
    // returned, the failed attribute dropped.
    int first = MPI_SUCCESS;
    while (true) {
        const int rc = attr::delete_all(list, deleter("MPI_Finalize", MPI_COMM_SELF));
        if (rc == MPI_SUCCESS) return first;
        if (first == MPI_SUCCESS) first = rc;
        const int k = self.attrs.back().keyval;  // the one that failed went back on top
        self.attrs.pop_back();
        dev::keyval_release(k);
    }
}

}  // namespace ch4lite::api

namespace ch4lite::api {

int comm_create_keyval(const char* fn, MPI_Comm_copy_attr_function* copy_fn,
                       MPI_Comm_delete_attr_function* delete_fn, int* comm_keyval,
                       void* extra_state) noexcept {
    CH4_REQUIRE_INIT_IN(fn);
    if (!comm_keyval) CH4_FAIL_SELF_IN(fn, MPI_ERR_ARG, "keyval (output) is NULL");
    dev::keyval kv;
    kv.kind = dev::attr_kind::comm;
    kv.comm_copy = copy_fn;
    kv.comm_delete = delete_fn;
    kv.extra_state = extra_state;
    const int h = dev::keyval_create(kv);
    if (!h) CH4_FAIL_SELF_IN(fn, MPI_ERR_NO_MEM, "out of memory or too many keyvals");
    *comm_keyval = h;
    return MPI_SUCCESS;
}

int comm_free_keyval(const char* fn, int* comm_keyval) noexcept {
    CH4_REQUIRE_INIT_IN(fn);
    if (!comm_keyval) CH4_FAIL_SELF_IN(fn, MPI_ERR_ARG, "keyval is NULL");
    if (predefined_keyval(*comm_keyval))
        CH4_FAIL_SELF_IN(fn, MPI_ERR_KEYVAL, "cannot free the predefined keyval %d", *comm_keyval);
    dev::keyval* kv = comm_keyval_of(*comm_keyval);
    if (!kv || kv->freed)
        CH4_FAIL_SELF_IN(fn, MPI_ERR_KEYVAL, "invalid communicator keyval %d%s", *comm_keyval,
                         kv ? ": it was freed already" : "");
    kv->freed = true;
    dev::keyval_release(*comm_keyval);  // attributes still set keep it alive
    *comm_keyval = MPI_KEYVAL_INVALID;
    return MPI_SUCCESS;
}

int comm_set_attr(const char* fn, MPI_Comm comm, int comm_keyval, void* attribute_val) noexcept {
    CH4_REQUIRE_INIT_IN(fn);
    dev::comm* c = lookup_comm(comm);
    if (!c) CH4_FAIL_IN(fn, comm, MPI_ERR_COMM, "invalid communicator");
    if (predefined_keyval(comm_keyval))
        CH4_FAIL_IN(fn, comm, MPI_ERR_KEYVAL, "the predefined attribute %d cannot be set",
                    comm_keyval);
    dev::keyval* kv = comm_keyval_of(comm_keyval);
    if (!kv) CH4_FAIL_IN(fn, comm, MPI_ERR_KEYVAL, "invalid communicator keyval %d", comm_keyval);
    const int rc = attr::set([c]() noexcept { return &c->attrs; }, *kv, comm_keyval,
                             attribute_val, deleter(fn, comm));
    if (rc == -1) CH4_FAIL_IN(fn, comm, MPI_ERR_NO_MEM, "out of memory storing the attribute");
    return rc == MPI_SUCCESS ? rc : raise(comm, rc);
}

int comm_get_attr(const char* fn, MPI_Comm comm, int comm_keyval, void* attribute_val,
                  int* flag) noexcept {
    CH4_REQUIRE_INIT_IN(fn);
    dev::comm* c = lookup_comm(comm);
    if (!c) CH4_FAIL_IN(fn, comm, MPI_ERR_COMM, "invalid communicator");
    if (!attribute_val || !flag)
        CH4_FAIL_IN(fn, comm, MPI_ERR_ARG, "attribute_val or flag is NULL");
    if (int* v = predefined_value(comm_keyval)) {
        *static_cast<void**>(attribute_val) = v;
        *flag = 1;
        return MPI_SUCCESS;
    }
    if (!comm_keyval_of(comm_keyval))
        CH4_FAIL_IN(fn, comm, MPI_ERR_KEYVAL, "invalid communicator keyval %d", comm_keyval);
    const dev::attr_entry* e = dev::attr_find(c->attrs, comm_keyval);
    *flag = e != nullptr;
    if (e) *static_cast<void**>(attribute_val) = e->value;
    return MPI_SUCCESS;
}

int comm_delete_attr(const char* fn, MPI_Comm comm, int comm_keyval) noexcept {
    CH4_REQUIRE_INIT_IN(fn);
    dev::comm* c = lookup_comm(comm);
    if (!c) CH4_FAIL_IN(fn, comm, MPI_ERR_COMM, "invalid communicator");
    if (predefined_keyval(comm_keyval))
        CH4_FAIL_IN(fn, comm, MPI_ERR_KEYVAL, "the predefined attribute %d cannot be deleted",
                    comm_keyval);
    if (!comm_keyval_of(comm_keyval))
        CH4_FAIL_IN(fn, comm, MPI_ERR_KEYVAL, "invalid communicator keyval %d", comm_keyval);
    if (dev::attr_find(c->attrs, comm_keyval)) {
        const int rc = attr::delete_one([c]() noexcept { return &c->attrs; }, comm_keyval,
                                        deleter(fn, comm));
        return rc == MPI_SUCCESS ? rc : raise(comm, rc);
    }
    CH4_FAIL_IN(fn, comm, MPI_ERR_KEYVAL, "no attribute is set for keyval %d on this communicator",
                comm_keyval);
}

}  // namespace ch4lite::api

extern "C" {

CH4_PMPI(MPI_Comm_create_keyval)
int MPI_Comm_create_keyval(MPI_Comm_copy_attr_function* copy_fn,
                           MPI_Comm_delete_attr_function* delete_fn, int* comm_keyval,
                           void* extra_state) {
    CH4_API_LOCK();
    return api::comm_create_keyval(__func__, copy_fn, delete_fn, comm_keyval, extra_state);
}

CH4_PMPI(MPI_Comm_free_keyval)
int MPI_Comm_free_keyval(int* comm_keyval) { CH4_API_LOCK(); return api::comm_free_keyval(__func__, comm_keyval); }

CH4_PMPI(MPI_Comm_set_attr)
int MPI_Comm_set_attr(MPI_Comm comm, int comm_keyval, void* attribute_val) {
    CH4_API_LOCK();
    return api::comm_set_attr(__func__, comm, comm_keyval, attribute_val);
}

CH4_PMPI(MPI_Comm_get_attr)
int MPI_Comm_get_attr(MPI_Comm comm, int comm_keyval, void* attribute_val, int* flag) {
    CH4_API_LOCK();
    return api::comm_get_attr(__func__, comm, comm_keyval, attribute_val, flag);
}

CH4_PMPI(MPI_Comm_delete_attr)
int MPI_Comm_delete_attr(MPI_Comm comm, int comm_keyval) {
    CH4_API_LOCK();
    return api::comm_delete_attr(__func__, comm, comm_keyval);
}

}  // extern "C"
