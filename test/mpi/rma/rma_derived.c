/* SPDX-License-Identifier: MIT */
/* Derived origin and target datatypes for every operation: vector, indexed,
 * struct and resized types on either side, pair types with padding for
 * MINLOC/MAXLOC, a strided transfer spread over many messages, and a matrix
 * transpose through a window (rows put into columns of the neighbour). */
#include "mpitest.h"

enum { M = 8, BIG = 50000 };

static int rank, size;

static void transpose(MPI_Win win, double* mat) {
    /* mat is this rank's M x M window; put my matrix A (A[i][j] = rank*100 + i*M + j)
     * transposed into the right neighbour: my row i -> its column i. */
    MPI_Datatype col;
    CHECK_MPI(MPI_Type_vector(M, 1, M, MPI_DOUBLE, &col));
    CHECK_MPI(MPI_Type_commit(&col));
    double a[M][M];
    for (int i = 0; i < M; ++i)
        for (int j = 0; j < M; ++j) a[i][j] = rank * 100 + i * M + j;
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    CHECK_MPI(MPI_Win_fence(0, win));
    for (int i = 0; i < M; ++i) CHECK_MPI(MPI_Put(a[i], M, MPI_DOUBLE, right, i, 1, col, win));
    CHECK_MPI(MPI_Win_fence(0, win));
    for (int i = 0; i < M; ++i)
        for (int j = 0; j < M; ++j)
            CHECK(mat[i * M + j] == left * 100 + j * M + i, "transpose [%d][%d] = %g", i, j, mat[i * M + j]);
    /* and back with gets: column i of the neighbour's window into my row i */
    double b[M][M];
    for (int i = 0; i < M; ++i) CHECK_MPI(MPI_Get(b[i], M, MPI_DOUBLE, right, i, 1, col, win));
    CHECK_MPI(MPI_Win_fence(0, win));
    for (int i = 0; i < M; ++i)
        for (int j = 0; j < M; ++j) CHECK(b[i][j] == a[i][j], "transpose back [%d][%d]", i, j);
    MPI_Type_free(&col);
}

