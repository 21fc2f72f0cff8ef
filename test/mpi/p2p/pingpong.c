/* SPDX-License-Identifier: MIT */
/* Ping-pong between rank 0 and every other rank, sizes 0 B .. 64 MiB
 * (powers of two and odd sizes around the eager/rendezvous thresholds),
 * blocking and nonblocking, every byte verified. make check stops at
 * 8 MiB (beyond every protocol threshold); make check-full (mt_full) goes
 * on to 64 MiB. */
#include "mpitest.h"

static const size_t sizes[] = {0, 1, 7, 8, 63, 64, 65, 1000, 4096, 16383, 16384, 16385,
                               65535, 65536, 65537, 200000, 1 << 20, (1 << 20) + 3,
                               8 << 20, 64 << 20};

int main(int argc, char** argv) {
    mt_init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size >= 2, "needs at least 2 ranks");
    const size_t max = 64 << 20;
    unsigned char* buf = malloc(max + 1);
    CHECK(buf != NULL, "malloc");
    const int nsizes = (int)(sizeof sizes / sizeof sizes[0]) - (mt_full() ? 0 : 1);
    for (int peer = 1; peer < size; ++peer) {
        for (int k = 0; k < nsizes; ++k) {
            const size_t n = sizes[k];
            const int seed = peer * 100 + k;
            const int nonblocking = k % 2;
            if (rank == 0) {
                mt_fill(buf, n, seed);
                if (nonblocking) {
                    MPI_Request r;
                    CHECK_MPI(MPI_Isend(buf, (int)n, MPI_BYTE, peer, k, MPI_COMM_WORLD, &r));
                    CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
                } else {
                    CHECK_MPI(MPI_Send(buf, (int)n, MPI_BYTE, peer, k, MPI_COMM_WORLD));
                }
                memset(buf, 0, n);
                MPI_Status st;
                CHECK_MPI(MPI_Recv(buf, (int)n, MPI_BYTE, peer, k, MPI_COMM_WORLD, &st));
                int cnt = -1;
                MPI_Get_count(&st, MPI_BYTE, &cnt);
                CHECK(cnt == (int)n, "size %zu: count %d", n, cnt);
                CHECK(st.MPI_SOURCE == peer && st.MPI_TAG == k, "status source %d tag %d", st.MPI_SOURCE, st.MPI_TAG);
                size_t bad = mt_verify(buf, n, seed + 1);
                CHECK(bad == 0, "size %zu from %d: byte %zu differs", n, peer, bad - 1);
            } else if (rank == peer) {
                memset(buf, 0, n);
                MPI_Status st;
                if (nonblocking) {
                    MPI_Request r;
                    CHECK_MPI(MPI_Irecv(buf, (int)n, MPI_BYTE, 0, k, MPI_COMM_WORLD, &r));
                    CHECK_MPI(MPI_Wait(&r, &st));
                } else {
                    CHECK_MPI(MPI_Recv(buf, (int)n, MPI_BYTE, 0, k, MPI_COMM_WORLD, &st));
                }
                int cnt = -1;
                MPI_Get_count(&st, MPI_BYTE, &cnt);
                CHECK(cnt == (int)n, "size %zu: count %d", n, cnt);
                size_t bad = mt_verify(buf, n, seed);
                CHECK(bad == 0, "size %zu: byte %zu differs", n, bad - 1);
                mt_fill(buf, n, seed + 1);
                CHECK_MPI(MPI_Send(buf, (int)n, MPI_BYTE, 0, k, MPI_COMM_WORLD));
            }
        }
    }
    /* typed data: doubles keep their values */
    double d[1000];
    if (rank == 0) {
        for (int i = 0; i < 1000; ++i) d[i] = i * 0.5;
        for (int p = 1; p < size; ++p) CHECK_MPI(MPI_Send(d, 1000, MPI_DOUBLE, p, 99, MPI_COMM_WORLD));
    } else {
        CHECK_MPI(MPI_Recv(d, 1000, MPI_DOUBLE, 0, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        for (int i = 0; i < 1000; ++i) CHECK(d[i] == i * 0.5, "double %d", i);
    }
    free(buf);
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0) printf("pingpong: OK\n");
    MPI_Finalize();
    return 0;
}
