/* SPDX-License-Identifier: MIT */
/* Cancelling receives: a receive nobody matches is cancelled and completes
 * with MPI_Test_cancelled true; a cancelled receive does not consume a later
 * message; cancelling a completed receive has no effect. */
#include "mpitest.h"

int main(int argc, char** argv) {
    mt_init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int v = -1, flag = 0;
    MPI_Request r;
    MPI_Status st;
    CHECK_MPI(MPI_Irecv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 500, MPI_COMM_WORLD, &r));
    CHECK_MPI(MPI_Cancel(&r));
    CHECK_MPI(MPI_Wait(&r, &st));
    CHECK_MPI(MPI_Test_cancelled(&st, &flag));
    CHECK(flag, "receive was not cancelled");
    CHECK(r == MPI_REQUEST_NULL, "request not reset");
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    /* a message with the cancelled receive's signature goes to the next receive */
    if (rank == 1) {
        int x = 7;
        CHECK_MPI(MPI_Send(&x, 1, MPI_INT, 0, 500, MPI_COMM_WORLD));
    } else if (rank == 0) {
        CHECK_MPI(MPI_Recv(&v, 1, MPI_INT, 1, 500, MPI_COMM_WORLD, &st));
        CHECK(v == 7, "got %d", v);
        CHECK_MPI(MPI_Test_cancelled(&st, &flag));
        CHECK(!flag, "normal receive reported cancelled");
    }
    /* cancelling a completed receive: it stays a normal completion */
    if (rank == 1) {
        int x = 8;
        CHECK_MPI(MPI_Send(&x, 1, MPI_INT, 0, 501, MPI_COMM_WORLD));
    } else if (rank == 0) {
        CHECK_MPI(MPI_Irecv(&v, 1, MPI_INT, 1, 501, MPI_COMM_WORLD, &r));
        do CHECK_MPI(MPI_Request_get_status(r, &flag, MPI_STATUS_IGNORE)); while (!flag);
        CHECK_MPI(MPI_Cancel(&r));
        CHECK_MPI(MPI_Wait(&r, &st));
        CHECK_MPI(MPI_Test_cancelled(&st, &flag));
        CHECK(!flag && v == 8, "completed receive was cancelled (v=%d)", v);
    }
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0) printf("cancel: OK\n");
    MPI_Finalize();
    return 0;
}
