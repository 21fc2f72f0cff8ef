// SPDX-License-Identifier: MIT
#include "api/group_handles.hpp"

#include <new>

#include "api/errors.hpp"
#include "util/handle_table.hpp"

namespace ch4lite::api {

namespace {
util::handle_table<dev::group, util::handle_kind::group> g_groups;
dev::group g_empty;  // MPI_GROUP_EMPTY: size 0, nobody is a member
}  // namespace

dev::group* lookup_group(MPI_Group g) noexcept {
    if (!is_initialized()) return nullptr;
    if (g == MPI_GROUP_EMPTY) return &g_empty;
    return g_groups.lookup(reinterpret_cast<uintptr_t>(g));
}

MPI_Group new_group_handle(dev::group&& g) noexcept {
    if (g.size() == 0) return MPI_GROUP_EMPTY;
    auto* obj = new (std::nothrow) dev::group(std::move(g));
    if (!obj) return MPI_GROUP_NULL;
    obj->handle = g_groups.insert(obj);
    if (!obj->handle) {
        delete obj;
        return MPI_GROUP_NULL;
    }
    return reinterpret_cast<MPI_Group>(obj->handle);
}

void release_group(MPI_Group h) noexcept {
    if (h == MPI_GROUP_EMPTY) return;
    dev::group* g = g_groups.lookup(reinterpret_cast<uintptr_t>(h));
    if (!g || --g->refs > 0) return;
    g_groups.erase(g->handle);
    delete g;
}

}  // namespace ch4lite::api
