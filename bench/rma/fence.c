/* SPDX-License-Identifier: MIT */
/* Time per fence epoch (issue 6): an epoch with 0, 1, 16 or 256 operations of
 * 8 bytes, or one of 1 MiB, from rank 0 and rank 1 to each other (both ranks
 * issue), closed by MPI_Win_fence; for Put, Get and Accumulate (MPI_SUM on
 * doubles), on Win_create and Win_allocate windows. Plain MPI: it also builds
 * against MPICH and Open MPI. One table per (operation, window flavor):
 * rows "0", "1", "16", "256" (operations of 8 B per epoch) and "1M" (one
 * operation of 1 MiB); metric us_epoch, lower is better. Plus rma_put_sizes
 * and rma_get_sizes: one operation of 4 KiB .. 256 KiB per epoch on the
 * Win_allocate window (where ch4lite's transfer paths switch).
 *
 * Method (docs/benchmarks.md): per row, warm up, time a sample, pick the
 * epoch count that fills the time budget (rank 0 decides and tells rank 1),
 * repeat, keep the fastest repetition. Every row also carries cl_us, the
 * cache-line handoff the two ranks measure before each repetition
 * (bench/common/cacheline.h), so the harness compares configurations in
 * their rounds of the same vCPU placement: with the two vCPUs on sibling
 * hyperthreads a fence is fastest, but 256 accumulates per epoch on both
 * ranks share one core and take ~1.8x as long as on two cores. */
#include "bench.h"
#include "cacheline.h"

#define BIG (1 << 20)

enum op_kind { OP_PUT, OP_GET, OP_ACC };
static const char* op_names[] = {"put", "get", "acc"};

static void issue(enum op_kind op, char* src, int peer, int nops, size_t bytes, MPI_Win win) {
    const int n = (int)(bytes / sizeof(double));
    for (int k = 0; k < nops; ++k) {
        const MPI_Aint disp = (MPI_Aint)k * (MPI_Aint)bytes;
        char* s = src + (size_t)k * bytes;
        if (op == OP_PUT) MPI_Put(s, n, MPI_DOUBLE, peer, disp, n, MPI_DOUBLE, win);
        else if (op == OP_GET) MPI_Get(s, n, MPI_DOUBLE, peer, disp, n, MPI_DOUBLE, win);
        else MPI_Accumulate(s, n, MPI_DOUBLE, peer, disp, n, MPI_DOUBLE, MPI_SUM, win);
    }
}

/* Seconds per epoch over `iters` epochs. */
static double epochs(enum op_kind op, char* src, int peer, int nops, size_t bytes, MPI_Win win,
                     long iters) {
    MPI_Win_fence(0, win);
    double t0 = MPI_Wtime();
    for (long i = 0; i < iters; ++i) {
        issue(op, src, peer, nops, bytes, win);
        MPI_Win_fence(0, win);
    }
    return (MPI_Wtime() - t0) / (double)iters;
}

