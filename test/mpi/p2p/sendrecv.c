/* SPDX-License-Identifier: MIT */
/* MPI_Sendrecv and MPI_Sendrecv_replace around a ring (eager and rendezvous
 * sizes), and with MPI_PROC_NULL partners at the ends of a line. */
#include "mpitest.h"

int main(int argc, char** argv) {
    mt_init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int right = (rank + 1) % size, left = (rank + size - 1) % size;
    const int ns[] = {1, 100000};
    for (int k = 0; k < 2; ++k) {
        const int n = ns[k];
        int* a = malloc(sizeof(int) * (size_t)n);
        int* b = malloc(sizeof(int) * (size_t)n);
        for (int i = 0; i < n; ++i) a[i] = rank * 7 + i;
        MPI_Status st;
        CHECK_MPI(MPI_Sendrecv(a, n, MPI_INT, right, 1, b, n, MPI_INT, left, 1, MPI_COMM_WORLD, &st));
        CHECK(st.MPI_SOURCE == left && st.MPI_TAG == 1, "sendrecv status");
        for (int i = 0; i < n; ++i) CHECK(b[i] == left * 7 + i, "sendrecv data %d", i);
        CHECK_MPI(MPI_Sendrecv_replace(a, n, MPI_INT, right, 2, left, 2, MPI_COMM_WORLD, &st));
        for (int i = 0; i < n; ++i) CHECK(a[i] == left * 7 + i, "replace data %d", i);
        free(a);
        free(b);
    }
    /* a line: the ends talk to MPI_PROC_NULL */
    int x = rank, y = -5;
    const int up = rank + 1 < size ? rank + 1 : MPI_PROC_NULL;
    const int down = rank > 0 ? rank - 1 : MPI_PROC_NULL;
    MPI_Status st;
    CHECK_MPI(MPI_Sendrecv(&x, 1, MPI_INT, up, 3, &y, 1, MPI_INT, down, 3, MPI_COMM_WORLD, &st));
    if (down == MPI_PROC_NULL)
        CHECK(y == -5 && st.MPI_SOURCE == MPI_PROC_NULL, "PROC_NULL source wrote data or status");
    else
        CHECK(y == rank - 1, "line got %d", y);
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0) printf("sendrecv: OK\n");
    MPI_Finalize();
    return 0;
}
