/* SPDX-License-Identifier: MIT */
/* What a Win_create window costs to create and free, and what it then
 * costs to use without a fence. ch4lite moves a Win_create window of up to
 * CH4LITE_RMA_REMAP_CREATE bytes (4 MiB) onto a memfd at Win_create so that
 * node peers reach it by load/store in passive-target and PSCW epochs
 * (docs/rma.md, "Remapped Win_create memory"); the copy (touched pages
 * only) and the way back at Win_free are what this table prices.
 *   rma_win_create: Win_create + Win_free of a touched, page-aligned buffer
 *     of <bytes> on both ranks, us per pair (rows 4K .. 16M).
 *   rma_win_create_use: the same plus one passive epoch of rank 0 on rank
 *     1 (lock_all; 100 x (8 B put + flush); unlock_all): the break-even of
 *     the remap against cross-memory attach, us per window.
 * Method: warm up, size the iteration count to the time budget, keep the
 * fastest repetition (bench.h). */
#include "bench.h"

static int rank;

static double run(char* buf, size_t bytes, int use, long iters) {
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = MPI_Wtime();
    for (long i = 0; i < iters; ++i) {
        MPI_Win win;
        MPI_Win_create(buf, (MPI_Aint)bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
        if (use && rank == 0) {
            static long long v = 1;
            MPI_Win_lock_all(0, win);
            for (int k = 0; k < 100; ++k) {
                MPI_Put(&v, 1, MPI_LONG_LONG, 1, (MPI_Aint)(k % 32 * 64), 1, MPI_LONG_LONG, win);
                MPI_Win_flush(1, win);
            }
            MPI_Win_unlock_all(win);
        }
        MPI_Win_free(&win);
    }
    double t = (MPI_Wtime() - t0) / (double)iters;
    MPI_Bcast(&t, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    return t;
}

static double measure(char* buf, size_t bytes, int use) {
    run(buf, bytes, use, 2); /* warm-up */
    const double one = run(buf, bytes, use, 3);
    long iters = bench_iters_for(one, 3, 100000);
    MPI_Bcast(&iters, 1, MPI_LONG, 0, MPI_COMM_WORLD);
    double best[BENCH_REPS_MAX] = {0};
    const int reps = bench_reps();
    for (int r = 0; r < reps; ++r) best[r] = run(buf, bytes, use, iters);
    return bench_min(best, reps);
}

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    bench_info();
    if (!bench_need_ranks(2, "win_create")) {
        MPI_Finalize();
        return 0;
    }
    static const size_t sizes[] = {4096, 65536, 1 << 20, 4 << 20, 16 << 20};
    static const char* rows[] = {"4K", "64K", "1M", "4M", "16M"};
    const int n = (int)(sizeof sizes / sizeof sizes[0]);
    char* buf = bench_alloc(sizes[n - 1]);
    bench_table("rma_win_create", "bytes", "MPI_Win_create + MPI_Win_free of a touched buffer, us per pair");
    bench_ratio("rma_win_create", "shm/best-peer", "ch4lite.us", "min(mpich.us,ompi.us)");
    bench_table("rma_win_create_use", "bytes",
                "MPI_Win_create, 100 x (8 B MPI_Put + MPI_Win_flush) under lock_all, MPI_Win_free, us per window");
    bench_ratio("rma_win_create_use", "shm/best-peer", "ch4lite.us", "min(mpich.us,ompi.us)");
    for (int use = 0; use < 2; ++use)
        for (int i = 0; i < n; ++i)
            bench_emit(use ? "rma_win_create_use" : "rma_win_create", rows[i], "us",
                       measure(buf, sizes[i], use) * 1e6);
    free(buf);
    MPI_Finalize();
    return 0;
}
