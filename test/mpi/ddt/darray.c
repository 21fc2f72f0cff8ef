/* SPDX-License-Identifier: MIT */
/* Distributed arrays on the wire, as a program that uses
 * MPI_Type_create_darray does it: every rank owns the part of a global
 * array that its darray type selects, kept contiguous in memory order. Rank
 * 0 gathers the parts by receiving each rank's message into the global
 * array with that rank's darray type, then scatters a changed array back by
 * sending with the same types. Several layouts: block, cyclic(k), none, both
 * orders, 2-D and 3-D, and process grids of every shape for the job's size. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../datatype/darray_ref.h"

static int failures = 0;
#define CHECK(cond, ...)                                               \
    do {                                                               \
        if (!(cond)) {                                                 \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);       \
            fprintf(stderr, __VA_ARGS__);                              \
            fprintf(stderr, "\n");                                     \
            ++failures;                                                \
        }                                                              \
    } while (0)

typedef struct {
    int ndims, order;
    int g[3], dist[3], darg[3];
} layout;

/* The value of global element lin in round r. */
static double value(int lin, int r) { return lin * 3.0 + r * 0.5 + 1.0; }

/* Runs one layout on grid p; returns the number of checks that failed. */
static void run(const layout* L, const int* p, int rank, int size) {
    int total = 1;
    for (int i = 0; i < L->ndims; ++i) total *= L->g[i];
    MPI_Datatype* types = malloc(sizeof(MPI_Datatype) * (size_t)size);
    for (int r = 0; r < size; ++r) {
        MPI_Type_create_darray(size, r, L->ndims, L->g, L->dist, L->darg, p, L->order, MPI_DOUBLE, &types[r]);
        MPI_Type_commit(&types[r]);
    }
    /* my part, by the definition: owned elements in memory order */
    int coord[3], left = rank;
    for (int i = L->ndims - 1; i >= 0; --i) {
        coord[i] = left % p[i];
        left /= p[i];
    }
    int* mine = malloc(sizeof(int) * (size_t)total);
    int n = 0;
    for (int lin = 0; lin < total; ++lin) {
        int rest = lin, ok = 1;
        for (int k = 0; k < L->ndims; ++k) {
            int i = L->order == MPI_ORDER_C ? L->ndims - 1 - k : k;
            ok = ok && darray_owns(L->dist[i], L->darg[i], L->g[i], p[i], coord[i], rest % L->g[i]);
            rest /= L->g[i];
        }
        if (ok) mine[n++] = lin;
    }
    int tsize = 0;
    MPI_Type_size(types[rank], &tsize);
    CHECK(tsize == n * 8, "rank %d: darray size %d, owns %d elements", rank, tsize, n);
    double* local = malloc(sizeof(double) * (size_t)(n + 1));
    for (int k = 0; k < n; ++k) local[k] = value(mine[k], 0);

    /* gather into rank 0's global array, each part through its darray type */
    double* global = NULL;
    if (rank == 0) {
        global = malloc(sizeof(double) * (size_t)total);
        for (int i = 0; i < total; ++i) global[i] = -1.0;
        MPI_Request* reqs = malloc(sizeof(MPI_Request) * (size_t)size);
        for (int r = 1; r < size; ++r) MPI_Irecv(global, 1, types[r], r, 7, MPI_COMM_WORLD, &reqs[r]);
        MPI_Sendrecv(local, n, MPI_DOUBLE, 0, 7, global, 1, types[0], 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (size > 1) MPI_Waitall(size - 1, reqs + 1, MPI_STATUSES_IGNORE);
        free(reqs);
        int bad = 0;
        for (int i = 0; i < total; ++i)
            if (global[i] != value(i, 0) && bad++ < 5)
                CHECK(0, "gathered element %d is %g, want %g", i, global[i], value(i, 0));
        for (int i = 0; i < total; ++i) global[i] = value(i, 1);
        /* scatter the new values back with the same types */
        reqs = malloc(sizeof(MPI_Request) * (size_t)size);
        for (int r = 1; r < size; ++r) MPI_Isend(global, 1, types[r], r, 8, MPI_COMM_WORLD, &reqs[r]);
        MPI_Sendrecv(global, 1, types[0], 0, 8, local, n, MPI_DOUBLE, 0, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (size > 1) MPI_Waitall(size - 1, reqs + 1, MPI_STATUSES_IGNORE);
        free(reqs);
    } else {
        MPI_Send(local, n, MPI_DOUBLE, 0, 7, MPI_COMM_WORLD);
        MPI_Status st;
        MPI_Recv(local, n, MPI_DOUBLE, 0, 8, MPI_COMM_WORLD, &st);
        int got = -1;
        MPI_Get_count(&st, MPI_DOUBLE, &got);
        CHECK(got == n, "rank %d: received %d elements, want %d", rank, got, n);
    }
    for (int k = 0, bad = 0; k < n; ++k)
        if (local[k] != value(mine[k], 1) && bad++ < 5)
            CHECK(0, "rank %d: scattered element %d (global %d) is %g, want %g", rank, k, mine[k], local[k],
                  value(mine[k], 1));
    for (int r = 0; r < size; ++r) MPI_Type_free(&types[r]);
    free(types);
    free(mine);
    free(local);
    free(global);
}

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int B = MPI_DISTRIBUTE_BLOCK, C = MPI_DISTRIBUTE_CYCLIC, N = MPI_DISTRIBUTE_NONE,
              D = MPI_DISTRIBUTE_DFLT_DARG;
    const layout layouts[] = {
        {2, MPI_ORDER_C, {37, 29, 0}, {B, B, 0}, {D, D, 0}},
        {2, MPI_ORDER_FORTRAN, {37, 29, 0}, {C, C, 0}, {3, 2, 0}},
        {2, MPI_ORDER_C, {64, 50, 0}, {B, C, 0}, {D, 4, 0}},
        {3, MPI_ORDER_FORTRAN, {9, 11, 13}, {C, N, B}, {2, D, D}},
        {3, MPI_ORDER_C, {16, 5, 21}, {B, C, C}, {D, D, 5}},
        {2, MPI_ORDER_C, {1000, 300, 0}, {C, B, 0}, {7, D, 0}}, /* 2.4 MB: large messages */
    };
    int nl = 0;
    for (size_t l = 0; l < sizeof layouts / sizeof layouts[0]; ++l) {
        const layout* L = &layouts[l];
        /* every grid shape: the distributed dimensions take the factors of size */
        for (int a = 1; a <= size; ++a) {
            if (size % a) continue;
            int p[3] = {1, 1, 1}, rest = size / a, first = 1, ok = 1;
            for (int i = 0; i < L->ndims; ++i) {
                if (L->dist[i] == N) continue;
                p[i] = first ? a : rest;
                if (!first) rest = 1;
                first = 0;
            }
            if (rest != 1) ok = 0; /* fewer than two distributed dimensions */
            if (!ok) continue;
            run(L, p, rank, size);
            ++nl;
        }
    }
    int all = 0;
    MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) printf("ddt_darray: %d layouts x grids, %s (%d failures)\n", nl, all ? "FAILED" : "ok", all);
    MPI_Finalize();
    return all ? 1 : 0;
}
