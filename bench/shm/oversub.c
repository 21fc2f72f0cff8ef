/* SPDX-License-Identifier: MIT */
/*
 * Oversubscribed on-node ping-pong: 4 ranks, two pairs (0<->1, 2<->3)
 * ping-pong at the same time, so on a 2-core machine the ranks outnumber
 * the cores and a rank that busy-waits without yielding holds a core its
 * partner needs (a scheduler timeslice per message). Reports the slower
 * pair's half round trip, us, for 0 B .. 64 KiB.
 *
 * Per size: warm-up, a timed calibration by rank 0 (iterations sent to every
 * rank), BENCH_REPS repetitions; the fastest repetition is reported.
 */
#include "bench.h"

#define TAG_DATA 1
#define TAG_CTRL 2
#define TABLE "shm_oversub"

static void pingpong(int rank, char *sbuf, char *rbuf, size_t size, long iters)
{
    const int partner = rank ^ 1, leader = (rank & 1) == 0;
    for (long i = 0; i < iters; i++) {
        if (leader) {
            MPI_Send(sbuf, (int)size, MPI_BYTE, partner, TAG_DATA, MPI_COMM_WORLD);
            MPI_Recv(rbuf, (int)size, MPI_BYTE, partner, TAG_DATA, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(rbuf, (int)size, MPI_BYTE, partner, TAG_DATA, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(sbuf, (int)size, MPI_BYTE, partner, TAG_DATA, MPI_COMM_WORLD);
        }
    }
}

/* Both pairs run one timed section; rank 0 gets the slower pair's seconds. */
static double timed(int rank, char *sbuf, char *rbuf, size_t size, long iters)
{
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    pingpong(rank, sbuf, rbuf, size, iters);
    double t = MPI_Wtime() - t0;
    if (rank == 2)
        MPI_Send(&t, 1, MPI_DOUBLE, 0, TAG_CTRL, MPI_COMM_WORLD);
    if (rank == 0) {
        double other = 0;
        MPI_Recv(&other, 1, MPI_DOUBLE, 2, TAG_CTRL, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (other > t)
            t = other;
    }
    return t;
}

static long calibrate(int rank, int np, char *sbuf, char *rbuf, size_t size)
{
    long warm = 20;
    pingpong(rank, sbuf, rbuf, size, warm);
    double t = timed(rank, sbuf, rbuf, size, warm);
    long n = 0;
    if (rank == 0) {
        n = bench_iters_for(t / (double)warm, 5, 1000000);
        for (int p = 1; p < np; p++)
            MPI_Send(&n, 1, MPI_LONG, p, TAG_CTRL, MPI_COMM_WORLD);
    } else {
        MPI_Recv(&n, 1, MPI_LONG, 0, TAG_CTRL, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    return n;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, np;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    if (np != 4) {
        if (rank == 0)
            fprintf(stderr, "shm_oversub: needs exactly 4 ranks\n");
        MPI_Finalize();
        return 1;
    }
    size_t max = bench_max_bytes(argc, argv, (size_t)64 << 10);
    size_t sizes[64];
    int nsizes = bench_sizes(sizes, 64, 1, max);
    char *sbuf = bench_alloc(max);
    char *rbuf = bench_alloc(max);
    int reps = bench_reps();
    double best[BENCH_REPS_MAX];

    bench_info();
    bench_table(TABLE, "bytes", "two pairs ping-pong on 4 ranks (oversubscribed on 2 cores): "
                                "slower pair's half round trip, us (lower is better)");
    bench_ratio(TABLE, "shm/best-peer", "ch4lite.lat_us", "min(mpich.lat_us,ompi.lat_us)");
    bench_ratio(TABLE, "shm/net", "ch4lite.lat_us", "ch4lite-net.lat_us");
    for (int s = 0; s < nsizes; s++) {
        long n = calibrate(rank, np, sbuf, rbuf, sizes[s]);
        for (int r = 0; r < reps; r++)
            best[r] = timed(rank, sbuf, rbuf, sizes[s], n) * 1e6 / (2.0 * (double)n);
        bench_emit_size(TABLE, sizes[s], "lat_us", bench_min(best, reps));
    }
    MPI_Barrier(MPI_COMM_WORLD);
    free(sbuf);
    free(rbuf);
    MPI_Finalize();
    return 0;
}
