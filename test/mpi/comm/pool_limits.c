/* SPDX-License-Identifier: MIT */
/* The request pool at its maximum (run with CH4LITE_REQUEST_POOL_MAX=64):
 * the 65th outstanding request fails cleanly with MPI_ERR_NO_MEM and a
 * message naming the pool, nothing crashes, and once requests complete the
 * program goes on (collectives included). */
#include "mpitest.h"

enum { MAX = 64 };

int main(int argc, char** argv) {
    mt_init(&argc, &argv);
    int me, np;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    static MPI_Request req[2 * MAX];
    static int buf[2 * MAX];
    for (int round = 0; round < 3; ++round) {
        if (me == 0 && np > 1) {
            int n = 0, rc = MPI_SUCCESS;
            while (n < 2 * MAX && (rc = MPI_Irecv(&buf[n], 1, MPI_INT, 1, n, MPI_COMM_WORLD, &req[n])) == MPI_SUCCESS)
                ++n;
            int cls = -1;
            MPI_Error_class(rc, &cls);
            CHECK(cls == MPI_ERR_NO_MEM, "round %d: class %d after %d receives", round, cls, n);
            CHECK(n == MAX, "round %d: %d receives before the pool was full", round, n);
            char msg[MPI_MAX_ERROR_STRING];
            int len;
            MPI_Error_string(rc, msg, &len);
            CHECK(strstr(msg, "MPI_Irecv") && strstr(msg, "out of memory"), "message: %s", msg);
            CHECK_MPI(MPI_Waitall(n, req, MPI_STATUSES_IGNORE));
            for (int i = 0; i < n; ++i) CHECK(buf[i] == i * 3, "message %d = %d", i, buf[i]);
        } else if (me == 1) {
            for (int i = 0; i < MAX; ++i) {
                int x = i * 3;
                CHECK_MPI(MPI_Send(&x, 1, MPI_INT, 0, i, MPI_COMM_WORLD));
            }
        }
        /* Collectives work again with the pool back. */
        int s = 0, one = 1;
        CHECK_MPI(MPI_Allreduce(&one, &s, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
        CHECK(s == np, "allreduce after the pool was full: %d", s);
    }
    /* A single process: Isend to self until full. */
    int n = 0, rc = MPI_SUCCESS, x = 7;
    while (n < 2 * MAX && (rc = MPI_Isend(&x, 1, MPI_INT, 0, 0, MPI_COMM_SELF, &req[n])) == MPI_SUCCESS) ++n;
    int cls;
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_NO_MEM && n == MAX, "self sends: class %d after %d", cls, n);
    for (int i = 0; i < n; ++i) {
        int y;
        MPI_Status st;
        rc = MPI_Recv(&y, 1, MPI_INT, 0, 0, MPI_COMM_SELF, &st);
        /* the pool is full: a blocking receive needs a request too, so free one first */
        if (rc != MPI_SUCCESS) {
            CHECK_MPI(MPI_Wait(&req[i], MPI_STATUS_IGNORE));
            req[i] = MPI_REQUEST_NULL;
            CHECK_MPI(MPI_Recv(&y, 1, MPI_INT, 0, 0, MPI_COMM_SELF, &st));
        }
        CHECK(y == 7, "self message %d", i);
    }
    CHECK_MPI(MPI_Waitall(n, req, MPI_STATUSES_IGNORE));
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    MPI_Finalize();
    return 0;
}
