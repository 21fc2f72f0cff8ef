// SPDX-License-Identifier: MIT
#include "api/datatype_handles.hpp"

#include <new>

namespace ch4lite::api {

detail::type_table& detail::types() noexcept {
    static type_table table;
    return table;
}

MPI_Datatype new_type_handle(dame::type* t, int* err_class) noexcept {
    uintptr_t h = 0;
    int cls = MPI_ERR_INTERN;  // table full
    try {
        h = detail::types().insert(t);
    } catch (const std::bad_alloc&) {
        cls = MPI_ERR_NO_MEM;
    }
    if (h == 0) {
        t->release();
        if (err_class) *err_class = cls;
        return MPI_DATATYPE_NULL;
    }
    return reinterpret_cast<MPI_Datatype>(h);
}

void erase_type_handle(MPI_Datatype dt) noexcept {
    detail::types().erase(reinterpret_cast<uintptr_t>(dt));
}

}  // namespace ch4lite::api
