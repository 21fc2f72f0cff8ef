/* SPDX-License-Identifier: MIT */
/* Back-to-back collectives of different sizes through the staged exchange
 * (run with CH4LITE_COLL_ALLTOALL_STAGE=0): each call's byte count is
 * published per box half, so a member that already started the next call
 * (a different size) cannot make a slower one see "sizes differ" for the
 * current call. Regression: MPICH's coll/alltoall1 (an MPI_Alltoall followed
 * at once by an in-place one, then the next size) failed with
 * MPI_ERR_TRUNCATE at 3+ ranks on one node. Also interleaves Allreduce. */
#include "mpitest.h"

int main(int argc, char** argv) {
    mt_init(&argc, &argv);
    int p;
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    const int me = mt_rank;
    enum { MAXC = 512 };
    int* sb = malloc(sizeof(int) * MAXC * p);
    int* rb = malloc(sizeof(int) * MAXC * p);
    for (int rep = 0; rep < 20; ++rep) {
        for (int count = 1; count <= MAXC; count *= 2) {
            for (int j = 0; j < p; ++j)
                for (int i = 0; i < count; ++i) sb[j * count + i] = j * p + me + i;
            CHECK_MPI(MPI_Alltoall(sb, count, MPI_INT, rb, count, MPI_INT, MPI_COMM_WORLD));
            for (int j = 0; j < p; ++j)
                for (int i = 0; i < count; ++i)
                    CHECK(rb[j * count + i] == me * p + j + i, "count %d: rb[%d][%d] = %d, want %d", count,
                          j, i, rb[j * count + i], me * p + j + i);
            /* in place, at once: the same size, sendcount/sendtype ignored */
            for (int j = 0; j < p; ++j)
                for (int i = 0; i < count; ++i) rb[j * count + i] = j * p + me + i;
            CHECK_MPI(MPI_Alltoall(MPI_IN_PLACE, -1, MPI_DATATYPE_NULL, rb, count, MPI_INT, MPI_COMM_WORLD));
            for (int j = 0; j < p; ++j)
                for (int i = 0; i < count; ++i)
                    CHECK(rb[j * count + i] == me * p + j + i, "in place, count %d: rb[%d][%d] = %d", count,
                          j, i, rb[j * count + i]);
            /* an allreduce of another size between alltoalls */
            if (count % 4 == 0) {
                for (int i = 0; i < count / 2; ++i) sb[i] = me + i;
                CHECK_MPI(MPI_Allreduce(sb, rb, count / 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
                for (int i = 0; i < count / 2; ++i)
                    CHECK(rb[i] == p * (p - 1) / 2 + p * i, "allreduce count %d: [%d] = %d", count / 2, i, rb[i]);
            }
        }
    }
    free(sb);
    free(rb);
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == 0) printf("stage_sizes: OK\n");
    MPI_Finalize();
    return 0;
}
