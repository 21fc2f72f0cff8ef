// SPDX-License-Identifier: MIT
#include "api/datatype_handles.hpp"

namespace ch4lite::api {

detail::type_table& detail::types() noexcept {
    static type_table table;
    return table;
}

MPI_Datatype new_type_handle(dame::type* t) noexcept {
    uintptr_t h = 0;
    try {
        h = detail::types().insert(t);
    } catch (...) {
        h = 0;
    }
    if (h == 0) {
        t->release();
        return MPI_DATATYPE_NULL;
    }
    return reinterpret_cast<MPI_Datatype>(h);
}

void erase_type_handle(MPI_Datatype dt) noexcept {
    detail::types().erase(reinterpret_cast<uintptr_t>(dt));
}

}  // namespace ch4lite::api
