/* SPDX-License-Identifier: MIT */
/* One-sided basics on Win_create and Win_allocate windows: put, get and
 * accumulate with contiguous types to every rank (self included), many small
 * puts in one epoch, get after put in the next epoch, large transfers
 * (several messages, zero-copy pieces), window attributes, name and group. */
#include "mpitest.h"

enum { N = 1 << 18 }; /* ints per window: 1 MiB */

static int rank, size;

static int val(int writer, int target, int i) { return writer * 1000003 + target * 7919 + i; }

static void run(MPI_Win win, int* mem) {
    int* buf = malloc(sizeof(int) * N);
    CHECK(buf, "malloc");
    for (int i = 0; i < N; ++i) mem[i] = -1;
    CHECK_MPI(MPI_Win_fence(0, win));

    /* 256 small puts of 8 bytes to every rank, each into my own slice. */
    const int per = 256, slice = 2 * per;
    for (int t = 0; t < size; ++t)
        for (int k = 0; k < per; ++k) {
            int pair[2] = {val(rank, t, 2 * k), val(rank, t, 2 * k + 1)};
            CHECK_MPI(MPI_Put(pair, 2, MPI_INT, t, rank * slice + 2 * k, 2, MPI_INT, win));
        }
    CHECK_MPI(MPI_Win_fence(0, win));
    for (int w = 0; w < size; ++w)
        for (int i = 0; i < slice; ++i)
            CHECK(mem[w * slice + i] == val(w, rank, i), "small put from %d: mem[%d] = %d", w,
                  w * slice + i, mem[w * slice + i]);

    /* get after put, next epoch: read the right neighbour's slice written by me. */
    int right = (rank + 1) % size;
    int got[512];
    CHECK_MPI(MPI_Get(got, slice, MPI_INT, right, rank * slice, slice, MPI_INT, win));
    CHECK_MPI(MPI_Win_fence(0, win));
    for (int i = 0; i < slice; ++i) CHECK(got[i] == val(rank, right, i), "get[%d] = %d", i, got[i]);

    /* one large put (whole window minus a prefix) to the right neighbour, and a
     * large get from the left one, in separate epochs. */
    const int big = N - 4096;
    for (int i = 0; i < big; ++i) buf[i] = val(rank, right, i);
    CHECK_MPI(MPI_Put(buf, big, MPI_INT, right, 4096, big, MPI_INT, win));
    CHECK_MPI(MPI_Win_fence(0, win));
    int left = (rank + size - 1) % size;
    for (int i = 0; i < big; ++i) CHECK(mem[4096 + i] == val(left, rank, i), "big put [%d]", i);
    memset(buf, 0, sizeof(int) * N);
    CHECK_MPI(MPI_Get(buf, big, MPI_INT, left, 4096, big, MPI_INT, win));
    CHECK_MPI(MPI_Win_fence(0, win));
    for (int i = 0; i < big; ++i)
        CHECK(buf[i] == val((left + size - 1) % size, left, i), "big get [%d] = %d", i, buf[i]);

    /* accumulate: everybody adds to every rank's first 1000 ints (atomic per element). */
    for (int i = 0; i < 1000; ++i) mem[i] = 0;
    for (int i = 0; i < 1000; ++i) buf[i] = i + rank;
    CHECK_MPI(MPI_Win_fence(0, win));
    for (int t = 0; t < size; ++t) CHECK_MPI(MPI_Accumulate(buf, 1000, MPI_INT, t, 0, 1000, MPI_INT, MPI_SUM, win));
    CHECK_MPI(MPI_Win_fence(0, win));
    for (int i = 0; i < 1000; ++i)
        CHECK(mem[i] == size * i + size * (size - 1) / 2, "acc sum [%d] = %d", i, mem[i]);
    CHECK_MPI(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
    free(buf);
}

static void check_attrs(MPI_Win win, void* base, MPI_Aint bytes, int flavor) {
    void* v;
    int flag = 0;
    CHECK_MPI(MPI_Win_get_attr(win, MPI_WIN_BASE, &v, &flag));
    CHECK(flag && v == base, "WIN_BASE");
    CHECK_MPI(MPI_Win_get_attr(win, MPI_WIN_SIZE, &v, &flag));
    CHECK(flag && *(MPI_Aint*)v == bytes, "WIN_SIZE");
    CHECK_MPI(MPI_Win_get_attr(win, MPI_WIN_DISP_UNIT, &v, &flag));
    CHECK(flag && *(int*)v == (int)sizeof(int), "WIN_DISP_UNIT");
    CHECK_MPI(MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &v, &flag));
    CHECK(flag && *(int*)v == flavor, "WIN_CREATE_FLAVOR %d", *(int*)v);
    CHECK_MPI(MPI_Win_get_attr(win, MPI_WIN_MODEL, &v, &flag));
    CHECK(flag && (*(int*)v == MPI_WIN_UNIFIED || *(int*)v == MPI_WIN_SEPARATE), "WIN_MODEL");
    char name[MPI_MAX_OBJECT_NAME];
    int len = -1;
    CHECK_MPI(MPI_Win_get_name(win, name, &len));
    CHECK(len == 0, "a new window has an empty name");
    CHECK_MPI(MPI_Win_set_name(win, "bob"));
    CHECK_MPI(MPI_Win_get_name(win, name, &len));
    CHECK(len == 3 && strcmp(name, "bob") == 0, "name");
    MPI_Group g = MPI_GROUP_NULL;
    CHECK_MPI(MPI_Win_get_group(win, &g));
    CHECK(g != MPI_GROUP_NULL, "window group");
    CHECK_MPI(MPI_Group_free(&g));
    CHECK(MPI_Win_fromint(MPI_Win_toint(win)) == win, "toint/fromint");
}

