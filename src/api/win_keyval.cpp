// SPDX-License-Identifier: MIT
// Attribute caching on windows: MPI_Win_create_keyval / free_keyval /
// set_attr / delete_attr, the user keyvals of MPI_Win_get_attr
// (win_attr.cpp) and the delete callbacks of MPI_Win_free. The keyvals are
// the device's (device/attr.hpp, shared with communicators and datatypes);
// windows are never duplicated, so copy callbacks are stored and never run.
// The ABI's sentinels are values: WIN_NULL_DELETE_FN = 0. MPI is at most
// MPI_THREAD_SERIALIZED here; callbacks may call MPI, so no list is held
// across one.
#include <new>

#include "api/win_common.hpp"
#include "device/attr.hpp"

using namespace ch4lite;

namespace {

dev::keyval* lookup_win_keyval(int k) noexcept {
    dev::keyval* kv = dev::keyval_lookup(k);
    return kv && kv->kind == dev::attr_kind::win && !kv->freed ? kv : nullptr;
}

int call_delete(MPI_Win h, int k, void* value) noexcept {
    dev::keyval* kv = dev::keyval_lookup(k);
    if (!kv || !kv->win_delete) return MPI_SUCCESS;  // MPI_WIN_NULL_DELETE_FN
    return kv->win_delete(h, k, value, kv->extra_state);
}

// Deletes w's attribute of keyval k (present): callback, then removal.
int delete_one(MPI_Win h, rma::win& w, int k) noexcept {
    void* value = dev::attr_find(w.attrs, k)->value;
    if (const int rc = call_delete(h, k, value); rc != MPI_SUCCESS) return rc;
    for (std::size_t i = 0; i < w.attrs.size(); ++i)  // the callback may have changed the list
        if (w.attrs[i].keyval == k) {
            w.attrs.erase(w.attrs.begin() + static_cast<std::ptrdiff_t>(i));
            dev::keyval_release(k);
            break;
        }
    return MPI_SUCCESS;
}

}  // namespace

namespace ch4lite::api {

int win_attrs_delete_all(MPI_Win h, rma::win& w) noexcept {
    while (!w.attrs.empty())
        if (const int rc = delete_one(h, w, w.attrs.back().keyval); rc != MPI_SUCCESS) return rc;
    return MPI_SUCCESS;
}

bool win_user_attr(rma::win& w, int keyval, void*& value) noexcept {
    const dev::attr_entry* e = dev::attr_find(w.attrs, keyval);
    if (e) value = e->value;
    return e != nullptr;
}

}  // namespace ch4lite::api

extern "C" {

CH4_PMPI(MPI_Win_create_keyval)
int MPI_Win_create_keyval(MPI_Win_copy_attr_function* win_copy_attr_fn,
                          MPI_Win_delete_attr_function* win_delete_attr_fn, int* win_keyval,
                          void* extra_state) {
    CH4_REQUIRE_INIT();
    if (!win_keyval) CH4_FAIL_SELF(MPI_ERR_ARG, "win_keyval (output) is NULL");
    dev::keyval kv;
    kv.kind = dev::attr_kind::win;
    kv.win_copy = win_copy_attr_fn;
    kv.win_delete = win_delete_attr_fn;
    kv.extra_state = extra_state;
    const int h = dev::keyval_create(kv);
    if (!h) CH4_FAIL_SELF(MPI_ERR_NO_MEM, "out of memory or too many keyvals");
    *win_keyval = h;
    return MPI_SUCCESS;
}

CH4_PMPI(MPI_Win_free_keyval)
int MPI_Win_free_keyval(int* win_keyval) {
    CH4_REQUIRE_INIT();
    if (!win_keyval) CH4_FAIL_SELF(MPI_ERR_ARG, "win_keyval is NULL");
    if (!lookup_win_keyval(*win_keyval))
        CH4_FAIL_SELF(MPI_ERR_KEYVAL, "invalid window keyval %d", *win_keyval);
    dev::keyval_lookup(*win_keyval)->freed = true;
    dev::keyval_release(*win_keyval);  // attributes still set keep it alive
    *win_keyval = MPI_KEYVAL_INVALID;
    return MPI_SUCCESS;
}

CH4_PMPI(MPI_Win_set_attr)
int MPI_Win_set_attr(MPI_Win win, int win_keyval, void* attribute_val) {
    CH4_REQUIRE_INIT();
    rma::win* w = api::lookup_win(win);
    if (!w) CH4_FAIL_SELF(MPI_ERR_WIN, "invalid window");
    dev::keyval* kv = lookup_win_keyval(win_keyval);
    if (!kv)
        CH4_FAIL_WIN(win, MPI_ERR_KEYVAL,
                     "invalid keyval %d: not a window keyval (predefined ones cannot be set)", win_keyval);
    if (dev::attr_entry* e = dev::attr_find(w->attrs, win_keyval)) {
        // As if MPI_Win_delete_attr ran first: the old value's callback.
        if (const int rc = call_delete(win, win_keyval, e->value); rc != MPI_SUCCESS)
            return api::raise_win(win, rc);
        if ((e = dev::attr_find(w->attrs, win_keyval))) {
            e->value = attribute_val;
            return MPI_SUCCESS;
        }
    }
    try {
        w->attrs.push_back({win_keyval, attribute_val});
    } catch (const std::bad_alloc&) {
        CH4_FAIL_WIN(win, MPI_ERR_NO_MEM, "out of memory storing the attribute");
    }
    ++kv->refs;
    return MPI_SUCCESS;
}

CH4_PMPI(MPI_Win_delete_attr)
int MPI_Win_delete_attr(MPI_Win win, int win_keyval) {
    CH4_REQUIRE_INIT();
    rma::win* w = api::lookup_win(win);
    if (!w) CH4_FAIL_SELF(MPI_ERR_WIN, "invalid window");
    if (!lookup_win_keyval(win_keyval)) CH4_FAIL_WIN(win, MPI_ERR_KEYVAL, "invalid window keyval %d", win_keyval);
    if (!dev::attr_find(w->attrs, win_keyval))
        CH4_FAIL_WIN(win, MPI_ERR_KEYVAL, "no attribute is set for keyval %d on this window", win_keyval);
    if (const int rc = delete_one(win, *w, win_keyval); rc != MPI_SUCCESS) return api::raise_win(win, rc);
    return MPI_SUCCESS;
}

}  // extern "C"
