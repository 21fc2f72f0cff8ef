// SPDX-License-Identifier: MIT
// MPI_Comm_set_name / MPI_Comm_get_name. Names longer than
// MPI_MAX_OBJECT_NAME - 1 characters are truncated; dups start unnamed.
#include <cstring>
#include <new>
#include <string>

#include "api/errors.hpp"
#include "api/handles.hpp"
#include "device/comm.hpp"

using namespace ch4lite;

extern "C" {

CH4_PMPI(MPI_Comm_set_name)
int MPI_Comm_set_name(MPI_Comm comm, const char* comm_name) {
    CH4_API_LOCK();
    CH4_REQUIRE_INIT();
    dev::comm* c = api::lookup_comm(comm);
    if (!c) CH4_FAIL(comm, MPI_ERR_COMM, "invalid communicator");
    if (!comm_name) CH4_FAIL(comm, MPI_ERR_ARG, "comm_name is NULL");
    try {
        c->name.assign(comm_name, strnlen(comm_name, MPI_MAX_OBJECT_NAME - 1));
    } catch (const std::bad_alloc&) {
        CH4_FAIL(comm, MPI_ERR_NO_MEM, "out of memory storing the name");
    }
    return MPI_SUCCESS;
}

CH4_PMPI(MPI_Comm_get_name)
int MPI_Comm_get_name(MPI_Comm comm, char* comm_name, int* resultlen) {
    CH4_API_LOCK();
    CH4_REQUIRE_INIT();
    const dev::comm* c = api::lookup_comm(comm);
    if (!c) CH4_FAIL(comm, MPI_ERR_COMM, "invalid communicator");
    if (!comm_name || !resultlen) CH4_FAIL(comm, MPI_ERR_ARG, "comm_name or resultlen is NULL");
    std::memcpy(comm_name, c->name.c_str(), c->name.size() + 1);
    *resultlen = static_cast<int>(c->name.size());
    return MPI_SUCCESS;
}

}  // extern "C"