/* Rank 0's value to rank 1 (point-to-point only, like bench.h). */
static void share(void* v, MPI_Datatype t) {
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) MPI_Send(v, 1, t, 1, 99, MPI_COMM_WORLD);
    else if (rank == 1) MPI_Recv(v, 1, t, 0, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

static struct bench_cl_state cls;
static double cl_floor; /* handoff around the fastest repetition of the last measure() */

static double measure(enum op_kind op, char* src, int peer, int nops, size_t bytes, MPI_Win win) {
    epochs(op, src, peer, nops, bytes, win, 20); /* warm-up, connections */
    double one = epochs(op, src, peer, nops, bytes, win, bytes >= BIG ? 4 : 50);
    long iters = bench_iters_for(one, 4, 2000000);
    share(&iters, MPI_LONG);
    double best[BENCH_REPS_MAX] = {0};
    const int reps = bench_reps();
    double cl[BENCH_REPS_MAX + 1];
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int r = 0; r < reps; ++r) {
        if (cls.cl) cl[r] = bench_cl_run(&cls, rank, cls.n, MPI_Wtime() + bench_target_s());
        best[r] = epochs(op, src, peer, nops, bytes, win, iters);
    }
    cl_floor = 0;
    if (cls.cl) {
        cl[reps] = bench_cl_run(&cls, rank, cls.n, MPI_Wtime() + bench_target_s());
        cl_floor = bench_cl_floor(best, cl, reps, NULL);
    }
    double b = bench_min(best, reps);
    share(&b, MPI_DOUBLE);
    return b;
}

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    bench_info();
    const int peer = rank ^ 1;
    if (size < 2 || peer >= size) {
        if (rank == 0) fprintf(stderr, "fence: needs 2 ranks\n");
        MPI_Finalize();
        return 0;
    }
    if (size == 2) {
        bench_cl_open(&cls, rank);
        bench_cl_calibrate(&cls, rank);
    }
    const size_t wbytes = BIG + 4096;
    char* src = bench_alloc(wbytes);
    for (size_t i = 0; i < wbytes / sizeof(double); ++i) ((double*)src)[i] = (double)i;
    static const int counts[] = {0, 1, 16, 256};
    for (int flavor = 0; flavor < 2; ++flavor) {
        MPI_Win win;
        char* base;
        if (flavor == 0) {
            base = bench_alloc(wbytes);
            MPI_Win_create(base, (MPI_Aint)wbytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
        } else {
            MPI_Win_allocate((MPI_Aint)wbytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
        }
        memset(base, 0, wbytes);
        for (int op = 0; op < 3; ++op) {
            char table[64], desc[160];
            snprintf(table, sizeof table, "rma_%s_%s", op_names[op], flavor ? "allocate" : "create");
            snprintf(desc, sizeof desc, "time per fence epoch, MPI_%s into a Win_%s window, us (lower is better)",
                     op == OP_PUT ? "Put" : op == OP_GET ? "Get" : "Accumulate", flavor ? "allocate" : "create");
            bench_table(table, "ops x bytes", desc);
            bench_ratio(table, "shm/best-peer", "ch4lite.us_epoch", "min(mpich.us_epoch,ompi.us_epoch)");
            bench_goal(table, "shm/best-peer", "<=", 1.0, NULL);
            bench_ratio(table, "shm/mpich", "ch4lite.us_epoch", "mpich.us_epoch");
            if (op == OP_PUT) bench_goal(table, "shm/mpich", "<=", 0.2, "256x8");
            bench_ratio(table, "net/ompi-ofi", "ch4lite-net.us_epoch", "ompi-ofi.us_epoch");
            for (int c = 0; c < 5; ++c) {
                const int nops = c < 4 ? counts[c] : 1;
                const size_t bytes = c < 4 ? 8 : BIG;
                char row[32];
                if (c < 4) snprintf(row, sizeof row, "%dx8", nops);
                else snprintf(row, sizeof row, "1x1M");
                const double s = measure((enum op_kind)op, src, peer, nops, bytes, win);
                bench_emit(table, row, "us_epoch", s * 1e6);
                if (cls.cl) bench_emit(table, row, "cl_us", cl_floor);
            }
        }
        if (flavor == 1) {
            /* One put or get per epoch across sizes: where the transfer paths
             * switch (CH4LITE_RMA_ZCOPY_MIN, _CMA_MIN, _NATIVE_MIN). */
            static const size_t sizes[] = {4096, 16384, 65536, 262144};
            for (int op = 0; op < 2; ++op) {
                char table[64], desc[160];
                snprintf(table, sizeof table, "rma_%s_sizes", op_names[op]);
                snprintf(desc, sizeof desc,
                         "time per fence epoch, one MPI_%s of n bytes into a Win_allocate window, us "
                         "(lower is better)", op == OP_PUT ? "Put" : "Get");
                bench_table(table, "bytes", desc);
                bench_ratio(table, "shm/best-peer", "ch4lite.us_epoch", "min(mpich.us_epoch,ompi.us_epoch)");
                bench_ratio(table, "net/ompi-ofi", "ch4lite-net.us_epoch", "ompi-ofi.us_epoch");
                for (int k = 0; k < 4; ++k) {
                    char row[32];
                    snprintf(row, sizeof row, "%zuK", sizes[k] / 1024);
                    const double s = measure((enum op_kind)op, src, peer, 1, sizes[k], win);
                    bench_emit(table, row, "us_epoch", s * 1e6);
                    if (cls.cl) bench_emit(table, row, "cl_us", cl_floor);
                }
            }
        }
        MPI_Win_free(&win);
    }
    bench_cl_close(&cls);
    MPI_Finalize();
    return 0;
}
