/* SPDX-License-Identifier: MIT */
/*
 * The cost of the profiling interface: an 8-byte ping-pong of MPI_Isend +
 * MPI_Wait / MPI_Irecv + MPI_Wait between ranks 0 and 1, half round trip in
 * microseconds, built three ways from this one source:
 *   pmpi_cost         calls MPI_Isend etc. (lat_us): the weak MPI_ names
 *   pmpi_cost_direct  -DDIRECT: calls PMPI_Isend etc. (pmpi_us): the strong
 *                     names; in ch4lite the same code at the same address,
 *                     so lat_us/pmpi_us ~ 1 (no indirection without a tool)
 *   pmpi_cost_wrap    -DWRAP: the program defines MPI_Isend, MPI_Irecv and
 *                     MPI_Wait, counting calls and forwarding to PMPI_, as a
 *                     tool would (wrap_us): what interposition costs
 * Rows: 0 and 8 bytes.
 */
#include "bench.h"

#define TABLE "p2p_pmpi"
#if defined(WRAP)
#define METRIC "wrap_us"
static volatile long g_calls;
int MPI_Isend(const void *b, int n, MPI_Datatype t, int d, int g, MPI_Comm c, MPI_Request *r)
{
    ++g_calls;
    return PMPI_Isend(b, n, t, d, g, c, r);
}
int MPI_Irecv(void *b, int n, MPI_Datatype t, int s, int g, MPI_Comm c, MPI_Request *r)
{
    ++g_calls;
    return PMPI_Irecv(b, n, t, s, g, c, r);
}
int MPI_Wait(MPI_Request *r, MPI_Status *st)
{
    ++g_calls;
    return PMPI_Wait(r, st);
}
#define ISEND MPI_Isend
#define IRECV MPI_Irecv
#define WAIT MPI_Wait
#elif defined(DIRECT)
#define METRIC "pmpi_us"
#define ISEND PMPI_Isend
#define IRECV PMPI_Irecv
#define WAIT PMPI_Wait
#else
#define METRIC "lat_us"
#define ISEND MPI_Isend
#define IRECV MPI_Irecv
#define WAIT MPI_Wait
#endif

static long pingpong(int rank, char *sbuf, char *rbuf, int size, long iters)
{
    MPI_Request q;
    for (long i = 0; i < iters; i++) {
        if (rank == 0) {
            ISEND(sbuf, size, MPI_BYTE, 1, 1, MPI_COMM_WORLD, &q);
            WAIT(&q, MPI_STATUS_IGNORE);
            IRECV(rbuf, size, MPI_BYTE, 1, 1, MPI_COMM_WORLD, &q);
            WAIT(&q, MPI_STATUS_IGNORE);
        } else if (rank == 1) {
            IRECV(rbuf, size, MPI_BYTE, 0, 1, MPI_COMM_WORLD, &q);
            WAIT(&q, MPI_STATUS_IGNORE);
            ISEND(sbuf, size, MPI_BYTE, 0, 1, MPI_COMM_WORLD, &q);
            WAIT(&q, MPI_STATUS_IGNORE);
        }
    }
    return iters;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
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
    bench_table(TABLE, "bytes", "MPI_Isend+MPI_Wait ping-pong, half round trip, us: lat_us MPI_ names, "
                                "pmpi_us PMPI_ names, wrap_us through a wrapper (lower is better)");
    /* Issue 42: the profiling interface costs nothing without a tool. */
    bench_ratio(TABLE, "shm/mpi-vs-pmpi", "ch4lite.lat_us", "ch4lite.pmpi_us");
    bench_goal(TABLE, "shm/mpi-vs-pmpi", "<=", 1.05, "0..8");
    bench_ratio(TABLE, "shm/wrapped", "ch4lite.wrap_us", "ch4lite.lat_us");
    bench_ratio(TABLE, "shm/best-peer", "ch4lite.lat_us", "min(mpich.lat_us,ompi.lat_us)");
    bench_ratio(TABLE, "shm/wrapped-best-peer", "ch4lite.wrap_us", "min(mpich.wrap_us,ompi.wrap_us)");
    const int sizes[2] = {0, 8};
    for (int s = 0; s < 2; s++) { /* (ranks above 1 only take part in the Bcast) */
        long n = 2000;
        pingpong(rank, sbuf, rbuf, sizes[s], n);
        double t0 = MPI_Wtime();
        pingpong(rank, sbuf, rbuf, sizes[s], n);
        double t = MPI_Wtime() - t0;
        MPI_Bcast(&t, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD); /* both ranks run the same count */
        n = bench_iters_for(t / (double)n, 100, 2000000);
        double best[BENCH_REPS_MAX] = {0};
        for (int r = 0; r < reps; r++) {
            t0 = MPI_Wtime();
            pingpong(rank, sbuf, rbuf, sizes[s], n);
            best[r] = (MPI_Wtime() - t0) * 1e6 / (2.0 * (double)n);
        }
        bench_emit_size(TABLE, (size_t)sizes[s], METRIC, bench_min(best, reps));
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
