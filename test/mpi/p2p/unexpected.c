/* SPDX-License-Identifier: MIT */
/* Unexpected-message floods: every other rank sends many eager messages and
 * several rendezvous-sized ones to rank 0 before rank 0 posts a single
 * receive (it waits on a barrier first). Nothing may be lost or reordered. */
#include "mpitest.h"

#define NSMALL 5000
#define NBIG 8
#define BIG (1 << 20)

int main(int argc, char** argv) {
    mt_init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    unsigned char* big = malloc(BIG);
    CHECK(big != NULL, "malloc");
    if (rank != 0) {
        MPI_Request* r = malloc(sizeof(MPI_Request) * (NSMALL + NBIG));
        int* vals = malloc(sizeof(int) * NSMALL);
        for (int i = 0; i < NSMALL; ++i) {
            vals[i] = i;
            CHECK_MPI(MPI_Isend(&vals[i], 1, MPI_INT, 0, 1, MPI_COMM_WORLD, &r[i]));
        }
        unsigned char* bigs = malloc((size_t)BIG * NBIG);
        for (int i = 0; i < NBIG; ++i) {
            mt_fill(bigs + (size_t)i * BIG, BIG, rank * 10 + i);
            CHECK_MPI(MPI_Isend(bigs + (size_t)i * BIG, BIG, MPI_BYTE, 0, 2, MPI_COMM_WORLD, &r[NSMALL + i]));
        }
        CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
        CHECK_MPI(MPI_Waitall(NSMALL + NBIG, r, MPI_STATUSES_IGNORE));
        free(r); free(vals); free(bigs);
    } else {
        CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
        for (int src = 1; src < size; ++src) {
            for (int i = 0; i < NSMALL; ++i) {
                int v = -1;
                CHECK_MPI(MPI_Recv(&v, 1, MPI_INT, src, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
                CHECK(v == i, "from %d: small %d carried %d", src, i, v);
            }
            for (int i = 0; i < NBIG; ++i) {
                CHECK_MPI(MPI_Recv(big, BIG, MPI_BYTE, src, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
                size_t bad = mt_verify(big, BIG, src * 10 + i);
                CHECK(bad == 0, "from %d big %d: byte %zu", src, i, bad - 1);
            }
        }
    }
    free(big);
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0) printf("unexpected: OK\n");
    MPI_Finalize();
    return 0;
}
