// SPDX-License-Identifier: MIT
// MPI_Barrier (algorithm: device/coll_barrier.cpp).
#include "api/coll_args.hpp"

using namespace ch4lite;

CH4_PMPI(MPI_Barrier)
extern "C" int MPI_Barrier(MPI_Comm comm) {
    const char* fn = __func__;
    dev::comm* c = nullptr;
    COLL_TRY(api::coll::check_comm(fn, comm, c));
    if (const status s = dev::coll_barrier(*c); s != status::ok) return api::coll::fail(fn, comm, s);
    return MPI_SUCCESS;
}
