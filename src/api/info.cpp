// SPDX-License-Identifier: MIT
// Versions, processor name, timers.
#include <time.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>

#include "api/errors.hpp"
#include "device/device.hpp"

using namespace ch4lite;

extern "C" {

CH4_PMPI(MPI_Get_version)
int MPI_Get_version(int* version, int* subversion) {
    CH4_API_LOCK();
    if (!version || !subversion) CH4_FAIL_ANYTIME(MPI_ERR_ARG, "version or subversion is NULL");
    *version = MPI_VERSION;
    *subversion = MPI_SUBVERSION;
    return MPI_SUCCESS;
}

CH4_PMPI(MPI_Abi_get_version)
int MPI_Abi_get_version(int* abi_major, int* abi_minor) {
    CH4_API_LOCK();
    if (!abi_major || !abi_minor) CH4_FAIL_ANYTIME(MPI_ERR_ARG, "abi_major or abi_minor is NULL");
    *abi_major = MPI_ABI_VERSION;
    *abi_minor = MPI_ABI_SUBVERSION;
    return MPI_SUCCESS;
}

CH4_PMPI(MPI_Get_library_version)
int MPI_Get_library_version(char* version, int* resultlen) {
    CH4_API_LOCK();
    if (!version || !resultlen) CH4_FAIL_ANYTIME(MPI_ERR_ARG, "version or resultlen is NULL");
    const std::string v = dev::library_version();
    std::snprintf(version, MPI_MAX_LIBRARY_VERSION_STRING, "%s", v.c_str());
    *resultlen = static_cast<int>(std::strlen(version));
    return MPI_SUCCESS;
}

CH4_PMPI(MPI_Get_processor_name)
int MPI_Get_processor_name(char* name, int* resultlen) {
    CH4_API_LOCK();
    CH4_REQUIRE_INIT();
    if (!name || !resultlen) CH4_FAIL_SELF(MPI_ERR_ARG, "name or resultlen is NULL");
    if (gethostname(name, MPI_MAX_PROCESSOR_NAME) != 0) std::snprintf(name, MPI_MAX_PROCESSOR_NAME, "unknown");
    name[MPI_MAX_PROCESSOR_NAME - 1] = '\0';
    *resultlen = static_cast<int>(std::strlen(name));
    return MPI_SUCCESS;
}

CH4_PMPI(MPI_Wtime)
double MPI_Wtime(void) {
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

CH4_PMPI(MPI_Wtick)
double MPI_Wtick(void) {
    timespec ts;
    if (clock_getres(CLOCK_MONOTONIC, &ts) != 0 || (ts.tv_sec == 0 && ts.tv_nsec == 0)) return 1e-9;
    return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

}  // extern "C"
