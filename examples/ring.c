/* SPDX-License-Identifier: MIT */
/* A token travels around the ring of ranks several times; each rank adds
 * its rank number. Rank 0 checks the sum. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int laps = 3, next = (rank + 1) % size, prev = (rank + size - 1) % size;
    long token = 0;
    for (int lap = 0; lap < laps; ++lap) {
        if (rank == 0) {
            MPI_Send(&token, 1, MPI_LONG, next, lap, MPI_COMM_WORLD);
            MPI_Recv(&token, 1, MPI_LONG, prev, lap, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(&token, 1, MPI_LONG, prev, lap, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            token += rank;
            MPI_Send(&token, 1, MPI_LONG, next, lap, MPI_COMM_WORLD);
        }
    }
    if (rank == 0) {
        const long want = (long)laps * size * (size - 1) / 2;
        printf("ring: token %ld after %d laps over %d ranks (expected %ld): %s\n", token, laps, size,
               want, token == want ? "ok" : "WRONG");
        MPI_Finalize();
        return token == want ? 0 : 1;
    }
    MPI_Finalize();
    return 0;
}
