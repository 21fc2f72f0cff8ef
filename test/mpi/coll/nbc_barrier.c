/* SPDX-License-Identifier: MIT */
/* MPI_Ibarrier and MPI_Barrier_init (the schedule engine's first users):
 * nobody leaves before the last one entered (rank 0 enters late; exit
 * times against its entry time on the host's one clock), 20 outstanding
 * at once completed in reverse order and by MPI_Waitany, mixed with
 * point-to-point on the same communicator, a persistent barrier started
 * many times, and the request rules (MPI_Request_free of an active
 * nonblocking or persistent collective, MPI_Start of an active one). */
#include <unistd.h>

#include "mpitest.h"

int main(int argc, char** argv) {
    mt_init(&argc, &argv);
    int me, p;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

    /* 1. Barrier semantics: nobody leaves before rank 0 entered (rank 0
     * enters late). MPI_Wtime is CLOCK_MONOTONIC, one clock for every rank
     * of the host, so exit times compare with rank 0's entry time. */
    for (int round = 0; round < 3; ++round) {
        double enter = 0;
        if (me == 0) {
            usleep(20000);
            enter = MPI_Wtime();
        }
        MPI_Request r;
        CHECK_MPI(MPI_Ibarrier(MPI_COMM_WORLD, &r));
        CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
        const double left = MPI_Wtime();
        CHECK_MPI(MPI_Bcast(&enter, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD));
        CHECK(left >= enter, "left the barrier %.6f s before rank 0 entered it", enter - left);
    }

    /* 2. Many outstanding, completed in reverse order, with point-to-point
     * traffic on the same communicator in between. */
    enum { N = 20 };
    MPI_Request rs[N];
    int token = me, got = -1;
    const int right = (me + 1) % p, left = (me - 1 + p) % p;
    for (int k = 0; k < N; ++k) CHECK_MPI(MPI_Ibarrier(MPI_COMM_WORLD, &rs[k]));
    CHECK_MPI(MPI_Sendrecv(&token, 1, MPI_INT, right, 0, &got, 1, MPI_INT, left, 0, MPI_COMM_WORLD,
                           MPI_STATUS_IGNORE));
    CHECK(got == left, "sendrecv got %d want %d", got, left);
    for (int k = N - 1; k >= 0; --k) CHECK_MPI(MPI_Wait(&rs[k], MPI_STATUS_IGNORE));
    for (int k = 0; k < N; ++k) CHECK_MPI(MPI_Ibarrier(MPI_COMM_WORLD, &rs[k]));
    for (int k = 0; k < N; ++k) {
        int idx = -1;
        CHECK_MPI(MPI_Waitany(N, rs, &idx, MPI_STATUS_IGNORE));
        CHECK(idx >= 0 && idx < N && rs[idx] == MPI_REQUEST_NULL, "waitany index %d", idx);
    }

    /* 3. Freeing an active one is an error (MPI-4.1 6.12); nothing is lost. */
    MPI_Request r;
    CHECK_MPI(MPI_Ibarrier(MPI_COMM_WORLD, &r));
    if (p > 1) {
        int flag = 0;
        if (me == 0) usleep(20000); /* the others are surely still waiting for rank 0 */
        MPI_Test(&r, &flag, MPI_STATUS_IGNORE);
        if (!flag) {
            int rc = MPI_Request_free(&r);
            int cls = -1;
            MPI_Error_class(rc, &cls);
            CHECK(cls == MPI_ERR_REQUEST, "Request_free of an active Ibarrier: class %d", cls);
            CHECK(r != MPI_REQUEST_NULL, "the failed Request_free nulled the handle");
        }
    }
    CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));

    /* 4. Persistent: started many times; Start of an active one and
     * Request_free of an active one are MPI_ERR_REQUEST. */
    MPI_Request pr;
    CHECK_MPI(MPI_Barrier_init(MPI_COMM_WORLD, MPI_INFO_NULL, &pr));
    for (int k = 0; k < 1000; ++k) {
        CHECK_MPI(MPI_Start(&pr));
        if (k == 0 && p > 1) {
            if (me == 0) usleep(20000);
            int flag = 0;
            MPI_Test(&pr, &flag, MPI_STATUS_IGNORE);
            if (!flag) {
                int cls = -1, rc = MPI_Start(&pr);
                MPI_Error_class(rc, &cls);
                CHECK(cls == MPI_ERR_REQUEST, "Start of an active persistent barrier: class %d", cls);
                rc = MPI_Request_free(&pr);
                MPI_Error_class(rc, &cls);
                CHECK(cls == MPI_ERR_REQUEST, "Request_free of an active persistent barrier: class %d", cls);
            }
            if (flag) continue;
        }
        CHECK_MPI(MPI_Wait(&pr, MPI_STATUS_IGNORE));
        CHECK(pr != MPI_REQUEST_NULL, "a persistent request became MPI_REQUEST_NULL");
    }
    CHECK_MPI(MPI_Request_free(&pr));
    CHECK(pr == MPI_REQUEST_NULL, "Request_free left the handle");

    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    MPI_Finalize();
    return 0;
}
