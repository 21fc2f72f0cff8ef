// SPDX-License-Identifier: MIT
// Attribute caching on windows (MPI-4.1 §12.2.7): MPI_Win_create_keyval /
// free_keyval / set_attr / delete_attr, the user attributes MPI_Win_get_attr
// returns besides the predefined ones (win_attr.cpp), and the delete
// callbacks of MPI_Win_free. As for datatypes, the keyvals are the
// device's and the lists live here, by window handle. Windows are never
// duplicated, so the copy callback is stored and never called.
#include <cstdint>
#include <new>
#include <unordered_map>

#include "api/attr_ops.hpp"
#include "api/win_attrs.hpp"
#include "api/win_common.hpp"

using namespace ch4lite;

namespace {

std::unordered_map<uintptr_t, dev::attr_list>* g_attrs = nullptr;

uintptr_t key(MPI_Win h) noexcept { return reinterpret_cast<uintptr_t>(h); }

dev::attr_list* list_of(MPI_Win h) noexcept {
    if (!g_attrs) return nullptr;
    auto it = g_attrs->find(key(h));
    return it == g_attrs->end() ? nullptr : &it->second;
}

dev::attr_list* make_list(MPI_Win h) noexcept {
    try {
        if (!g_attrs) g_attrs = new std::unordered_map<uintptr_t, dev::attr_list>();
        return &(*g_attrs)[key(h)];
    } catch (const std::bad_alloc&) {
        return nullptr;
    }
}

void drop_if_empty(MPI_Win h) noexcept {
    if (dev::attr_list* l = list_of(h); l && l->empty()) g_attrs->erase(key(h));
}

// A live window keyval (also one freed while attributes still use it).
dev::keyval* lookup_win_keyval(int k) noexcept {
    dev::keyval* kv = dev::keyval_lookup(k);
    return kv && kv->kind == dev::attr_kind::win ? kv : nullptr;
}

// The predefined window attributes (MPI_WIN_BASE ... MPI_WIN_MODEL).
bool predefined(int k) noexcept { return k >= MPI_WIN_BASE && k <= MPI_WIN_MODEL; }

auto deleter(const char* fn, MPI_Win h) noexcept {
    return [fn, h](int k, void* value) noexcept -> int {
        dev::keyval* kv = dev::keyval_lookup(k);
        if (!kv || !kv->win_delete) return MPI_SUCCESS;  // WIN_NULL_DELETE_FN
        return api::attr::callback_code(fn, "delete", kv->win_delete(h, k, value, kv->extra_state));
    };
}

}  // namespace

namespace ch4lite::api {

int win_user_attr(const char* fn, MPI_Win win, int k, void** value, int* flag) noexcept {
    if (!lookup_win_keyval(k))
        CH4_FAIL_WIN_IN(fn, win, MPI_ERR_KEYVAL, "invalid window keyval %d", k);
    const dev::attr_list* l = list_of(win);
    const dev::attr_entry* e = l ? dev::attr_find(*const_cast<dev::attr_list*>(l), k) : nullptr;
    *flag = e != nullptr;
    if (e) *value = e->value;
    return MPI_SUCCESS;
}

int win_attrs_delete_all(MPI_Win win) noexcept {
    if (!list_of(win)) return MPI_SUCCESS;
    const int rc = attr::delete_all([win]() noexcept { return list_of(win); }, deleter("MPI_Win_free", win));
    drop_if_empty(win);
    return rc;
}

void win_attrs_drop(MPI_Win win) noexcept {
    dev::attr_list* l = list_of(win);
    if (!l) return;
    for (const dev::attr_entry& e : *l) dev::keyval_release(e.keyval);
    g_attrs->erase(key(win));
}

}  // namespace ch4lite::api

extern "C" {

CH4_PMPI(MPI_Win_create_keyval)
int MPI_Win_create_keyval(MPI_Win_copy_attr_function* win_copy_attr_fn,
                          MPI_Win_delete_attr_function* win_delete_attr_fn, int* win_keyval,
                          void* extra_state) {
    CH4_API_LOCK();
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
    CH4_API_LOCK();
    CH4_REQUIRE_INIT();
    if (!win_keyval) CH4_FAIL_SELF(MPI_ERR_ARG, "win_keyval is NULL");
    if (predefined(*win_keyval))
        CH4_FAIL_SELF(MPI_ERR_KEYVAL, "cannot free the predefined window keyval %d", *win_keyval);
    dev::keyval* kv = lookup_win_keyval(*win_keyval);
    if (!kv || kv->freed)
        CH4_FAIL_SELF(MPI_ERR_KEYVAL, "invalid window keyval %d%s", *win_keyval,
                      kv ? ": it was freed already" : "");
    kv->freed = true;
    dev::keyval_release(*win_keyval);  // attributes still set keep it alive
    *win_keyval = MPI_KEYVAL_INVALID;
    return MPI_SUCCESS;
}

CH4_PMPI(MPI_Win_set_attr)
int MPI_Win_set_attr(MPI_Win win, int win_keyval, void* attribute_val) {
    CH4_API_LOCK();
    CH4_REQUIRE_INIT();
    if (!api::lookup_win(win)) CH4_FAIL_SELF(MPI_ERR_WIN, "invalid window");
    if (predefined(win_keyval))
        CH4_FAIL_WIN(win, MPI_ERR_KEYVAL, "the predefined window attribute %d cannot be set", win_keyval);
    dev::keyval* kv = lookup_win_keyval(win_keyval);
    if (!kv) CH4_FAIL_WIN(win, MPI_ERR_KEYVAL, "invalid window keyval %d", win_keyval);
    const int rc = api::attr::set([win]() noexcept { return make_list(win); }, *kv, win_keyval,
                                  attribute_val, deleter(__func__, win));
    if (rc == -1) CH4_FAIL_WIN(win, MPI_ERR_NO_MEM, "out of memory storing the attribute");
    return rc == MPI_SUCCESS ? rc : api::raise_win(win, rc);
}

CH4_PMPI(MPI_Win_delete_attr)
int MPI_Win_delete_attr(MPI_Win win, int win_keyval) {
    CH4_API_LOCK();
    CH4_REQUIRE_INIT();
    if (!api::lookup_win(win)) CH4_FAIL_SELF(MPI_ERR_WIN, "invalid window");
    if (predefined(win_keyval))
        CH4_FAIL_WIN(win, MPI_ERR_KEYVAL, "the predefined window attribute %d cannot be deleted",
                     win_keyval);
    if (!lookup_win_keyval(win_keyval)) CH4_FAIL_WIN(win, MPI_ERR_KEYVAL, "invalid window keyval %d", win_keyval);
    if (!(list_of(win) && dev::attr_find(*list_of(win), win_keyval)))
        CH4_FAIL_WIN(win, MPI_ERR_KEYVAL, "no attribute is set for keyval %d on this window", win_keyval);
    const int rc = api::attr::delete_one([win]() noexcept { return list_of(win); }, win_keyval,
                                         deleter(__func__, win));
    drop_if_empty(win);
    return rc == MPI_SUCCESS ? rc : api::raise_win(win, rc);
}

}  // extern "C"
