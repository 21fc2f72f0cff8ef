// SPDX-License-Identifier: MIT
// Attribute caching on datatypes: MPI_Type_create_keyval / free_keyval /
// set_attr / get_attr / delete_attr, the copy callbacks of MPI_Type_dup and
// the delete callbacks of MPI_Type_free. The keyvals are the device's (as
// for communicators); the attribute lists live here, by handle, like the
// names (a cached attribute is not part of a type map). The ABI's callback
// sentinels are values: TYPE_NULL_COPY_FN = 0, TYPE_DUP_FN = 1,
// TYPE_NULL_DELETE_FN = 0. MPI is at most MPI_THREAD_SERIALIZED here, so
// nothing is locked, and callbacks may call MPI: no list is held across one.
#include <cstdint>
#include <new>
#include <unordered_map>

#include "api/attr_ops.hpp"
#include "api/datatype_attr.hpp"
#include "api/datatype_util.hpp"
#include "device/attr.hpp"

using namespace ch4lite;
using ch4lite::api::dt::resolve;

namespace {

// Allocated on first use; never freed (attributes of predefined types live
// until the process ends).
std::unordered_map<uintptr_t, dev::attr_list>* g_attrs = nullptr;

uintptr_t key(MPI_Datatype h) { return reinterpret_cast<uintptr_t>(h); }

dev::attr_list* list_of(MPI_Datatype h) noexcept {
    if (!g_attrs) return nullptr;
    auto it = g_attrs->find(key(h));
    return it == g_attrs->end() ? nullptr : &it->second;
}

// A live datatype keyval (also one the user freed while attributes still
// use it), or nullptr.
dev::keyval* lookup_type_keyval(int k) noexcept {
    dev::keyval* kv = dev::keyval_lookup(k);
    return kv && kv->kind == dev::attr_kind::type ? kv : nullptr;
}

// h's list, created when missing (nullptr: out of memory).
dev::attr_list* make_list(MPI_Datatype h) noexcept {
    try {
        if (!g_attrs) g_attrs = new std::unordered_map<uintptr_t, dev::attr_list>();
        return &(*g_attrs)[key(h)];
    } catch (const std::bad_alloc&) {
        return nullptr;
    }
}

auto deleter(const char* fn, MPI_Datatype h) noexcept {
    return [fn, h](int k, void* value) noexcept -> int {
        dev::keyval* kv = dev::keyval_lookup(k);
        if (!kv || !kv->type_delete) return MPI_SUCCESS;  // TYPE_NULL_DELETE_FN
        return api::attr::callback_code(fn, "delete", kv->type_delete(h, k, value, kv->extra_state));
    };
}

void* copy_fn_of(const dev::keyval& kv) noexcept { return reinterpret_cast<void*>(kv.type_copy); }

}  // namespace

namespace ch4lite::api {

int type_attrs_copy(const char* fn, MPI_Datatype old, MPI_Datatype to) noexcept {
    if (!list_of(old)) return MPI_SUCCESS;
    const int rc = attr::copy_all(
        [old]() noexcept { return list_of(old); }, [to]() noexcept { return make_list(to); },
        [fn, old](dev::keyval& kv, int k, void* in, void* out, int* flag) noexcept {
            return attr::callback_code(fn, "copy", kv.type_copy(old, k, kv.extra_state, in, out, flag));
        },
        deleter(fn, to), copy_fn_of);
    if (dev::attr_list* l = list_of(to); l && l->empty()) g_attrs->erase(key(to));
    return rc == -1 ? error_code(MPI_ERR_NO_MEM, fn, "out of memory copying attributes") : rc;
}

int type_attrs_delete_all(MPI_Datatype h) noexcept {
    if (!list_of(h)) return MPI_SUCCESS;
    const int rc = attr::delete_all([h]() noexcept { return list_of(h); }, deleter("MPI_Type_free", h));
    if (dev::attr_list* l = list_of(h); l && l->empty()) g_attrs->erase(key(h));
    return rc;
}

}  // namespace ch4lite::api

