/* SPDX-License-Identifier: MIT */
/* Large contiguous puts and gets, which take the netmod's native RMA when the
 * target is reached through the netmod (shm off, or another node), ordered
 * against the messages of the epoch before:
 *   epoch 1: rank w1 writes every element of rank 0's window with a
 *            noncontiguous (vector) put, which goes by message and is
 *            applied by rank 0 inside the fence; rank 0 also stores into
 *            its own window (local stores before the fence);
 *   epoch 2: rank w2 overwrites the whole window with one contiguous put
 *            (native), and rank 0 reads rank 1's whole window with one
 *            contiguous get (native): what rank 1 stored locally in epoch 1.
 * After the fence every element must hold epoch 2's value: a native put that
 * landed before rank 0 applied epoch 1's message would be overwritten by it.
 * Also: a put and a get of the same target in one epoch on disjoint halves,
 * puts with a nonzero true_lb, windows of both flavors. */
#include "mpitest.h"

enum { N = 1 << 17 }; /* ints per window: 512 KiB */

static int rank, size;

static int val(int iter, int phase, int i) { return iter * 1000003 + phase * 7919 + i; }

static void run(MPI_Win win, int* mem, int iters) {
    int* buf = malloc(sizeof(int) * N);
    int* got = malloc(sizeof(int) * N);
    CHECK(buf && got, "malloc");
    const int w1 = size > 2 ? 2 : 1; /* writer of epoch 1 */
    const int w2 = 1;                /* writer of epoch 2 */
    MPI_Datatype evens;              /* every other int: a message, never native */
    CHECK_MPI(MPI_Type_vector(N / 2, 1, 2, MPI_INT, &evens));
    CHECK_MPI(MPI_Type_commit(&evens));
    CHECK_MPI(MPI_Win_fence(0, win));
    for (int it = 0; it < iters; ++it) {
        /* epoch 1 */
        if (rank == 1)
            for (int i = 0; i < N; ++i) mem[i] = val(it, 3, i); /* local stores */
        if (rank == w1) {
            for (int i = 0; i < N; ++i) buf[i] = val(it, 1, i);
            CHECK_MPI(MPI_Put(buf, 1, evens, 0, 0, 1, evens, win));
            CHECK_MPI(MPI_Put(buf + 1, 1, evens, 0, 1, 1, evens, win));
        }
        CHECK_MPI(MPI_Win_fence(0, win));
        /* epoch 2 */
        if (rank == w2) {
            for (int i = 0; i < N; ++i) got[i] = val(it, 2, i);
            CHECK_MPI(MPI_Put(got, N, MPI_INT, 0, 0, N, MPI_INT, win));
        }
        if (rank == 0) {
            memset(buf, 0, sizeof(int) * N);
            CHECK_MPI(MPI_Get(buf, N, MPI_INT, 1, 0, N, MPI_INT, win));
        }
        CHECK_MPI(MPI_Win_fence(0, win));
        if (rank == 0)
            for (int i = 0; i < N; ++i) {
                CHECK(mem[i] == val(it, 2, i), "iter %d: mem[%d] = %d, want epoch 2's %d", it, i,
                      mem[i], val(it, 2, i));
                CHECK(buf[i] == val(it, 3, i), "iter %d: get [%d] = %d, want %d", it, i, buf[i],
                      val(it, 3, i));
            }
        /* rank 0 reads its window in the epoch that follows, in which w1
         * puts into it again: only after this barrier */
        CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    }
    /* one epoch: put the first half of the right neighbour's window, get
     * the second half of the left one's; a type with true_lb = 4096 ints */
    const int right = (rank + 1) % size, left = (rank + size - 1) % size;
    for (int i = 0; i < N; ++i) mem[i] = val(rank, 4, i);
    for (int i = 0; i < N; ++i) buf[i] = val(rank, 5, i);
    memset(got, 0, sizeof(int) * N);
    int one = 1;
    MPI_Aint disp = 4096 * (MPI_Aint)sizeof(int);
    MPI_Datatype blk;
    CHECK_MPI(MPI_Type_contiguous(N / 2 - 4096, MPI_INT, &blk));
    MPI_Datatype blk_lb;
    CHECK_MPI(MPI_Type_create_hindexed(1, &one, &disp, blk, &blk_lb));
    CHECK_MPI(MPI_Type_commit(&blk_lb));
    CHECK_MPI(MPI_Win_fence(0, win));
    CHECK_MPI(MPI_Put(buf, 1, blk_lb, right, 0, 1, blk_lb, win));   /* ints [4096, N/2) */
    CHECK_MPI(MPI_Get(got + N / 2, N / 2, MPI_INT, left, N / 2, N / 2, MPI_INT, win));
    CHECK_MPI(MPI_Win_fence(0, win));
    for (int i = 0; i < N; ++i) {
        const int want = i >= 4096 && i < N / 2 ? val(left, 5, i) : val(rank, 4, i);
        CHECK(mem[i] == want, "halves: mem[%d] = %d, want %d", i, mem[i], want);
    }
    for (int i = N / 2; i < N; ++i)
        CHECK(got[i] == val(left, 4, i), "halves: get [%d] = %d, want %d", i, got[i], val(left, 4, i));
    CHECK_MPI(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
    MPI_Type_free(&evens);
    MPI_Type_free(&blk);
    MPI_Type_free(&blk_lb);
    free(buf);
    free(got);
}

int main(int argc, char** argv) {
    mt_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int iters = argc > 1 ? atoi(argv[1]) : 20;
    CHECK(size >= 2, "needs 2 ranks");

    int* mem = malloc(sizeof(int) * N);
    CHECK(mem, "malloc");
    MPI_Win win;
    CHECK_MPI(MPI_Win_create(mem, sizeof(int) * N, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    run(win, mem, iters);
    CHECK_MPI(MPI_Win_free(&win));
    free(mem);

    int* amem = NULL;
    CHECK_MPI(MPI_Win_allocate(sizeof(int) * N, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &amem, &win));
    run(win, amem, iters);
    CHECK_MPI(MPI_Win_free(&win));
    MPI_Finalize();
    return 0;
}
