/* SPDX-License-Identifier: MIT */
/* Non-overtaking order per (source, communicator) for eager and rendezvous
 * sizes mixed, and MPI_ANY_SOURCE / MPI_ANY_TAG receives from every rank. */
#include "mpitest.h"

#define N 200

int main(int argc, char** argv) {
    mt_init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    /* 1. Every rank > 0 sends N messages of alternating size to rank 0 with
     *    the same tag; rank 0 receives them by source and checks sequence. */
    static int big[40000];
    if (rank != 0) {
        for (int i = 0; i < N; ++i) {
            int n = (i % 7 == 3) ? 40000 : 1 + i % 5; /* 160 KB messages go rendezvous */
            for (int k = 0; k < n; ++k) big[k] = i * 1000 + k;
            CHECK_MPI(MPI_Send(big, n, MPI_INT, 0, 5, MPI_COMM_WORLD));
        }
    } else {
        for (int src = 1; src < size; ++src)
            for (int i = 0; i < N; ++i) {
                MPI_Status st;
                CHECK_MPI(MPI_Recv(big, 40000, MPI_INT, src, 5, MPI_COMM_WORLD, &st));
                int n;
                MPI_Get_count(&st, MPI_INT, &n);
                CHECK(n == ((i % 7 == 3) ? 40000 : 1 + i % 5), "src %d msg %d: count %d", src, i, n);
                CHECK(big[0] == i * 1000 && big[n - 1] == i * 1000 + n - 1,
                      "src %d msg %d out of order (got %d)", src, i, big[0]);
            }
    }
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    /* 2. ANY_SOURCE + ANY_TAG: every rank sends rank-tagged messages to 0;
     *    per source the sequence numbers still arrive in order. */
    if (rank != 0) {
        for (int i = 0; i < N; ++i) {
            int msg[2] = {rank, i};
            CHECK_MPI(MPI_Send(msg, 2, MPI_INT, 0, 100 + rank, MPI_COMM_WORLD));
        }
    } else {
        int next[64] = {0};
        for (int k = 0; k < N * (size - 1); ++k) {
            int msg[2];
            MPI_Status st;
            CHECK_MPI(MPI_Recv(msg, 2, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
            CHECK(st.MPI_SOURCE == msg[0], "status source %d, payload says %d", st.MPI_SOURCE, msg[0]);
            CHECK(st.MPI_TAG == 100 + msg[0], "status tag %d", st.MPI_TAG);
            CHECK(msg[1] == next[msg[0]], "from %d: got seq %d, expected %d", msg[0], msg[1], next[msg[0]]);
            next[msg[0]]++;
        }
    }
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    /* 3. Tag selection: receive tags in reverse order of sending. */
    if (size >= 2 && rank == 1) {
        for (int t = 0; t < 10; ++t) CHECK_MPI(MPI_Send(&t, 1, MPI_INT, 0, t, MPI_COMM_WORLD));
    } else if (rank == 0 && size >= 2) {
        for (int t = 9; t >= 0; --t) {
            int v = -1;
            CHECK_MPI(MPI_Recv(&v, 1, MPI_INT, 1, t, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            CHECK(v == t, "tag %d carried %d", t, v);
        }
    }
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0) printf("order: OK\n");
    MPI_Finalize();
    return 0;
}
