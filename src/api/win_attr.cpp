// SPDX-License-Identifier: MIT
// Window queries: attributes (predefined, and user keyvals: win_keyval.cpp),
// name, group, handle conversion.
#include <cstdio>
#include <cstring>
#include <new>

#include "api/group_handles.hpp"
#include "api/win_attrs.hpp"
#include "api/win_common.hpp"
#include "device/comm.hpp"
#include "device/comm_create.hpp"

using namespace ch4lite;

extern "C" {

CH4_PMPI(MPI_Win_get_attr)
int MPI_Win_get_attr(MPI_Win win, int win_keyval, void* attribute_val, int* flag) {
    CH4_API_LOCK();
    CH4_REQUIRE_INIT();
    rma::win* w = api::lookup_win(win);
    if (!w) CH4_FAIL_SELF(MPI_ERR_WIN, "invalid window");
    if (!attribute_val || !flag) CH4_FAIL_WIN(win, MPI_ERR_ARG, "attribute_val or flag is NULL");
    void* v = nullptr;
    switch (win_keyval) {
        case MPI_WIN_BASE: v = w->attr_base; break;  // the value itself (MPI 12.2.6)
        case MPI_WIN_SIZE: v = &w->attr_size; break;  // the others: a pointer to it
        case MPI_WIN_DISP_UNIT: v = &w->attr_disp_unit; break;
        case MPI_WIN_CREATE_FLAVOR: v = &w->attr_flavor; break;
        case MPI_WIN_MODEL: v = &w->attr_model; break;
        default:  // a user keyval (win_keyval.cpp)
            return api::win_user_attr(__func__, win, win_keyval, static_cast<void**>(attribute_val), flag);
    }
    *static_cast<void**>(attribute_val) = v;
    *flag = 1;
    return MPI_SUCCESS;
}

CH4_PMPI(MPI_Win_get_group)
int MPI_Win_get_group(MPI_Win win, MPI_Group* group) {
    CH4_API_LOCK();
    CH4_REQUIRE_INIT();
    rma::win* w = api::lookup_win(win);
    if (!w) CH4_FAIL_SELF(MPI_ERR_WIN, "invalid window");
    if (!group) CH4_FAIL_WIN(win, MPI_ERR_ARG, "group (output) is NULL");
    *group = api::new_group_handle(dev::comm_group(*w->comm));
    if (*group == MPI_GROUP_NULL) CH4_FAIL_WIN(win, MPI_ERR_NO_MEM, "cannot create the group");
    return MPI_SUCCESS;
}

CH4_PMPI(MPI_Win_set_name)
int MPI_Win_set_name(MPI_Win win, const char* win_name) {
    CH4_API_LOCK();
    CH4_REQUIRE_INIT();
    rma::win* w = api::lookup_win(win);
    if (!w) CH4_FAIL_SELF(MPI_ERR_WIN, "invalid window");
    if (!win_name) CH4_FAIL_WIN(win, MPI_ERR_ARG, "win_name is NULL");
    try {
        w->name.assign(win_name, strnlen(win_name, MPI_MAX_OBJECT_NAME - 1));
    } catch (const std::bad_alloc&) {
        CH4_FAIL_WIN(win, MPI_ERR_NO_MEM, "out of memory storing the name");
    }
    return MPI_SUCCESS;
}

CH4_PMPI(MPI_Win_get_name)
int MPI_Win_get_name(MPI_Win win, char* win_name, int* resultlen) {
    CH4_API_LOCK();
    CH4_REQUIRE_INIT();
    rma::win* w = api::lookup_win(win);
    if (!w) CH4_FAIL_SELF(MPI_ERR_WIN, "invalid window");
    if (!win_name || !resultlen) CH4_FAIL_WIN(win, MPI_ERR_ARG, "win_name or resultlen is NULL");
    std::snprintf(win_name, MPI_MAX_OBJECT_NAME, "%s", w->name.c_str());
    *resultlen = static_cast<int>(std::strlen(win_name));
    return MPI_SUCCESS;
}

CH4_PMPI(MPI_Win_toint)
int MPI_Win_toint(MPI_Win win) { CH4_API_LOCK(); return static_cast<int>(reinterpret_cast<intptr_t>(win)); }
CH4_PMPI(MPI_Win_fromint)
MPI_Win MPI_Win_fromint(int win) { CH4_API_LOCK(); return reinterpret_cast<MPI_Win>(static_cast<intptr_t>(win)); }

}  // extern "C"
