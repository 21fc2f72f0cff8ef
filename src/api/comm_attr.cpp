// SPDX-License-Identifier: MIT
// Attribute caching on communicators: MPI_Comm_create_keyval /
// free_keyval / set_attr / get_attr / delete_attr, the predefined
// attributes (MPI_TAG_UB, MPI_HOST, MPI_IO, MPI_WTIME_IS_GLOBAL,
// MPI_APPNUM, MPI_UNIVERSE_SIZE, MPI_LASTUSEDCODE, on every communicator),
// and the copy / delete callbacks. The ABI's callback sentinels are values,
// not functions: NULL_COPY_FN = 0, DUP_FN = 1, NULL_DELETE_FN = 0.
#include "api/comm_attr.hpp"

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

dev::keyval* comm_keyval(int k) noexcept {
    dev::keyval* kv = dev::keyval_lookup(k);
    return kv && kv->kind == dev::attr_kind::comm && !kv->freed ? kv : nullptr;
}

int call_delete(MPI_Comm h, int k, void* value) noexcept {
    dev::keyval* kv = dev::keyval_lookup(k);
    if (!kv || !kv->comm_delete) return MPI_SUCCESS;  // NULL_DELETE_FN
    return kv->comm_delete(h, k, value, kv->extra_state);
}

// Deletes entry i of c's attributes: callback, then removal.
int delete_entry(MPI_Comm h, dev::comm& c, std::size_t i) noexcept {
    const dev::attr_entry e = c.attrs[i];
    if (const int rc = call_delete(h, e.keyval, e.value); rc != MPI_SUCCESS) return rc;
    c.attrs.erase(c.attrs.begin() + static_cast<std::ptrdiff_t>(i));
    dev::keyval_release(e.keyval);
    return MPI_SUCCESS;
}

}  // namespace

int attrs_copy(const char* fn, MPI_Comm old, dev::comm& from, dev::comm& to) noexcept {
    const auto nh = reinterpret_cast<MPI_Comm>(to.handle);
    for (const dev::attr_entry& e : from.attrs) {
        dev::keyval* kv = dev::keyval_lookup(e.keyval);
        if (!kv) continue;
        const auto fnv = reinterpret_cast<uintptr_t>(kv->comm_copy);
        if (fnv == 0) continue;  // MPI_COMM_NULL_COPY_FN
        void* out = nullptr;
        int flag = 0;
        if (fnv == 1) {  // MPI_COMM_DUP_FN
            out = e.value;
            flag = 1;
        } else if (const int rc = kv->comm_copy(old, e.keyval, kv->extra_state, e.value, &out, &flag);
                   rc != MPI_SUCCESS) {
            (void)attrs_delete_all(nh, to);
            return rc;
        }
        if (!flag) continue;
        try {
            to.attrs.push_back({e.keyval, out});
        } catch (const std::bad_alloc&) {
            (void)attrs_delete_all(nh, to);
            return error_code(MPI_ERR_NO_MEM, fn, "out of memory copying attributes");
        }
        ++kv->refs;
    }
    return MPI_SUCCESS;
}

int attrs_delete_all(MPI_Comm h, dev::comm& c) noexcept {
    while (!c.attrs.empty())
        if (const int rc = delete_entry(h, c, c.attrs.size() - 1); rc != MPI_SUCCESS) return rc;
    return MPI_SUCCESS;
}

int comm_self_attrs_free() noexcept {
    if (!is_initialized()) return MPI_SUCCESS;
    return attrs_delete_all(MPI_COMM_SELF, dev::comm_self());
}

}  // namespace ch4lite::api

