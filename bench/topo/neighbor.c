/* SPDX-License-Identifier: MIT */
/*
 * MPI_Neighbor_alltoall on a 2-D periodic Cartesian grid (MPI_Dims_create
 * of the world: 2 x 2 on 4 ranks, where each dimension's two neighbours are
 * the same process), 8 B .. 64 KiB per neighbour in steps of 8x plus 64 KiB
 * (argv[1] or BENCH_MAX_BYTES lowers the top size).
 *
 * As in coll.c: a measurement is a loop of back-to-back calls, each rank
 * times its loop and the slowest rank's time per call is the result; the
 * iteration count fills the time budget (rank 0 decides from a timed
 * sample), the loop is repeated BENCH_REPS times and the fastest repetition
 * is kept. More ranks than the 2 cores: no cache-line probe (see coll.c).
 *
 * Table: nbr_alltoall_np<p> (rows: bytes per neighbour).
 */
#include "bench.h"

static MPI_Comm cart;
static char *sbuf, *rbuf;

static void run(size_t bytes, long iters)
{
    for (long i = 0; i < iters; i++)
        MPI_Neighbor_alltoall(sbuf, (int)bytes, MPI_BYTE, rbuf, (int)bytes, MPI_BYTE, cart);
}

/* Seconds per call on the slowest rank. */
static double timed(size_t bytes, long iters)
{
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    run(bytes, iters);
    double t = (MPI_Wtime() - t0) / (double)iters, worst = 0;
    MPI_Allreduce(&t, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return worst;
}

static double measure(size_t bytes)
{
    const long warm = bytes >= (32u << 10) ? 5 : 30;
    run(bytes, warm);
    long n = bench_iters_for(timed(bytes, warm), 5, 1000000);
    MPI_Bcast(&n, 1, MPI_LONG, 0, MPI_COMM_WORLD);
    double best[BENCH_REPS_MAX];
    const int reps = bench_reps();
    for (int r = 0; r < reps; r++) best[r] = timed(bytes, n) * 1e6;
    return bench_min(best, reps);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int np = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    int dims[2] = {0, 0}, periods[2] = {1, 1};
    MPI_Dims_create(np, 2, dims);
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart);
    const size_t max = bench_max_bytes(argc, argv, (size_t)64 << 10);
    sbuf = bench_alloc(max * 4);
    rbuf = bench_alloc(max * 4);
    bench_info();
    char table[64], desc[160];
    snprintf(table, sizeof table, "nbr_alltoall_np%d", np);
    snprintf(desc, sizeof desc,
             "MPI_Neighbor_alltoall on a periodic %d x %d grid, bytes per neighbour, us (lower is better)",
             dims[0], dims[1]);
    bench_table(table, "bytes", desc);
    /* Issue 41: on-node (shm on) no worse than the better peer. */
    bench_ratio(table, "shm/best-peer", "ch4lite.lat_us", "min(mpich.lat_us,ompi.lat_us)");
    bench_goal(table, "shm/best-peer", "<=", 1.0, NULL);
    /* Reference: the network path against Open MPI over the same provider. */
    bench_ratio(table, "net/ompi-ofi", "ch4lite-net.lat_us", "ompi-ofi.lat_us");
    for (size_t bytes = 8; bytes <= max; bytes = bytes * 8 > max && bytes < max ? max : bytes * 8)
        bench_emit_size(table, bytes, "lat_us", measure(bytes));
    MPI_Comm_free(&cart);
    free(sbuf);
    free(rbuf);
    MPI_Finalize();
    return 0;
}
