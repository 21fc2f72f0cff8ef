/* SPDX-License-Identifier: MIT */
/*
 * Streaming bandwidth from rank 0 to rank 1 (blocking MPI_Send / MPI_Recv)
 * with the receive buffer on a page or 8, 16 or 64 bytes past one; the send
 * buffer is on a page. glibc places a malloc()ed buffer of 128 KiB or more
 * 16 bytes past a page, and a copy whose destination lies 1-31 bytes after
 * its source modulo 4096 is where memcpy's `rep movsb` was 10x slower on
 * the development VM (docs/shm-protocols.md, "Buffers a few bytes past the source's
 * place in a page"). GB/s, 16 KiB - 1 MiB; rows "<size>+<offset>".
 */
#include "bench.h"

#define TAG_DATA 1
#define TAG_DONE 2

/* Seconds for `iters` messages of `size` bytes, rank 0 to rank 1, ended by
 * a zero-byte reply (rank 0's time; the other ranks' is not used). */
static double run(int rank, char *sbuf, char *rbuf, size_t size, long iters)
{
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (long i = 0; i < iters; ++i) {
        if (rank == 0) MPI_Send(sbuf, (int)size, MPI_BYTE, 1, TAG_DATA, MPI_COMM_WORLD);
        else if (rank == 1) MPI_Recv(rbuf, (int)size, MPI_BYTE, 0, TAG_DATA, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    if (rank == 0) MPI_Recv(NULL, 0, MPI_BYTE, 1, TAG_DONE, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    else if (rank == 1) MPI_Send(NULL, 0, MPI_BYTE, 0, TAG_DONE, MPI_COMM_WORLD);
    return MPI_Wtime() - t0;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    bench_table("p2p_bw_offset", "bytes+offset",
                "MPI_Send/MPI_Recv stream, receive buffer <offset> bytes past a page, GB/s");
    const size_t sizes[] = {16384, 65536, 262144, 1048576};
    const int offsets[] = {0, 8, 16, 64};
    char *sbuf = bench_alloc(1048576 + 4096), *rbuf = bench_alloc(1048576 + 4096);
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; ++s)
        for (size_t o = 0; o < sizeof offsets / sizeof offsets[0]; ++o) {
            const size_t n = sizes[s];
            char *r = rbuf + offsets[o];
            long iters = bench_iters_for(run(rank, sbuf, r, n, 4) / 4, 4, 100000);
            if (rank == 0) MPI_Send(&iters, 1, MPI_LONG, 1, TAG_DATA, MPI_COMM_WORLD);
            else if (rank == 1) MPI_Recv(&iters, 1, MPI_LONG, 0, TAG_DATA, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            double best = 1e30;
            for (int k = 0; k < bench_reps(); ++k) {
                double dt = run(rank, sbuf, r, n, iters);
                if (dt < best) best = dt;
            }
            char row[32];
            snprintf(row, sizeof row, "%zuK+%d", n >> 10, offsets[o]);
            bench_emit("p2p_bw_offset", row, "GBps", (double)n * (double)iters / best / 1e9);
        }
    bench_ratio("p2p_bw_offset", "vs-mpich", "ch4lite.GBps", "mpich.GBps");
    bench_ratio("p2p_bw_offset", "vs-ompi", "ch4lite.GBps", "ompi.GBps");
    free(sbuf);
    free(rbuf);
    MPI_Finalize();
    return 0;
}
