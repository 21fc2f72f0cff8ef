// SPDX-License-Identifier: MIT
#include "api/datatype_handles.hpp"

namespace ch4lite::api {

constinit detail::type_table detail::g_types;
constinit detail::quick_type detail::g_quick;
constinit detail::quick_typed detail::g_quick_typed;

MPI_Datatype new_type_handle(dame::type* t, int* err_class) noexcept {
    const uintptr_t h = detail::types().insert(t);
    if (h == 0) {
        if (err_class) *err_class = detail::types().full() ? MPI_ERR_INTERN : MPI_ERR_NO_MEM;
        t->release();
        return MPI_DATATYPE_NULL;
    }
    return reinterpret_cast<MPI_Datatype>(h);
}

void erase_type_handle(MPI_Datatype dt) noexcept {
    erase_type_name(dt);
    if (detail::g_quick.handle == reinterpret_cast<uintptr_t>(dt)) detail::g_quick = {};
    if (detail::g_quick_typed.handle == reinterpret_cast<uintptr_t>(dt)) detail::g_quick_typed = {};
    detail::types().erase(reinterpret_cast<uintptr_t>(dt));
}

}  // namespace ch4lite::api
