/* SPDX-License-Identifier: MIT */
/* MPI_Probe / MPI_Iprobe report source, tag and size before the receive,
 * for eager and rendezvous messages, with wildcards; a probe does not
 * consume the message. */
#include "mpitest.h"

int main(int argc, char** argv) {
    mt_init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int counts[] = {3, 300000};
    if (rank != 0) {
        for (int k = 0; k < 2; ++k) {
            int* b = malloc(sizeof(int) * (size_t)counts[k]);
            for (int i = 0; i < counts[k]; ++i) b[i] = rank + i;
            CHECK_MPI(MPI_Send(b, counts[k], MPI_INT, 0, 40 + k, MPI_COMM_WORLD));
            free(b);
        }
    } else {
        int flag = 1;
        MPI_Status st;
        CHECK_MPI(MPI_Iprobe(MPI_ANY_SOURCE, 999, MPI_COMM_WORLD, &flag, &st));
        CHECK(!flag, "Iprobe found a message with tag 999 that nobody sent");
        for (int m = 0; m < 2 * (size - 1); ++m) {
            CHECK_MPI(MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
            int n;
            CHECK_MPI(MPI_Get_count(&st, MPI_INT, &n));
            const int k = st.MPI_TAG - 40;
            CHECK(k == 0 || k == 1, "probe tag %d", st.MPI_TAG);
            CHECK(n == counts[k], "probe count %d, expected %d", n, counts[k]);
            /* probing again finds the same message */
            MPI_Status st2;
            flag = 0;
            while (!flag) CHECK_MPI(MPI_Iprobe(st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, &flag, &st2));
            CHECK(st2.MPI_SOURCE == st.MPI_SOURCE && st2.MPI_TAG == st.MPI_TAG, "second probe differs");
            int* b = malloc(sizeof(int) * (size_t)n);
            CHECK_MPI(MPI_Recv(b, n, MPI_INT, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            for (int i = 0; i < n; ++i) CHECK(b[i] == st.MPI_SOURCE + i, "data %d", i);
            free(b);
        }
        int c = 0;
        MPI_Status pst;
        CHECK_MPI(MPI_Probe(MPI_PROC_NULL, 0, MPI_COMM_WORLD, &pst));
        CHECK(pst.MPI_SOURCE == MPI_PROC_NULL, "PROC_NULL probe source %d", pst.MPI_SOURCE);
        CHECK_MPI(MPI_Get_count(&pst, MPI_INT, &c));
        CHECK(c == 0, "PROC_NULL probe count %d", c);
    }
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0) printf("probe: OK\n");
    MPI_Finalize();
    return 0;
}
