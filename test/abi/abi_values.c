/* SPDX-License-Identifier: MIT */
/* Compile-time checks of mpi.h against the MPI-5.0 standard ABI values
 * (shared/abi/mpi-abi-values.md). Building this file is the test. */
#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#define V(h) ((uintptr_t)(h))
_Static_assert(sizeof(MPI_Status) == 32 && _Alignof(MPI_Status) == 4, "8-int MPI_Status");
_Static_assert(offsetof(MPI_Status, MPI_SOURCE) == 0 && offsetof(MPI_Status, MPI_TAG) == 4 &&
               offsetof(MPI_Status, MPI_ERROR) == 8, "status field order");
_Static_assert(sizeof(MPI_Count) == 8 && sizeof(MPI_Offset) == 8 && sizeof(MPI_Aint) == sizeof(void*), "sizes");
_Static_assert(MPI_VERSION == 5 && MPI_SUBVERSION == 0 && MPI_ABI_VERSION == 1, "versions");
_Static_assert(V(MPI_COMM_WORLD) == 0x101 && V(MPI_COMM_SELF) == 0x102 && V(MPI_COMM_NULL) == 0x100, "comms");
_Static_assert(V(MPI_ERRORS_ARE_FATAL) == 0x141 && V(MPI_ERRORS_ABORT) == 0x142 && V(MPI_ERRORS_RETURN) == 0x143, "errhandlers");
_Static_assert(V(MPI_REQUEST_NULL) == 0x180 && V(MPI_GROUP_EMPTY) == 0x109 && V(MPI_INFO_ENV) == 0x131, "misc handles");
_Static_assert(V(MPI_SUM) == 0x21 && V(MPI_MAXLOC) == 0x39 && V(MPI_REPLACE) == 0x3c && V(MPI_NO_OP) == 0x3d, "ops");
_Static_assert(V(MPI_INT) == 0x209 && V(MPI_DOUBLE) == 0x214 && V(MPI_BYTE) == 0x247 && V(MPI_CHAR) == 0x243, "types");
_Static_assert(V(MPI_C_FLOAT_COMPLEX) == 0x212 && V(MPI_CXX_DOUBLE_COMPLEX) == 0x217 && V(MPI_CHARACTER) == 0x21e, "types 2");
_Static_assert(V(MPI_LONG_DOUBLE_INT) == 0x22d && V(MPI_2INTEGER) == 0x232 && V(MPI_COMPLEX32) == 0x2eb, "types 3");
_Static_assert(MPI_THREAD_FUNNELED == 1024 && MPI_THREAD_SERIALIZED == 2048 && MPI_THREAD_MULTIPLE == 4096, "threads");
_Static_assert(MPI_ANY_SOURCE == -1 && MPI_ANY_TAG == -2 && MPI_PROC_NULL == -3 && MPI_UNDEFINED == -32766, "ranks");
_Static_assert(MPI_ERR_TRUNCATE == 15 && MPI_ERR_RMA_SYNC == 50 && MPI_ERR_UNSUPPORTED_OPERATION == 55 &&
               MPI_ERR_ABI == 62 && MPI_ERR_LASTCODE == 16383, "error classes");
_Static_assert(MPI_UNIVERSE_SIZE == 507 && MPI_APPNUM == 505 && MPI_LASTUSEDCODE == 506, "attributes");
_Static_assert(MPI_SEEK_SET == 403 && MPI_COMBINER_F90_INTEGER == 115 && MPI_ORDER_FORTRAN == 15, "misc ints");
_Static_assert(MPI_IN_PLACE == (void*)1 && MPI_BOTTOM == (void*)0 && MPI_UNWEIGHTED == (int*)10, "sentinels");

int main(void) { return 0; }
