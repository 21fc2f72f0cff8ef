/* SPDX-License-Identifier: MIT */
/* CH4LITE_ASYNC_PROGRESS=1 (docs/threads.md): nonblocking operations
 * advance while the application makes no MPI call at all.
 * - MPI_Ibcast of 1 MiB from rank 0 (a tree: inner ranks forward), every
 *   rank then watches its receive buffer without calling MPI until the
 *   root's pattern is there (at most 60 s), then MPI_Wait;
 * - MPI_Iallreduce of 64 Ki ints, watched the same way for the sum;
 * - a 1 MiB MPI_Isend / MPI_Irecv from each rank to the next (rendezvous on
 *   a node), watched the same way;
 * - the runtime still works after: the collectives, a blocking exchange and
 *   MPI_Finalize (which stops the thread).
 * Without the progress thread a watch never ends (the test then fails at
 * 60 s): the receive buffers are read before completion on purpose, which
 * only this implementation's test may do. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mpitest.h"

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Reads buf without MPI until every int equals want(i), or 60 s pass. */
static int watch(const volatile int* buf, size_t n, int (*want)(size_t, int), int arg) {
    const double until = now() + 60.0;
    while (now() < until) {
        size_t i = 0;
        while (i < n && buf[i] == want(i, arg)) ++i;
        if (i == n) return 1;
        struct timespec d = {0, 100000};
        nanosleep(&d, NULL);
    }
    return 0;
}

static int bcast_value(size_t i, int arg) { return (int)(i * 7 + 3) ^ arg; }
static int sum_value(size_t i, int size) { return (int)(i % 1000) * size + size * (size - 1) / 2; }
static int ring_value(size_t i, int src) { return (int)i * 3 + src * 100003; }

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    mt_rank = rank;
    mt_check_path();
    const char* e = getenv("CH4LITE_ASYNC_PROGRESS");
    CHECK(e && strcmp(e, "1") == 0, "run this test with CH4LITE_ASYNC_PROGRESS=1");

    const size_t n = (1 << 20) / sizeof(int);
    int* a = malloc(n * sizeof(int));
    int* b = malloc(n * sizeof(int));
    CHECK(a && b, "malloc");
    for (int round = 0; round < 3; ++round) {
        /* broadcast */
        for (size_t i = 0; i < n; ++i) a[i] = rank == 0 ? bcast_value(i, round) : -1;
        MPI_Request q;
        CHECK_MPI(MPI_Ibcast(a, (int)n, MPI_INT, 0, MPI_COMM_WORLD, &q));
        CHECK(watch(a, n, bcast_value, round), "round %d: MPI_Ibcast did not advance without MPI calls", round);
        CHECK_MPI(MPI_Wait(&q, MPI_STATUS_IGNORE));

        /* allreduce */
        const size_t m = 65536;
        for (size_t i = 0; i < m; ++i) {
            a[i] = (int)(i % 1000) + rank;
            b[i] = -1;
        }
        CHECK_MPI(MPI_Iallreduce(a, b, (int)m, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &q));
        CHECK(watch(b, m, sum_value, size), "round %d: MPI_Iallreduce did not advance without MPI calls", round);
        CHECK_MPI(MPI_Wait(&q, MPI_STATUS_IGNORE));

        /* point to point, rendezvous size */
        const int next = (rank + 1) % size, prev = (rank + size - 1) % size;
        MPI_Request qq[2];
        for (size_t i = 0; i < n; ++i) {
            a[i] = ring_value(i, rank);
            b[i] = -1;
        }
        CHECK_MPI(MPI_Irecv(b, (int)n, MPI_INT, prev, 7, MPI_COMM_WORLD, &qq[0]));
        CHECK_MPI(MPI_Isend(a, (int)n, MPI_INT, next, 7, MPI_COMM_WORLD, &qq[1]));
        CHECK(watch(b, n, ring_value, prev), "round %d: a 1 MiB message did not arrive without MPI calls", round);
        CHECK_MPI(MPI_Waitall(2, qq, MPI_STATUSES_IGNORE));
        CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    }
    /* the blocking paths as usual */
    int s = 0;
    CHECK_MPI(MPI_Allreduce(&rank, &s, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    CHECK(s == size * (size - 1) / 2, "allreduce %d", s);
    int v = rank, w = -1;
    CHECK_MPI(MPI_Sendrecv(&v, 1, MPI_INT, (rank + 1) % size, 9, &w, 1, MPI_INT, (rank + size - 1) % size, 9,
                           MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK(w == (rank + size - 1) % size, "sendrecv %d", w);
    free(a);
    free(b);
    if (rank == 0) printf("async_progress: %d ranks ok\n", size);
    MPI_Finalize();
    return 0;
}
