// SPDX-License-Identifier: MIT
// MPI_Comm_rank / MPI_Comm_size and the MPI-5.0 handle <-> int conversions
// of the handles this layer owns (communicators, requests, error handlers).
#include "api/errors.hpp"
#include "api/handles.hpp"
#include "device/comm.hpp"
#include "device/intercomm.hpp"

using namespace ch4lite;

extern "C" {

CH4_PMPI(MPI_Comm_rank)
int MPI_Comm_rank(MPI_Comm comm, int* rank) {
    CH4_API_LOCK();
    CH4_REQUIRE_INIT();
    dev::comm* c = api::lookup_comm(comm);
    if (!c) CH4_FAIL(comm, MPI_ERR_COMM, "invalid communicator");
    if (!rank) CH4_FAIL(comm, MPI_ERR_ARG, "rank (output) is NULL");
    *rank = c->rank;
    return MPI_SUCCESS;
}

CH4_PMPI(MPI_Comm_size)
int MPI_Comm_size(MPI_Comm comm, int* size) {
    CH4_API_LOCK();
    CH4_REQUIRE_INIT();
    dev::comm* c = api::lookup_comm(comm);
    if (!c) CH4_FAIL(comm, MPI_ERR_COMM, "invalid communicator");
    if (!size) CH4_FAIL(comm, MPI_ERR_ARG, "size (output) is NULL");
    *size = dev::local_size(*c);  // an intercommunicator's local group
    return MPI_SUCCESS;
}

// Handles are 31-bit integers by construction (util/handle.hpp), so the
// conversions are exact both ways.
CH4_PMPI(MPI_Comm_toint)
int MPI_Comm_toint(MPI_Comm comm) { CH4_API_LOCK(); return static_cast<int>(reinterpret_cast<uintptr_t>(comm)); }
CH4_PMPI(MPI_Comm_fromint)
MPI_Comm MPI_Comm_fromint(int comm) {
    CH4_API_LOCK();
    return reinterpret_cast<MPI_Comm>(static_cast<uintptr_t>(static_cast<unsigned>(comm)));
}
CH4_PMPI(MPI_Errhandler_toint)
int MPI_Errhandler_toint(MPI_Errhandler e) { CH4_API_LOCK(); return static_cast<int>(reinterpret_cast<uintptr_t>(e)); }
CH4_PMPI(MPI_Errhandler_fromint)
MPI_Errhandler MPI_Errhandler_fromint(int e) {
    CH4_API_LOCK();
    return reinterpret_cast<MPI_Errhandler>(static_cast<uintptr_t>(static_cast<unsigned>(e)));
}
CH4_PMPI(MPI_Request_toint)
int MPI_Request_toint(MPI_Request r) { CH4_API_LOCK(); return static_cast<int>(reinterpret_cast<uintptr_t>(r)); }
CH4_PMPI(MPI_Request_fromint)
MPI_Request MPI_Request_fromint(int r) {
    CH4_API_LOCK();
    return reinterpret_cast<MPI_Request>(static_cast<uintptr_t>(static_cast<unsigned>(r)));
}

}  // extern "C"