extern "C" {

CH4_PMPI(MPI_Comm_create_keyval)
int MPI_Comm_create_keyval(MPI_Comm_copy_attr_function* copy_fn,
                           MPI_Comm_delete_attr_function* delete_fn, int* comm_keyval,
                           void* extra_state) {
    CH4_REQUIRE_INIT();
    if (!comm_keyval) CH4_FAIL_SELF(MPI_ERR_ARG, "comm_keyval (output) is NULL");
    dev::keyval kv;
    kv.kind = dev::attr_kind::comm;
    kv.comm_copy = copy_fn;
    kv.comm_delete = delete_fn;
    kv.extra_state = extra_state;
    const int h = dev::keyval_create(kv);
    if (!h) CH4_FAIL_SELF(MPI_ERR_NO_MEM, "out of memory or too many keyvals");
    *comm_keyval = h;
    return MPI_SUCCESS;
}

CH4_PMPI(MPI_Comm_free_keyval)
int MPI_Comm_free_keyval(int* comm_keyval) {
    CH4_REQUIRE_INIT();
    if (!comm_keyval) CH4_FAIL_SELF(MPI_ERR_ARG, "comm_keyval is NULL");
    if (api::predefined_keyval(*comm_keyval))
        CH4_FAIL_SELF(MPI_ERR_KEYVAL, "cannot free the predefined keyval %d", *comm_keyval);
    if (!api::comm_keyval(*comm_keyval))
        CH4_FAIL_SELF(MPI_ERR_KEYVAL, "invalid communicator keyval %d", *comm_keyval);
    dev::keyval_lookup(*comm_keyval)->freed = true;
    dev::keyval_release(*comm_keyval);  // attributes still set keep it alive
    *comm_keyval = MPI_KEYVAL_INVALID;
    return MPI_SUCCESS;
}

CH4_PMPI(MPI_Comm_set_attr)
int MPI_Comm_set_attr(MPI_Comm comm, int comm_keyval, void* attribute_val) {
    CH4_REQUIRE_INIT();
    dev::comm* c = api::lookup_comm(comm);
    if (!c) CH4_FAIL(comm, MPI_ERR_COMM, "invalid communicator");
    if (api::predefined_keyval(comm_keyval))
        CH4_FAIL(comm, MPI_ERR_KEYVAL, "the predefined attribute %d cannot be set", comm_keyval);
    dev::keyval* kv = api::comm_keyval(comm_keyval);
    if (!kv) CH4_FAIL(comm, MPI_ERR_KEYVAL, "invalid communicator keyval %d", comm_keyval);
    if (dev::attr_entry* e = dev::attr_find(c->attrs, comm_keyval)) {
        // As if MPI_Comm_delete_attr ran first: the old value's callback.
        if (const int rc = api::call_delete(comm, comm_keyval, e->value); rc != MPI_SUCCESS)
            return api::raise(comm, rc);
        e->value = attribute_val;
        return MPI_SUCCESS;
    }
    try {
        c->attrs.push_back({comm_keyval, attribute_val});
    } catch (const std::bad_alloc&) {
        CH4_FAIL(comm, MPI_ERR_NO_MEM, "out of memory storing the attribute");
    }
    ++kv->refs;
    return MPI_SUCCESS;
}

CH4_PMPI(MPI_Comm_get_attr)
int MPI_Comm_get_attr(MPI_Comm comm, int comm_keyval, void* attribute_val, int* flag) {
    CH4_REQUIRE_INIT();
    dev::comm* c = api::lookup_comm(comm);
    if (!c) CH4_FAIL(comm, MPI_ERR_COMM, "invalid communicator");
    if (!attribute_val || !flag) CH4_FAIL(comm, MPI_ERR_ARG, "attribute_val or flag is NULL");
    if (int* v = api::predefined_value(comm_keyval)) {
        *static_cast<void**>(attribute_val) = v;
        *flag = 1;
        return MPI_SUCCESS;
    }
    if (!api::comm_keyval(comm_keyval))
        CH4_FAIL(comm, MPI_ERR_KEYVAL, "invalid communicator keyval %d", comm_keyval);
    const dev::attr_entry* e = dev::attr_find(c->attrs, comm_keyval);
    *flag = e != nullptr;
    if (e) *static_cast<void**>(attribute_val) = e->value;
    return MPI_SUCCESS;
}

CH4_PMPI(MPI_Comm_delete_attr)
int MPI_Comm_delete_attr(MPI_Comm comm, int comm_keyval) {
    CH4_REQUIRE_INIT();
    dev::comm* c = api::lookup_comm(comm);
    if (!c) CH4_FAIL(comm, MPI_ERR_COMM, "invalid communicator");
    if (api::predefined_keyval(comm_keyval))
        CH4_FAIL(comm, MPI_ERR_KEYVAL, "the predefined attribute %d cannot be deleted", comm_keyval);
    if (!api::comm_keyval(comm_keyval))
        CH4_FAIL(comm, MPI_ERR_KEYVAL, "invalid communicator keyval %d", comm_keyval);
    for (std::size_t i = 0; i < c->attrs.size(); ++i)
        if (c->attrs[i].keyval == comm_keyval) {
            const int rc = api::delete_entry(comm, *c, i);
            return rc == MPI_SUCCESS ? rc : api::raise(comm, rc);
        }
    CH4_FAIL(comm, MPI_ERR_KEYVAL, "no attribute is set for keyval %d on this communicator",
             comm_keyval);
}

}  // extern "C"
