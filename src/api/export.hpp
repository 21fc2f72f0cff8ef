// SPDX-License-Identifier: MIT
// Force-included first in every libmpi translation unit (see
// cmake/Ch4liteLibrary.cmake): the library is compiled with hidden
// visibility, and only the MPI_* functions declared in mpi.h are exported.
#pragma GCC visibility push(default)
#include <mpi.h>
#pragma GCC visibility pop