int main(int argc, char** argv) {
    mt_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;

    /* ---- transpose on a Win_allocate window of doubles */
    double* mat;
    MPI_Win win;
    CHECK_MPI(MPI_Win_allocate(M * M * sizeof(double), sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD,
                               &mat, &win));
    transpose(win, mat);
    CHECK_MPI(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
    CHECK_MPI(MPI_Win_free(&win));

    /* ---- an int window with a byte disp_unit */
    int* mem = calloc(2 * BIG + 64, sizeof(int));
    CHECK_MPI(MPI_Win_create(mem, (2 * BIG + 64) * sizeof(int), 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    CHECK_MPI(MPI_Win_fence(0, win));

    /* put: origin vector (every 3rd int) -> target indexed {blocks 1,2,3 at 0,5,20} */
    int src[18], blens[3] = {1, 2, 3}, disps[3] = {0, 5, 20};
    for (int i = 0; i < 18; ++i) src[i] = rank * 1000 + i;
    MPI_Datatype ovec, tidx;
    CHECK_MPI(MPI_Type_vector(6, 1, 3, MPI_INT, &ovec));
    CHECK_MPI(MPI_Type_indexed(3, blens, disps, MPI_INT, &tidx));
    CHECK_MPI(MPI_Type_commit(&ovec));
    CHECK_MPI(MPI_Type_commit(&tidx));
    CHECK_MPI(MPI_Put(src, 1, ovec, right, 4 * sizeof(int), 1, tidx, win));
    CHECK_MPI(MPI_Win_fence(0, win));
    {
        const int at[6] = {4, 9, 10, 24, 25, 26};
        for (int k = 0; k < 6; ++k)
            CHECK(mem[at[k]] == left * 1000 + 3 * k, "vector->indexed put: mem[%d] = %d", at[k], mem[at[k]]);
    }
    /* get it back into a contiguous buffer, and into a resized (padded) type */
    int back[6] = {0}, padded[12];
    CHECK_MPI(MPI_Get(back, 6, MPI_INT, right, 4 * sizeof(int), 1, tidx, win));
    MPI_Datatype pad;
    CHECK_MPI(MPI_Type_create_resized(MPI_INT, 0, 2 * sizeof(int), &pad));
    CHECK_MPI(MPI_Type_commit(&pad));
    for (int i = 0; i < 12; ++i) padded[i] = -7;
    CHECK_MPI(MPI_Get(padded, 6, pad, right, 4 * sizeof(int), 1, tidx, win));
    CHECK_MPI(MPI_Win_fence(0, win));
    for (int k = 0; k < 6; ++k) {
        CHECK(back[k] == rank * 1000 + 3 * k, "get indexed -> contig [%d] = %d", k, back[k]);
        CHECK(padded[2 * k] == back[k] && padded[2 * k + 1] == -7, "get into resized type [%d]", k);
    }

    /* accumulate SUM with a struct-of-ints target type (two blocks) from every rank */
    MPI_Datatype tstruct;
    {
        int bl[2] = {2, 3};
        MPI_Aint dp[2] = {0, 10 * sizeof(int)};
        MPI_Datatype ts[2] = {MPI_INT, MPI_INT};
        CHECK_MPI(MPI_Type_create_struct(2, bl, dp, ts, &tstruct));
        CHECK_MPI(MPI_Type_commit(&tstruct));
    }
    for (int i = 0; i < 64; ++i) mem[i] = 0;
    CHECK_MPI(MPI_Win_fence(0, win));
    int five[5] = {1, 2, 3, 4, 5};
    for (int t = 0; t < size; ++t)
        CHECK_MPI(MPI_Accumulate(five, 5, MPI_INT, t, 0, 1, tstruct, MPI_SUM, win));
    CHECK_MPI(MPI_Win_fence(0, win));
    {
        const int at[5] = {0, 1, 10, 11, 12};
        for (int k = 0; k < 5; ++k) CHECK(mem[at[k]] == size * (k + 1), "acc struct [%d] = %d", at[k], mem[at[k]]);
    }
    /* get_accumulate with derived target and result types: old values back, MAX applied */
    int old[10] = {0}, big5[5] = {100, 100, 100, 100, 100};
    CHECK_MPI(MPI_Win_fence(0, win));
    if (rank == 0)
        CHECK_MPI(MPI_Get_accumulate(big5, 5, MPI_INT, old, 5, pad, right, 0, 1, tstruct, MPI_MAX, win));
    CHECK_MPI(MPI_Win_fence(0, win));
    if (rank == 0)
        for (int k = 0; k < 5; ++k) CHECK(old[2 * k] == size * (k + 1), "get_accumulate old [%d] = %d", k, old[2 * k]);
    if (left == 0) {
        const int at[5] = {0, 1, 10, 11, 12};
        for (int k = 0; k < 5; ++k) CHECK(mem[at[k]] == 100, "get_accumulate MAX [%d]", at[k]);
    }

    /* a strided put over many messages: BIG ints, every other int of the target */
    int* many = malloc(BIG * sizeof(int));
    for (int i = 0; i < BIG; ++i) many[i] = rank * 7 + i;
    MPI_Datatype stride2;
    CHECK_MPI(MPI_Type_vector(BIG, 1, 2, MPI_INT, &stride2));
    CHECK_MPI(MPI_Type_commit(&stride2));
    for (int i = 0; i < 2 * BIG; ++i) mem[64 + i] = -1;
    CHECK_MPI(MPI_Win_fence(0, win));
    CHECK_MPI(MPI_Put(many, BIG, MPI_INT, right, 64 * sizeof(int), 1, stride2, win));
    CHECK_MPI(MPI_Win_fence(0, win));
    for (int i = 0; i < BIG; ++i) {
        CHECK(mem[64 + 2 * i] == left * 7 + i, "strided put [%d] = %d", i, mem[64 + 2 * i]);
        CHECK(mem[64 + 2 * i + 1] == -1, "strided put wrote a gap at %d", i);
    }
    /* and accumulate over it too (element boundaries across messages), in the
     * next epoch: the checks above are loads of the same locations */
    CHECK_MPI(MPI_Win_fence(0, win));
    CHECK_MPI(MPI_Accumulate(many, BIG, MPI_INT, right, 64 * sizeof(int), 1, stride2, MPI_SUM, win));
    CHECK_MPI(MPI_Win_fence(0, win));
    for (int i = 0; i < BIG; ++i) CHECK(mem[64 + 2 * i] == 2 * (left * 7 + i), "strided acc [%d]", i);
    CHECK_MPI(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
    CHECK_MPI(MPI_Win_free(&win));

    /* ---- MINLOC/MAXLOC on pair types with padding (DOUBLE_INT 12/16, SHORT_INT 6/8) */
    struct { double v; int i; } dwin[4], dsrc[4];
    struct { short v; int i; } swin[4], ssrc[4];
    for (int k = 0; k < 4; ++k) {
        dwin[k].v = 50; dwin[k].i = -1;
        swin[k].v = -50; swin[k].i = -1;
        dsrc[k].v = rank + k; dsrc[k].i = rank;
        ssrc[k].v = (short)(rank + k); ssrc[k].i = rank;
    }
    MPI_Win dw, sw;
    CHECK_MPI(MPI_Win_create(dwin, sizeof dwin, sizeof dwin[0], MPI_INFO_NULL, MPI_COMM_WORLD, &dw));
    CHECK_MPI(MPI_Win_create(swin, sizeof swin, sizeof swin[0], MPI_INFO_NULL, MPI_COMM_WORLD, &sw));
    CHECK_MPI(MPI_Win_fence(0, dw));
    CHECK_MPI(MPI_Win_fence(0, sw));
    for (int t = 0; t < size; ++t) {
        CHECK_MPI(MPI_Accumulate(dsrc, 4, MPI_DOUBLE_INT, t, 0, 4, MPI_DOUBLE_INT, MPI_MINLOC, dw));
        CHECK_MPI(MPI_Accumulate(ssrc, 4, MPI_SHORT_INT, t, 0, 4, MPI_SHORT_INT, MPI_MAXLOC, sw));
    }
    CHECK_MPI(MPI_Win_fence(0, dw));
    CHECK_MPI(MPI_Win_fence(0, sw));
    for (int k = 0; k < 4; ++k) {
        CHECK(dwin[k].v == k && dwin[k].i == 0, "MINLOC [%d] = (%g, %d)", k, dwin[k].v, dwin[k].i);
        CHECK(swin[k].v == size - 1 + k && swin[k].i == size - 1, "MAXLOC [%d] = (%d, %d)", k,
              swin[k].v, swin[k].i);
    }
    CHECK_MPI(MPI_Win_free(&dw));
    CHECK_MPI(MPI_Win_free(&sw));

    MPI_Type_free(&ovec);
    MPI_Type_free(&tidx);
    MPI_Type_free(&pad);
    MPI_Type_free(&tstruct);
    MPI_Type_free(&stride2);
    free(many);
    free(mem);
    if (rank == 0) printf("rma_derived: OK\n");
    MPI_Finalize();
    return 0;
}
