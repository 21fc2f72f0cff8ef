/* SPDX-License-Identifier: MIT */
/* Synchronous sends complete only after the receiver matched: rank 0
 * Issends to rank 1 and tests it many times while rank 1 has not posted the
 * receive (rank 1 waits for a "go" message that rank 0 sends only after its
 * tests), so the Issend must still be incomplete. Eager and rendezvous
 * sizes; Rsend and Irsend work as standard sends. */
#include "mpitest.h"

int main(int argc, char** argv) {
    mt_init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    const int sizes[] = {0, 4, 4000, 400000};
    char* buf = malloc(400000);
    for (int k = 0; k < 4; ++k) {
        const int n = sizes[k];
        if (rank == 0) {
            MPI_Request r;
            mt_fill(buf, (size_t)n, k);
            CHECK_MPI(MPI_Issend(buf, n, MPI_BYTE, 1, 10 + k, MPI_COMM_WORLD, &r));
            int done = 0;
            for (int i = 0; i < 2000 && !done; ++i) CHECK_MPI(MPI_Test(&r, &done, MPI_STATUS_IGNORE));
            CHECK(!done, "size %d: Issend completed before the receive was posted", n);
            CHECK_MPI(MPI_Send(&k, 1, MPI_INT, 1, 1, MPI_COMM_WORLD));  /* go */
            CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
            CHECK_MPI(MPI_Ssend(buf, n, MPI_BYTE, 1, 20 + k, MPI_COMM_WORLD));
        } else if (rank == 1) {
            int go;
            CHECK_MPI(MPI_Recv(&go, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            CHECK_MPI(MPI_Recv(buf, n, MPI_BYTE, 0, 10 + k, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            CHECK(mt_verify(buf, (size_t)n, k) == 0, "size %d: data", n);
            CHECK_MPI(MPI_Recv(buf, n, MPI_BYTE, 0, 20 + k, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        }
    }
    /* ready sends: the receive is posted before the barrier */
    int v = 0;
    if (rank == 1) {
        MPI_Request r;
        CHECK_MPI(MPI_Irecv(&v, 1, MPI_INT, 0, 3, MPI_COMM_WORLD, &r));
        CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
        CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
        CHECK(v == 9, "rsend carried %d", v);
        CHECK_MPI(MPI_Irecv(&v, 1, MPI_INT, 0, 4, MPI_COMM_WORLD, &r));
        CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
        CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
        CHECK(v == 10, "irsend carried %d", v);
    } else {
        CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
        if (rank == 0) { v = 9; CHECK_MPI(MPI_Rsend(&v, 1, MPI_INT, 1, 3, MPI_COMM_WORLD)); }
        CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
        if (rank == 0) {
            MPI_Request r;
            v = 10;
            CHECK_MPI(MPI_Irsend(&v, 1, MPI_INT, 1, 4, MPI_COMM_WORLD, &r));
            CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
        }
    }
    free(buf);
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0) printf("ssend: OK\n");
    MPI_Finalize();
    return 0;
}
