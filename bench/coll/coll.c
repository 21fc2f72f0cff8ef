/* SPDX-License-Identifier: MIT */
/*
 * Collective latency: MPI_Barrier, MPI_Bcast (root 0), MPI_Allreduce
 * (MPI_DOUBLE, MPI_SUM) and MPI_Alltoall (bytes per block), 8 B .. 1 MiB in
 * steps of 8x plus 1 MiB (argv[1] or BENCH_MAX_BYTES lowers the top size).
 *
 * A measurement is a loop of back-to-back calls; each rank times its loop and
 * the slowest rank's time per call is the result (a broadcast root that
 * returns before the data arrives does not make the call look cheap). The
 * iteration count fills the time budget (rank 0 decides from a timed sample),
 * the loop is repeated BENCH_REPS times and the fastest repetition is kept.
 *
 * Tables: coll_barrier (rows: ranks), coll_<op>_np<p> (rows: bytes).
 *
 * On 2 ranks every row also carries cl_us, the cache-line handoff ranks 0
 * and 1 measure before each repetition (bench/common/cacheline.h): the
 * harness then compares configurations in the round measured in the fastest
 * vCPU placement. With more ranks than the 2 cores the waiting ranks would
 * disturb the handoff differently under each MPI, so those rows go without.
 */
#include "bench.h"
#include "cacheline.h"

enum { BARRIER, BCAST, ALLREDUCE, ALLTOALL };
static const char *const names[] = {"barrier", "bcast", "allreduce", "alltoall"};

static int np, rank;
static char *sbuf, *rbuf;
static struct bench_cl_state cls;
static double cl_floor; /* handoff around the fastest repetition of the last measure() */

static void run(int what, size_t bytes, long iters)
{
    for (long i = 0; i < iters; i++) {
        switch (what) {
            case BARRIER: MPI_Barrier(MPI_COMM_WORLD); break;
            case BCAST: MPI_Bcast(sbuf, (int)bytes, MPI_BYTE, 0, MPI_COMM_WORLD); break;
            case ALLREDUCE:
                MPI_Allreduce(sbuf, rbuf, (int)(bytes / sizeof(double)), MPI_DOUBLE, MPI_SUM,
                              MPI_COMM_WORLD);
                break;
            case ALLTOALL:
                MPI_Alltoall(sbuf, (int)bytes, MPI_BYTE, rbuf, (int)bytes, MPI_BYTE, MPI_COMM_WORLD);
                break;
        }
    }
}

/* Seconds per call on the slowest rank. */
static double timed(int what, size_t bytes, long iters)
{
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    run(what, bytes, iters);
    double t = (MPI_Wtime() - t0) / (double)iters, worst = 0;
    MPI_Allreduce(&t, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return worst;
}

static double measure(int what, size_t bytes)
{
    const long warm = bytes >= (256u << 10) ? 3 : 30;
    run(what, bytes, warm);
    long n = bench_iters_for(timed(what, bytes, warm), 5, 1000000);
    MPI_Bcast(&n, 1, MPI_LONG, 0, MPI_COMM_WORLD);
    double best[BENCH_REPS_MAX], cl[BENCH_REPS_MAX + 1];
    const int reps = bench_reps();
    for (int r = 0; r < reps; r++) {
        if (cls.cl)
            cl[r] = bench_cl_run(&cls, rank, cls.n, MPI_Wtime() + bench_target_s());
        best[r] = timed(what, bytes, n) * 1e6;
    }
    cl_floor = 0;
    if (cls.cl) {
        cl[reps] = bench_cl_run(&cls, rank, cls.n, MPI_Wtime() + bench_target_s());
        cl_floor = bench_cl_floor(best, cl, reps, NULL);
    }
    return bench_min(best, reps);
}

static void declare(const char *table, const char *rows, const char *desc)
{
    bench_table(table, rows, desc);
    /* Issue 5: on-node (shm on) no worse than the better peer. */
    bench_ratio(table, "shm/best-peer", "ch4lite.lat_us", "min(mpich.lat_us,ompi.lat_us)");
    bench_goal(table, "shm/best-peer", "<=", 1.0, NULL);
    /* Reference: the network path against Open MPI over the same provider. */
    bench_ratio(table, "net/ompi-ofi", "ch4lite-net.lat_us", "ompi-ofi.lat_us");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    const size_t max = bench_max_bytes(argc, argv, (size_t)1 << 20);
    sbuf = bench_alloc(max * (size_t)np);
    rbuf = bench_alloc(max * (size_t)np);
    char table[64], row[16];
    bench_info();
    if (np == 2) {
        bench_cl_open(&cls, rank);
        bench_cl_calibrate(&cls, rank);
    }

    declare("coll_barrier", "ranks", "MPI_Barrier latency, us (lower is better)");
    snprintf(row, sizeof row, "%d", np);
    bench_emit("coll_barrier", row, "lat_us", measure(BARRIER, 0));
    if (cls.cl)
        bench_emit("coll_barrier", row, "cl_us", cl_floor);

    for (int what = BCAST; what <= ALLTOALL; what++) {
        snprintf(table, sizeof table, "coll_%s_np%d", names[what], np);
        char desc[128];
        snprintf(desc, sizeof desc, "MPI_%s latency on %d ranks, us (lower is better)",
                 what == BCAST ? "Bcast" : what == ALLREDUCE ? "Allreduce (MPI_DOUBLE, MPI_SUM)"
                                                            : "Alltoall (bytes per block)",
                 np);
        declare(table, "bytes", desc);
        /* 8, 64, 512, ... and the top size itself (1 MiB by default). */
        for (size_t bytes = 8; bytes <= max;
             bytes = bytes * 8 > max && bytes < max ? max : bytes * 8) {
            bench_emit_size(table, bytes, "lat_us", measure(what, bytes));
            if (cls.cl)
                bench_emit_size(table, bytes, "cl_us", cl_floor);
        }
    }
    bench_cl_close(&cls);
    free(sbuf);
    free(rbuf);
    MPI_Finalize();
    return 0;
}
