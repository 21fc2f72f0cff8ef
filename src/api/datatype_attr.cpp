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

dev::keyval* lookup_type_keyval(int k) noexcept {
    dev::keyval* kv = dev::keyval_lookup(k);
    return kv && kv->kind == dev::attr_kind::type && !kv->freed ? kv : nullptr;
}

int call_delete(MPI_Datatype h, int k, void* value) noexcept {
    dev::keyval* kv = dev::keyval_lookup(k);
    if (!kv || !kv->type_delete) return MPI_SUCCESS;  // TYPE_NULL_DELETE_FN
    return kv->type_delete(h, k, value, kv->extra_state);
}

// Deletes h's attribute of keyval k (present): callback, then removal.
int delete_one(MPI_Datatype h, int k) noexcept {
    void* value = dev::attr_find(*list_of(h), k)->value;
    if (const int rc = call_delete(h, k, value); rc != MPI_SUCCESS) return rc;
    if (dev::attr_list* l = list_of(h)) {  // the callback may have changed the list
        for (std::size_t i = 0; i < l->size(); ++i)
            if ((*l)[i].keyval == k) {
                l->erase(l->begin() + static_cast<std::ptrdiff_t>(i));
                dev::keyval_release(k);
                break;
            }
        if (l->empty()) g_attrs->erase(key(h));
    }
    return MPI_SUCCESS;
}

}  // namespace

namespace ch4lite::api {

int type_attrs_copy(const char* fn, MPI_Datatype old, MPI_Datatype to) noexcept {
    const dev::attr_list* from = list_of(old);
    if (!from) return MPI_SUCCESS;
    dev::attr_list copy;
    try {
        copy = *from;  // callbacks may change old's list
    } catch (const std::bad_alloc&) {
        return error_code(MPI_ERR_NO_MEM, fn, "out of memory copying attributes");
    }
    for (const dev::attr_entry& e : copy) {
        dev::keyval* kv = dev::keyval_lookup(e.keyval);
        if (!kv) continue;
        const auto fnv = reinterpret_cast<uintptr_t>(kv->type_copy);
        if (fnv == 0) continue;  // MPI_TYPE_NULL_COPY_FN
        void* out = nullptr;
        int flag = 0;
        if (fnv == 1) {  // MPI_TYPE_DUP_FN
            out = e.value;
            flag = 1;
        } else if (const int rc = kv->type_copy(old, e.keyval, kv->extra_state, e.value, &out, &flag);
                   rc != MPI_SUCCESS) {
            (void)type_attrs_delete_all(to);
            return rc;
        }
        if (!flag) continue;
        try {
            if (!g_attrs) g_attrs = new std::unordered_map<uintptr_t, dev::attr_list>();
            (*g_attrs)[key(to)].push_back({e.keyval, out});
        } catch (const std::bad_alloc&) {
            (void)type_attrs_delete_all(to);
            return error_code(MPI_ERR_NO_MEM, fn, "out of memory copying attributes");
        }
        ++kv->refs;
    }
    return MPI_SUCCESS;
}

int type_attrs_delete_all(MPI_Datatype h) noexcept {
    while (const dev::attr_list* l = list_of(h))
        if (const int rc = delete_one(h, l->back().keyval); rc != MPI_SUCCESS) return rc;
    return MPI_SUCCESS;
}

}  // namespace ch4lite::api

extern "C" {

CH4_PMPI(MPI_Type_create_keyval)
int MPI_Type_create_keyval(MPI_Type_copy_attr_function* copy_fn,
                           MPI_Type_delete_attr_function* delete_fn, int* type_keyval,
                           void* extra_state) {
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
    const char* fn = __func__;
    DT_REQUIRE_INIT();
    DT_TRY(api::dt::check_ptr(fn, "type_keyval", type_keyval));
    if (!lookup_type_keyval(*type_keyval)) DT_FAIL(MPI_ERR_KEYVAL, "invalid datatype keyval %d", *type_keyval);
    dev::keyval_lookup(*type_keyval)->freed = true;
    dev::keyval_release(*type_keyval);  // attributes still set keep it alive
    *type_keyval = MPI_KEYVAL_INVALID;
    return MPI_SUCCESS;
}

CH4_PMPI(MPI_Type_set_attr)
int MPI_Type_set_attr(MPI_Datatype datatype, int type_keyval, void* attribute_val) {
    const char* fn = __func__;
    DT_REQUIRE_INIT();
    dame::type* t = nullptr;
    DT_TRY(resolve(fn, "datatype", datatype, &t));
    dev::keyval* kv = lookup_type_keyval(type_keyval);
    if (!kv) DT_FAIL(MPI_ERR_KEYVAL, "invalid datatype keyval %d", type_keyval);
    if (dev::attr_list* l = list_of(datatype)) {
        if (dev::attr_entry* e = dev::attr_find(*l, type_keyval)) {
            // As if MPI_Type_delete_attr ran first: the old value's callback.
            if (const int rc = call_delete(datatype, type_keyval, e->value); rc != MPI_SUCCESS)
                return api::raise_self(rc);
            if ((l = list_of(datatype)) && (e = dev::attr_find(*l, type_keyval))) {
                e->value = attribute_val;
                return MPI_SUCCESS;
            }
            // the callback deleted it: set it anew below
        }
    }
    try {
        if (!g_attrs) g_attrs = new std::unordered_map<uintptr_t, dev::attr_list>();
        (*g_attrs)[key(datatype)].push_back({type_keyval, attribute_val});
    } catch (const std::bad_alloc&) {
        DT_FAIL(MPI_ERR_NO_MEM, "out of memory storing the attribute");
    }
    ++kv->refs;
    return MPI_SUCCESS;
}

CH4_PMPI(MPI_Type_get_attr)
int MPI_Type_get_attr(MPI_Datatype datatype, int type_keyval, void* attribute_val, int* flag) {
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
    const char* fn = __func__;
    DT_REQUIRE_INIT();
    dame::type* t = nullptr;
    DT_TRY(resolve(fn, "datatype", datatype, &t));
    if (!lookup_type_keyval(type_keyval)) DT_FAIL(MPI_ERR_KEYVAL, "invalid datatype keyval %d", type_keyval);
    dev::attr_list* l = list_of(datatype);
    if (!l || !dev::attr_find(*l, type_keyval))
        DT_FAIL(MPI_ERR_KEYVAL, "no attribute is set for keyval %d on this datatype", type_keyval);
    if (const int rc = delete_one(datatype, type_keyval); rc != MPI_SUCCESS) return api::raise_self(rc);
    return MPI_SUCCESS;
}

}  // extern "C"
