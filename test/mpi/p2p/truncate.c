/* SPDX-License-Identifier: MIT */
/* Truncation: a receive buffer smaller than the message gives
 * MPI_ERR_TRUNCATE (eager and rendezvous sizes, blocking and not), the status
 * count is the buffer size, nothing is written past the buffer, and the
 * runtime keeps working afterwards: no stale piece of a truncated message is
 * matched by a later MPI_ANY_TAG receive. The sizes cover every protocol of
 * both paths: eager, rxm's segmented sizes (16-128 KiB, which libfabric 1.17
 * mishandles when truncated; see docs/netmod-ofi.md), rendezvous. (The
 * buffer's contents are not checked: the standard leaves them undefined.) */
#include "mpitest.h"

int main(int argc, char** argv) {
    mt_init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    const int sizes[] = {10, 1000, 20000, 80000, 100000, 3000000};
    const int rsizes[] = {5, 500, 1000, 1000, 50000, 1500000};
    const int nsizes = (int)(sizeof sizes / sizeof sizes[0]);
    unsigned char* buf = malloc(3000000);
    for (int k = 0; k < nsizes; ++k) {
        const int n = sizes[k], m = rsizes[k];
        if (rank == 1) {
            mt_fill(buf, (size_t)n, k);
            CHECK_MPI(MPI_Send(buf, n, MPI_BYTE, 0, k, MPI_COMM_WORLD));
        } else if (rank == 0) {
            memset(buf, 0, (size_t)n);
            MPI_Status st;
            int rc;
            if (k % 2) {
                MPI_Request r;
                CHECK_MPI(MPI_Irecv(buf, m, MPI_BYTE, 1, k, MPI_COMM_WORLD, &r));
                rc = MPI_Wait(&r, &st);
            } else {
                rc = MPI_Recv(buf, m, MPI_BYTE, 1, k, MPI_COMM_WORLD, &st);
            }
            int cls = -1;
            MPI_Error_class(rc, &cls);
            CHECK(cls == MPI_ERR_TRUNCATE, "size %d: class %d, expected MPI_ERR_TRUNCATE", n, cls);
            char msg[MPI_MAX_ERROR_STRING];
            int len;
            MPI_Error_string(rc, msg, &len);
            CHECK(strstr(msg, "truncated") != NULL, "message: %s", msg);
            int cnt = -1;
            MPI_Get_count(&st, MPI_BYTE, &cnt);
            CHECK(cnt == m, "size %d into %d: count %d", n, m, cnt);
            CHECK(buf[m] == 0, "size %d: wrote past the receive buffer", n);
        }
    }
    /* still working, and nothing of a truncated message is left to match */
    if (rank == 0) {
        int v = 0;
        MPI_Status st;
        CHECK_MPI(MPI_Recv(&v, 1, MPI_INT, 1, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
        CHECK(v == 42 && st.MPI_TAG == 77, "after truncation: got %d with tag %d", v, st.MPI_TAG);
    } else if (rank == 1) {
        int v = 42;
        CHECK_MPI(MPI_Send(&v, 1, MPI_INT, 0, 77, MPI_COMM_WORLD));
    }
    free(buf);
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0) printf("truncate: OK\n");
    MPI_Finalize();
    return 0;
}
