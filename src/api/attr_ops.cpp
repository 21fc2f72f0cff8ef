// SPDX-License-Identifier: MIT
#include "api/attr_ops.hpp"

namespace ch4lite::api::attr {

int callback_code(const char* fn, const char* which, int rc) noexcept {
    if (rc == MPI_SUCCESS || (rc > 0 && valid_code(rc))) return rc;
    return error_code(MPI_ERR_OTHER, fn, "the attribute %s callback returned %d, which is not an MPI error code",
                      which, rc);
}

}  // namespace ch4lite::api::attr
