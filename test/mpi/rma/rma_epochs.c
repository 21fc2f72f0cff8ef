/* SPDX-License-Identifier: MIT */
/* Fence-only programs: thousands of epochs with puts, gets, accumulates and
 * fetch-and-ops (run with small RMA pool limits: a leaked reply slot or
 * message would exhaust them and fail with MPI_ERR_NO_MEM), the assert
 * flags in the combinations programs use, and windows created and freed in
 * a loop. */
#include "mpitest.h"

static int rank, size;

int main(int argc, char** argv) {
    mt_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    /* make check: 500 epochs; make check-full (CH4LITE_TEST_FULL): 3000 */
    const int epochs = argc > 1 ? atoi(argv[1]) : mt_full() ? 3000 : 500;
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    long* mem;
    MPI_Win win;
    CHECK_MPI(MPI_Win_allocate(64 * sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
    for (int i = 0; i < 64; ++i) mem[i] = 0;
    CHECK_MPI(MPI_Win_fence(MPI_MODE_NOPRECEDE, win));
    long got = -1, fetched = -1, one = 1;
    for (int e = 0; e < epochs; ++e) {
        long v = (long)e * 10 + rank;
        CHECK_MPI(MPI_Put(&v, 1, MPI_LONG, right, e % 32, 1, MPI_LONG, win));
        CHECK_MPI(MPI_Get(&got, 1, MPI_LONG, right, 32 + (e + 1) % 16, 1, MPI_LONG, win));
        /* counters alternate by parity: the next epoch's updates (which may
         * land as soon as this rank leaves the fence) go to the other one */
        CHECK_MPI(MPI_Accumulate(&one, 1, MPI_LONG, right, 48 + e % 2, 1, MPI_LONG, MPI_SUM, win));
        CHECK_MPI(MPI_Fetch_and_op(&one, &fetched, MPI_LONG, left, 50 + e % 2, MPI_SUM, win));
        /* alternate the hints: NOSTORE (no local stores since the last fence)
         * and NOPUT (no puts into my window in the next epoch) are hints only */
        CHECK_MPI(MPI_Win_fence(e % 3 == 0 ? MPI_MODE_NOSTORE : 0, win));
        CHECK(mem[e % 32] == (long)e * 10 + left, "epoch %d: put %ld", e, mem[e % 32]);
        CHECK(mem[48 + e % 2] == e / 2 + 1 && fetched == e / 2, "epoch %d: acc %ld, fetched %ld", e,
              mem[48 + e % 2], fetched);
        CHECK(got == 0, "epoch %d: get %ld", e, got);
        if (e % 100 == 99) {
            /* an epoch with nothing in it, closed by NOPRECEDE ... NOSUCCEED pairs */
            CHECK_MPI(MPI_Win_fence(MPI_MODE_NOSUCCEED | MPI_MODE_NOPRECEDE | MPI_MODE_NOSTORE, win));
            mem[63] = e;  /* local store outside any epoch */
            CHECK_MPI(MPI_Win_fence(MPI_MODE_NOPRECEDE | MPI_MODE_NOPUT, win));
            CHECK_MPI(MPI_Get(&got, 1, MPI_LONG, right, 63, 1, MPI_LONG, win));
            CHECK_MPI(MPI_Win_fence(0, win));
            CHECK(got == e, "get after a NOPRECEDE/NOSUCCEED gap: %ld", got);
            got = 0;
        }
    }
    CHECK_MPI(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
    CHECK_MPI(MPI_Win_free(&win));
    /* windows created and freed in a loop, one epoch each */
    for (int k = 0; k < 200; ++k) {
        long cell = -1, v = k + rank;
        CHECK_MPI(MPI_Win_create(&cell, sizeof cell, sizeof cell, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
        CHECK_MPI(MPI_Win_fence(MPI_MODE_NOPRECEDE, win));
        CHECK_MPI(MPI_Put(&v, 1, MPI_LONG, right, 0, 1, MPI_LONG, win));
        CHECK_MPI(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
        CHECK(cell == k + left, "window %d: %ld", k, cell);
        CHECK_MPI(MPI_Win_free(&win));
    }
    if (rank == 0) printf("rma_epochs: OK\n");
    MPI_Finalize();
    return 0;
}
