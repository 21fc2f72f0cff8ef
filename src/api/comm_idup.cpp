// SPDX-License-Identifier: MIT
// MPI_Comm_idup and MPI_Comm_idup_with_info: a nonblocking request whose
// schedule agrees on the new communicator's context ids
// (device/comm_idup.hpp). The handle is returned at once; attributes are
// copied now, as MPI_Comm_dup does, and so are the hints (api/comm_info.cpp).
#include "api/coll_sched.hpp"
#include "api/comm_attr.hpp"
#include "api/comm_util.hpp"
#include "api/errhandler.hpp"
#include "api/handles.hpp"
#include "api/info_obj.hpp"
#include "device/comm_idup.hpp"
#include "device/intercomm.hpp"

using namespace ch4lite;

namespace {

int idup(const char* fn, MPI_Comm comm, MPI_Info info, MPI_Comm* newcomm, MPI_Request* request,
         bool with_info) noexcept {
    CH4_REQUIRE_INIT_IN(fn);
    dev::comm* c = api::lookup_comm(comm);
    if (!c) CH4_FAIL_IN(fn, comm, MPI_ERR_COMM, "invalid communicator");
    if (!api::info_is_valid(info))
        CH4_FAIL_IN(fn, comm, MPI_ERR_INFO, CH4_INFO_MSG, static_cast<void*>(info));
    if (!newcomm) CH4_FAIL_IN(fn, comm, MPI_ERR_ARG, "newcomm (output) is NULL");
    if (!request) CH4_FAIL_IN(fn, comm, MPI_ERR_ARG, "request (output) is NULL");
    *request = MPI_REQUEST_NULL;
    *newcomm = MPI_COMM_NULL;
    // An intercommunicator's agreement runs on its local communicator (the
    // schedule tag both groups share, coll/build_inter.hpp).
    dev::comm& owner = c->is_inter() ? *c->inter->local : *c;
    auto s = api::coll::new_sched(owner);
    dev::comm* out = nullptr;
    if (s) dev::comm_idup(*c, *s, out);
    int copy_rc = MPI_SUCCESS;
    if (out) {
        api::hand_out(out, newcomm);
        api::comm_hints_dup(*c, *out, info, with_info);
        copy_rc = api::attrs_copy(fn, comm, *c, *out);
    }
    // The agreement runs whatever happened here: the other members wait for it.
    if (const int rc = api::coll::issue(fn, comm, api::coll::form::nonblocking, std::move(s), request))
        return rc;
    if (copy_rc != MPI_SUCCESS) return api::raise(comm, copy_rc);
    return MPI_SUCCESS;
}

}  // namespace

extern "C" {

CH4_PMPI(MPI_Comm_idup)
int MPI_Comm_idup(MPI_Comm comm, MPI_Comm* newcomm, MPI_Request* request) {
    CH4_API_LOCK();
    return idup(__func__, comm, MPI_INFO_NULL, newcomm, request, false);
}

CH4_PMPI(MPI_Comm_idup_with_info)
int MPI_Comm_idup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm* newcomm, MPI_Request* request) {
    CH4_API_LOCK();
    return idup(__func__, comm, info, newcomm, request, true);
}

}  // extern "C"
