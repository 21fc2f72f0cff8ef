/* SPDX-License-Identifier: MIT */
/* A rank killed in the middle of transfers (run by killed.sh, which checks
 * that no segment is left in /dev/shm). Rank 1 starts large and small sends
 * to rank 0 and to rank 2, then kills itself with SIGKILL while they are in
 * flight; the other ranks are receiving when the job is torn down. */
#include <signal.h>
#include <unistd.h>

#include "shmtest.h"

#define BIG (4 << 20)
#define NBIG 8

int main(int argc, char** argv) {
    mt_init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size >= 2, "needs 2 ranks");
    unsigned char* buf = calloc(NBIG, BIG);
    CHECK(buf != NULL, "malloc");
    MPI_Request r[2 * NBIG + 64];
    int n = 0;
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 1) {
        for (int i = 0; i < NBIG; ++i)
            CHECK_MPI(MPI_Isend(buf + (size_t)i * BIG, BIG, MPI_BYTE, i % 2 == 0 || size < 3 ? 0 : 2,
                                1, MPI_COMM_WORLD, &r[n++]));
        for (int i = 0; i < 64; ++i)
            CHECK_MPI(MPI_Isend(buf, 100, MPI_BYTE, 0, 2, MPI_COMM_WORLD, &r[n++]));
        int flag = 0;
        CHECK_MPI(MPI_Testall(n, r, &flag, MPI_STATUSES_IGNORE));
        printf("killed: rank 1 dies now\n");
        fflush(stdout);
        raise(SIGKILL);
    }
    /* Everybody else receives forever: the job ends when mpiexec kills it. */
    for (;;) {
        MPI_Status st;
        CHECK_MPI(MPI_Recv(buf, NBIG * BIG, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
    }
}
