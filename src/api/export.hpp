// SPDX-License-Identifier: MIT
// Force-included first in every libmpi translation unit (see
// cmake/Ch4liteLibrary.cmake): the library is compiled with hidden
// visibility, and only the MPI_* and PMPI_* functions declared in mpi.h are
// exported.
#pragma GCC visibility push(default)
#include <mpi.h>
#pragma GCC visibility pop

// CH4_API_LOCK(): the first statement of every MPI function but MPI_Wtime
// and MPI_Wtick (MPI_THREAD_MULTIPLE; util/api_lock.hpp; checked by the
// test abi.api_lock).
#include "util/api_lock.hpp"

// The profiling interface (MPI-4.1 §15.2). Written once before each API
// function's definition:
//
//   CH4_PMPI(MPI_Send)
//   int MPI_Send(...) { ... }
//
// makes MPI_Send a weak symbol and PMPI_Send a strong alias of the same code
// (same address, no wrapper, no extra call on any path). A tool that
// defines MPI_Send — in the program, a library linked before libmpi, or an
// LD_PRELOADed one — is found first by the dynamic linker and reaches us
// through PMPI_Send. libmpi never calls an MPI_ function itself (test
// abi.no_internal_mpi_calls), so a tool sees each call of the application
// exactly once.
#define CH4_PMPI(name)                                       \
    extern "C" decltype(name) name __attribute__((weak));   \
    extern "C" decltype(name) P##name __attribute__((alias(#name)));