int main(int argc, char** argv) {
    mt_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size <= 16, "test assumes at most 16 ranks");

    int* mem = malloc(sizeof(int) * N);
    MPI_Win win;
    CHECK_MPI(MPI_Win_create(mem, sizeof(int) * N, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    check_attrs(win, mem, sizeof(int) * N, MPI_WIN_FLAVOR_CREATE);
    run(win, mem);
    CHECK_MPI(MPI_Win_free(&win));
    CHECK(win == MPI_WIN_NULL, "Win_free sets MPI_WIN_NULL");
    free(mem);

    int* amem = NULL;
    CHECK_MPI(MPI_Win_allocate(sizeof(int) * N, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &amem, &win));
    CHECK(amem != NULL, "Win_allocate base");
    check_attrs(win, amem, sizeof(int) * N, MPI_WIN_FLAVOR_ALLOCATE);
    run(win, amem);
    CHECK_MPI(MPI_Win_free(&win));

    /* A window on MPI_COMM_SELF: every operation is local. */
    long cell[4] = {0, 0, 0, 0}, mine[2] = {5, 6}, back[2] = {0, 0};
    CHECK_MPI(MPI_Win_create(cell, sizeof cell, sizeof(long), MPI_INFO_NULL, MPI_COMM_SELF, &win));
    CHECK_MPI(MPI_Win_fence(0, win));
    CHECK_MPI(MPI_Put(mine, 2, MPI_LONG, 0, 0, 2, MPI_LONG, win));
    CHECK_MPI(MPI_Accumulate(mine, 2, MPI_LONG, 0, 2, 2, MPI_LONG, MPI_SUM, win));
    CHECK_MPI(MPI_Win_fence(0, win));
    CHECK_MPI(MPI_Get(back, 2, MPI_LONG, 0, 1, 2, MPI_LONG, win));
    CHECK_MPI(MPI_Win_fence(0, win));
    CHECK(cell[0] == 5 && cell[1] == 6 && cell[2] == 5 && cell[3] == 6, "self window %ld %ld %ld %ld",
          cell[0], cell[1], cell[2], cell[3]);
    CHECK(back[0] == 6 && back[1] == 5, "self get");
    CHECK_MPI(MPI_Win_free(&win));

    if (rank == 0) printf("rma_basic: OK\n");
    MPI_Finalize();
    return 0;
}
