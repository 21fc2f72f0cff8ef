/* SPDX-License-Identifier: MIT */
/*
 * The cost of MPI_THREAD_MULTIPLE: an 8-byte ping-pong between ranks 0 and 1
 * (MPI_Send / MPI_Recv, and MPI_Isend + MPI_Wait / MPI_Irecv + MPI_Wait),
 * half round trip in microseconds, one thread per rank, built two ways from
 * this one source:
 *   thread_cost           MPI_Init (lat_us, isend_us): the level SINGLE
 *   thread_cost_multiple  -DMULTIPLE: MPI_Init_thread(MPI_THREAD_MULTIPLE)
 *                         (mt_lat_us, mt_isend_us): what the lock every call
 *                         then takes costs a program that asked for it
 * ch4lite takes one uncontended lock per call under MULTIPLE
 * (docs/threads.md); MPICH's default build a global critical section, Open
 * MPI per-object locks.
 * Rows: 0 and 8 bytes.
 */
#include "bench.h"

#define TABLE "p2p_thread"
#if defined(MULTIPLE)
#define LAT "mt_lat_us"
#define ISEND_LAT "mt_isend_us"
#else
#define LAT "lat_us"
#define ISEND_LAT "isend_us"
#endif

static void pingpong(int rank, char *sbuf, char *rbuf, int size, long iters, int nonblocking)
{
    MPI_Request q;
    for (long i = 0; i < iters; i++) {
        if (rank > 1) break;
        const int peer = 1 - rank;
        if (nonblocking) {
            if (rank == 0) {
                MPI_Isend(sbuf, size, MPI_BYTE, peer, 1, MPI_COMM_WORLD, &q);
                MPI_Wait(&q, MPI_STATUS_IGNORE);
            }
            MPI_Irecv(rbuf, size, MPI_BYTE, peer, 1, MPI_COMM_WORLD, &q);
            MPI_Wait(&q, MPI_STATUS_IGNORE);
            if (rank == 1) {
                MPI_Isend(sbuf, size, MPI_BYTE, peer, 1, MPI_COMM_WORLD, &q);
                MPI_Wait(&q, MPI_STATUS_IGNORE);
            }
        } else {
            if (rank == 0) MPI_Send(sbuf, size, MPI_BYTE, peer, 1, MPI_COMM_WORLD);
            MPI_Recv(rbuf, size, MPI_BYTE, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            if (rank == 1) MPI_Send(sbuf, size, MPI_BYTE, peer, 1, MPI_COMM_WORLD);
        }
    }
}

static double measure(int rank, char *sbuf, char *rbuf, int size, int nonblocking, int reps)
{
    long n = 2000;
    pingpong(rank, sbuf, rbuf, size, n, nonblocking);
    double t0 = MPI_Wtime();
    pingpong(rank, sbuf, rbuf, size, n, nonblocking);
    double t = MPI_Wtime() - t0;
    MPI_Bcast(&t, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD); /* both ranks run the same count */
    n = bench_iters_for(t / (double)n, 100, 2000000);
    double best[BENCH_REPS_MAX] = {0};
    for (int r = 0; r < reps; r++) {
        t0 = MPI_Wtime();
        pingpong(rank, sbuf, rbuf, size, n, nonblocking);
        best[r] = (MPI_Wtime() - t0) * 1e6 / (2.0 * (double)n);
    }
    return bench_min(best, reps);
}

int main(int argc, char **argv)
{
#if defined(MULTIPLE)
    int provided = MPI_THREAD_SINGLE;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    if (provided != MPI_THREAD_MULTIPLE) {
        fprintf(stderr, "thread_cost_multiple: MPI_THREAD_MULTIPLE not provided (%d)\n", provided);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
#else
    MPI_Init(&argc, &argv);
#endif
    int rank, np;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    if (np < 2) {
        MPI_Finalize();
        return 1;
    }
    char sbuf[8] = {0}, rbuf[8];
    int reps = bench_reps();
    bench_info();
    bench_table(TABLE, "bytes", "8-byte ping-pong, one thread per rank, half round trip, us: lat_us/isend_us "
                                "MPI_Send+MPI_Recv / MPI_Isend+MPI_Wait after MPI_Init, mt_* the same after "
                                "MPI_Init_thread(MPI_THREAD_MULTIPLE) (lower is better)");
    bench_ratio(TABLE, "shm/multiple-vs-single", "ch4lite.mt_lat_us", "ch4lite.lat_us");
    bench_ratio(TABLE, "shm/multiple-vs-single-isend", "ch4lite.mt_isend_us", "ch4lite.isend_us");
    bench_ratio(TABLE, "shm/single-best-peer", "ch4lite.lat_us", "min(mpich.lat_us,ompi.lat_us)");
    bench_ratio(TABLE, "shm/multiple-best-peer", "ch4lite.mt_lat_us", "min(mpich.mt_lat_us,ompi.mt_lat_us)");
    bench_goal(TABLE, "shm/multiple-best-peer", "<=", 1.0, "0..8");
    const int sizes[2] = {0, 8};
    for (int s = 0; s < 2; s++) {
        bench_emit_size(TABLE, (size_t)sizes[s], LAT, measure(rank, sbuf, rbuf, sizes[s], 0, reps));
        bench_emit_size(TABLE, (size_t)sizes[s], ISEND_LAT, measure(rank, sbuf, rbuf, sizes[s], 1, reps));
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
