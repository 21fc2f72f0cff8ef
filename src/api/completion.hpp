// SPDX-License-Identifier: MIT
// Helpers of the Wait*/Test* families: resolving request arrays.
#pragma once
#include <mpi.h>

#include "device/request.hpp"

namespace ch4lite::api {

// Resolves handles[i] into reqs[i] (nullptr for MPI_REQUEST_NULL). Returns
// MPI_SUCCESS or a raised MPI_ERR_REQUEST naming the bad index.
int resolve_requests(const char* func, int count, MPI_Request handles[],
                     dev::request** reqs) noexcept;

// Scratch for up to `count` resolved requests (small arrays on the stack).
class request_array {
  public:
    explicit request_array(int count);
    ~request_array();
    dev::request** data() noexcept { return p_; }
    bool ok() const noexcept { return p_ != nullptr; }

  private:
    dev::request* small_[64];
    dev::request** p_;
};

}  // namespace ch4lite::api