extern "C" {

CH4_PMPI(MPI_Type_create_keyval)
int MPI_Type_create_keyval(MPI_Type_copy_attr_function* copy_fn,
                           MPI_Type_delete_attr_function* delete_fn, int* type_keyval,
                           void* extra_state) {
    CH4_API_LOCK();
    const char* fn = __func__;
    DT_REQUIRE_INIT();
    DT_TRY(api::dt::check_ptr(fn, "type_keyval", type_keyval));
    dev::keyval kv;
    kv.kind = dev::attr_kind::type;
    kv.type_copy = copy_fn;
    kv.type_delete = delete_fn;
    kv.extra_state = extra_state;
    const int h = dev::keyval_create(kv);
    if (!h) DT_FAIL(MPI_ERR_NO_MEM, "out of memory or too many keyvals");
    *type_keyval = h;
    return MPI_SUCCESS;
}

CH4_PMPI(MPI_Type_free_keyval)
int MPI_Type_free_keyval(int* type_keyval) {
    CH4_API_LOCK();
    const char* fn = __func__;
    DT_REQUIRE_INIT();
    DT_TRY(api::dt::check_ptr(fn, "type_keyval", type_keyval));
    dev::keyval* kv = lookup_type_keyval(*type_keyval);
    if (!kv || kv->freed)
        DT_FAIL(MPI_ERR_KEYVAL, "invalid datatype keyval %d%s", *type_keyval,
                kv ? ": it was freed already" : "");
    kv->freed = true;
    dev::keyval_release(*type_keyval);  // attributes still set keep it alive
    *type_keyval = MPI_KEYVAL_INVALID;
    return MPI_SUCCESS;
}

CH4_PMPI(MPI_Type_set_attr)
int MPI_Type_set_attr(MPI_Datatype datatype, int type_keyval, void* attribute_val) {
    CH4_API_LOCK();
    const char* fn = __func__;
    DT_REQUIRE_INIT();
    dame::type* t = nullptr;
    DT_TRY(resolve(fn, "datatype", datatype, &t));
    dev::keyval* kv = lookup_type_keyval(type_keyval);
    if (!kv) DT_FAIL(MPI_ERR_KEYVAL, "invalid datatype keyval %d", type_keyval);
    const int rc = api::attr::set([datatype]() noexcept { return make_list(datatype); }, *kv,
                                  type_keyval, attribute_val, deleter(fn, datatype));
    if (rc == -1) DT_FAIL(MPI_ERR_NO_MEM, "out of memory storing the attribute");
    return rc == MPI_SUCCESS ? rc : api::raise_self(rc);
}

CH4_PMPI(MPI_Type_get_attr)
int MPI_Type_get_attr(MPI_Datatype datatype, int type_keyval, void* attribute_val, int* flag) {
    CH4_API_LOCK();
    const char* fn = __func__;
    DT_REQUIRE_INIT();
    dame::type* t = nullptr;
    DT_TRY(resolve(fn, "datatype", datatype, &t));
    DT_TRY(api::dt::check_ptr(fn, "attribute_val", attribute_val));
    DT_TRY(api::dt::check_ptr(fn, "flag", flag));
    if (!lookup_type_keyval(type_keyval)) DT_FAIL(MPI_ERR_KEYVAL, "invalid datatype keyval %d", type_keyval);
    dev::attr_list* l = list_of(datatype);
    const dev::attr_entry* e = l ? dev::attr_find(*l, type_keyval) : nullptr;
    *flag = e != nullptr;
    if (e) *static_cast<void**>(attribute_val) = e->value;
    return MPI_SUCCESS;
}

CH4_PMPI(MPI_Type_delete_attr)
int MPI_Type_delete_attr(MPI_Datatype datatype, int type_keyval) {
    CH4_API_LOCK();
    const char* fn = __func__;
    DT_REQUIRE_INIT();
    dame::type* t = nullptr;
    DT_TRY(resolve(fn, "datatype", datatype, &t));
    if (!lookup_type_keyval(type_keyval)) DT_FAIL(MPI_ERR_KEYVAL, "invalid datatype keyval %d", type_keyval);
    dev::attr_list* l = list_of(datatype);
    if (!l || !dev::attr_find(*l, type_keyval))
        DT_FAIL(MPI_ERR_KEYVAL, "no attribute is set for keyval %d on this datatype", type_keyval);
    const int rc = api::attr::delete_one([datatype]() noexcept { return list_of(datatype); }, type_keyval,
                                         deleter(fn, datatype));
    if (dev::attr_list* e = list_of(datatype); e && e->empty()) g_attrs->erase(key(datatype));
    return rc == MPI_SUCCESS ? rc : api::raise_self(rc);
}

}  // extern "C"
