/* SPDX-License-Identifier: MIT */
/* The definition of MPI_Type_create_darray's distributions (MPI 5.1.4), the
 * reference of dt_darray.c and ../ddt/darray.c. Plain C. */
#ifndef DARRAY_REF_H
#define DARRAY_REF_H
#include <mpi.h>

/* Whether grid coordinate c (of p) owns index x of a dimension of g
 * elements distributed by `distrib` with argument `darg`. */
static inline int darray_owns(int distrib, int darg, int g, int p, int c, int x) {
    if (distrib == MPI_DISTRIBUTE_NONE) return 1;
    if (distrib == MPI_DISTRIBUTE_BLOCK) {
        int b = darg == MPI_DISTRIBUTE_DFLT_DARG ? (g + p - 1) / p : darg;
        return x / b == c;
    }
    int b = darg == MPI_DISTRIBUTE_DFLT_DARG ? 1 : darg;
    return (x / b) % p == c;
}
#endif
