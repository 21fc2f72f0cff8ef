/* SPDX-License-Identifier: MIT */
/* A derived-datatype message beyond 2 GiB: a vector of 262145 blocks of 1024
 * doubles at a stride of 1025 (2^31 + 8 KiB packed, 8-byte gaps) sent to a
 * contiguous receive, then sent back contiguous and received with the
 * vector; stream offsets beyond 2^31 are packed and unpacked chunk by chunk.
 * Every double is checked; the gaps must stay untouched. The way back runs
 * under make check-full only (CH4LITE_TEST_FULL; mt_full()). */
#include <stdint.h>

#include "mpitest.h"

#define BLOCKS 262145L
#define BL 1024L
#define STRIDE 1025L

int main(int argc, char** argv) {
    mt_init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Datatype v;
    CHECK_MPI(MPI_Type_vector((int)BLOCKS, (int)BL, (int)STRIDE, MPI_DOUBLE, &v));
    CHECK_MPI(MPI_Type_commit(&v));
    MPI_Count packed = 0;
    CHECK_MPI(MPI_Type_size_c(v, &packed));
    CHECK(packed == BLOCKS * BL * 8 && packed > ((MPI_Count)1 << 31), "packed size %lld", (long long)packed);
    const long n = BLOCKS * BL;
    const int back = mt_full();
    if (rank == 0) {
        double* spread = malloc(sizeof(double) * BLOCKS * STRIDE);
        CHECK(spread != NULL, "malloc");
        for (long b = 0; b < BLOCKS; ++b)
            for (long k = 0; k < STRIDE; ++k) spread[b * STRIDE + k] = k < BL ? (double)(b * BL + k) : -1.0;
        CHECK_MPI(MPI_Send(spread, 1, v, 1, 1, MPI_COMM_WORLD));
        if (!back) goto done0;
        for (long b = 0; b < BLOCKS; ++b)
            for (long k = 0; k < BL; ++k) spread[b * STRIDE + k] = -2.0;
        MPI_Status st;
        CHECK_MPI(MPI_Recv(spread, 1, v, 1, 2, MPI_COMM_WORLD, &st));
        MPI_Count cnt = 0;
        CHECK_MPI(MPI_Get_count_c(&st, MPI_DOUBLE, &cnt));
        CHECK(cnt == n, "typed receive count %lld", (long long)cnt);
        for (long b = 0; b < BLOCKS; ++b)
            for (long k = 0; k < STRIDE; ++k) {
                const double want = k < BL ? (double)(n - 1 - (b * BL + k)) : -1.0;
                if (spread[b * STRIDE + k] != want)
                    CHECK(0, "typed receive: block %ld item %ld = %g, want %g", b, k,
                          spread[b * STRIDE + k], want);
            }
    done0:
        free(spread);
    } else if (rank == 1) {
        double* dense = malloc(sizeof(double) * n);
        CHECK(dense != NULL, "malloc");
        MPI_Status st;
        CHECK_MPI(MPI_Recv_c(dense, n, MPI_DOUBLE, 0, 1, MPI_COMM_WORLD, &st));
        MPI_Count cnt = 0;
        CHECK_MPI(MPI_Get_count_c(&st, MPI_DOUBLE, &cnt));
        CHECK(cnt == n, "contiguous receive count %lld", (long long)cnt);
        for (long i = 0; i < n; ++i)
            if (dense[i] != (double)i) CHECK(0, "contiguous receive: item %ld = %g", i, dense[i]);
        for (long i = 0; i < n; ++i) dense[i] = (double)(n - 1 - i);
        if (back) CHECK_MPI(MPI_Send_c(dense, n, MPI_DOUBLE, 0, 2, MPI_COMM_WORLD));
        free(dense);
    }
    CHECK_MPI(MPI_Type_free(&v));
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0) printf("ddt large: OK (%lld bytes %s)\n", (long long)packed, back ? "each way" : "one way");
    MPI_Finalize();
    return 0;
}
