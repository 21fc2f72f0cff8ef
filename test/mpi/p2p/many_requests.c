/* SPDX-License-Identifier: MIT */
/* 10,000 outstanding requests: every rank posts 10,000 receives from its left
 * neighbour, then 10,000 sends to its right neighbour, then Waitall. */
#include "mpitest.h"

#define NREQ 10000

int main(int argc, char** argv) {
    mt_init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int left = (rank + size - 1) % size, right = (rank + 1) % size;
    int* in = malloc(sizeof(int) * NREQ * 2);
    int* out = malloc(sizeof(int) * NREQ * 2);
    MPI_Request* reqs = malloc(sizeof(MPI_Request) * NREQ * 2);
    MPI_Status* sts = malloc(sizeof(MPI_Status) * NREQ * 2);
    CHECK(in && out && reqs && sts, "malloc");
    for (int round = 0; round < 2; ++round) {
        for (int i = 0; i < NREQ; ++i) {
            in[i] = -1;
            CHECK_MPI(MPI_Irecv(&in[i], 1, MPI_INT, left, i % 1000, MPI_COMM_WORLD, &reqs[i]));
        }
        for (int i = 0; i < NREQ; ++i) {
            out[i] = rank * NREQ + i + round;
            CHECK_MPI(MPI_Isend(&out[i], 1, MPI_INT, right, i % 1000, MPI_COMM_WORLD, &reqs[NREQ + i]));
        }
        CHECK_MPI(MPI_Waitall(2 * NREQ, reqs, sts));
        for (int i = 0; i < NREQ; ++i) {
            CHECK(in[i] == left * NREQ + i + round, "recv %d got %d", i, in[i]);
            CHECK(sts[i].MPI_SOURCE == left && sts[i].MPI_TAG == i % 1000, "status %d", i);
            CHECK(reqs[i] == MPI_REQUEST_NULL, "request %d not reset", i);
        }
    }
    free(in); free(out); free(reqs); free(sts);
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0) printf("many_requests: OK\n");
    MPI_Finalize();
    return 0;
}
