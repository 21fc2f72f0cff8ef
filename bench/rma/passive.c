/* SPDX-License-Identifier: MIT */
/* One-sided latency and bandwidth outside fence epochs, with the OSU
 * micro-benchmarks' semantics (osu_put_latency, osu_get_latency,
 * osu_acc_latency, osu_put_bw, osu_get_bw, osu_fop_latency,
 * osu_cas_latency and their -s lock / flush / lock_all / pscw modes):
 * rank 0 is the origin, rank 1 the target, which only waits (in
 * MPI_Barrier) except in PSCW, where it posts and waits each iteration.
 *   lock      per iteration: Win_lock(EXCLUSIVE, 1); op(s); Win_unlock(1)
 *   flush     Win_lock(SHARED, 1) once; per iteration: op(s); Win_flush(1)
 *   lock_all  Win_lock_all once; per iteration: op(s); Win_flush(1)
 *   pscw      per iteration: Win_start({1}); op(s); Win_complete
 *             (rank 1: Win_post({0}); Win_wait)
 * Latency tables (rma_lat_<op>_<sync>): one operation per iteration, us
 * per iteration; rows "<flavor>/<bytes>" for Win_allocate ("alloc") and
 * Win_create ("create") windows and 8 B, 512 B, 32 KiB, 1 MiB. Bandwidth
 * tables (rma_bw_<op>_<sync>): 64 operations per iteration (OSU's window
 * size), MB/s. rma_atomic_lat: MPI_Fetch_and_op (MPI_SUM, int64) and
 * MPI_Compare_and_swap (int64) under lock_all + flush. Accumulates use
 * MPI_SUM on doubles. Method as fence.c: warm up, size the iteration count
 * to the time budget, keep the fastest repetition. */
#include "bench.h"

#define BIG (1 << 20)
#define BW_WINDOW 64

enum op_kind { OP_PUT, OP_GET, OP_ACC, OP_FOP, OP_CAS };
enum sync_kind { S_LOCK, S_FLUSH, S_LOCK_ALL, S_PSCW };
static const char* op_names[] = {"put", "get", "acc", "fop", "cas"};
static const char* sync_names[] = {"lock", "flush", "lock_all", "pscw"};

static int rank;
static MPI_Group g_peer;  /* the other rank, for PSCW */
static char* src;
static char* dst;

static void op(enum op_kind k, size_t bytes, MPI_Aint disp, MPI_Win win) {
    static long long one = 1, cmp = 0, res;
    switch (k) {
        case OP_PUT: MPI_Put(src, (int)bytes, MPI_BYTE, 1, disp, (int)bytes, MPI_BYTE, win); break;
        case OP_GET: MPI_Get(dst, (int)bytes, MPI_BYTE, 1, disp, (int)bytes, MPI_BYTE, win); break;
        case OP_ACC:
            MPI_Accumulate(src, (int)(bytes / 8), MPI_DOUBLE, 1, disp, (int)(bytes / 8), MPI_DOUBLE, MPI_SUM, win);
            break;
        case OP_FOP: MPI_Fetch_and_op(&one, &res, MPI_LONG_LONG, 1, 0, MPI_SUM, win); break;
        case OP_CAS: MPI_Compare_and_swap(&one, &cmp, &res, MPI_LONG_LONG, 1, 0, win); break;
    }
}

/* Seconds per iteration of `iters` iterations of nops operations. */
static double run(enum op_kind k, enum sync_kind s, size_t bytes, int nops, MPI_Win win, long iters) {
    MPI_Barrier(MPI_COMM_WORLD);
    double t = 0;
    if (rank == 0) {
        const double t0 = MPI_Wtime();
        if (s == S_FLUSH) MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win);
        if (s == S_LOCK_ALL) MPI_Win_lock_all(0, win);
        for (long i = 0; i < iters; ++i) {
            if (s == S_LOCK) MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win);
            if (s == S_PSCW) MPI_Win_start(g_peer, 0, win);
            for (int j = 0; j < nops; ++j) op(k, bytes, nops > 1 && bytes <= BIG / BW_WINDOW ? (MPI_Aint)(j * bytes) : 0, win);
            if (s == S_LOCK) MPI_Win_unlock(1, win);
            if (s == S_FLUSH || s == S_LOCK_ALL) MPI_Win_flush(1, win);
            if (s == S_PSCW) MPI_Win_complete(win);
        }
        if (s == S_FLUSH) MPI_Win_unlock(1, win);
        if (s == S_LOCK_ALL) MPI_Win_unlock_all(win);
        t = (MPI_Wtime() - t0) / (double)iters;
    } else if (rank == 1 && s == S_PSCW) {
        for (long i = 0; i < iters; ++i) {
            MPI_Win_post(g_peer, 0, win);
            MPI_Win_wait(win);
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    return t;
}

/* Rank 0's value to rank 1 (point-to-point only, like bench.h). */
static void share(void* v, MPI_Datatype t) {
    if (rank == 0) MPI_Send(v, 1, t, 1, 99, MPI_COMM_WORLD);
    else if (rank == 1) MPI_Recv(v, 1, t, 0, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

static double measure(enum op_kind k, enum sync_kind s, size_t bytes, int nops, MPI_Win win) {
    run(k, s, bytes, nops, win, 10); /* warm-up */
    double one = run(k, s, bytes, nops, win, bytes >= BIG ? 3 : 30);
    long iters = bench_iters_for(one, 3, 1000000);
    share(&iters, MPI_LONG);
    double best[BENCH_REPS_MAX] = {0};
    const int reps = bench_reps();
    for (int r = 0; r < reps; ++r) best[r] = run(k, s, bytes, nops, win, iters);
    double b = bench_min(best, reps);
    share(&b, MPI_DOUBLE);
    return b;
}

static const size_t lat_sizes[] = {8, 512, 32768, BIG};
static const char* lat_rows[] = {"8", "512", "32K", "1M"};
static const size_t bw_sizes[] = {8, 4096, BIG / BW_WINDOW};
static const char* bw_rows[] = {"8", "4K", "16K"};

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    bench_info();
    if (!bench_need_ranks(2, "passive")) {
        MPI_Finalize();
        return 0;
    }
    MPI_Group world;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    const int peer = 1 - rank;
    MPI_Group_incl(world, 1, &peer, &g_peer);
    MPI_Group_free(&world);
    const size_t wbytes = BIG + 4096;
    src = bench_alloc(wbytes);
    dst = bench_alloc(wbytes);
    for (size_t i = 0; i < wbytes / sizeof(double); ++i) ((double*)src)[i] = 1.0;
    /* every table first, so the rows of both flavors land in them */
    for (int k = OP_PUT; k <= OP_ACC; ++k)
        for (int s = S_LOCK; s <= S_PSCW; ++s) {
            char table[64], desc[200];
            snprintf(table, sizeof table, "rma_lat_%s_%s", op_names[k], sync_names[s]);
            snprintf(desc, sizeof desc, "MPI_%s latency, synchronization %s (OSU -s %s), us per operation",
                     k == OP_PUT ? "Put" : k == OP_GET ? "Get" : "Accumulate", sync_names[s], sync_names[s]);
            bench_table(table, "window/bytes", desc);
            bench_ratio(table, "shm/best-peer", "ch4lite.us", "min(mpich.us,ompi.us)");
            bench_goal(table, "shm/best-peer", "<=", 1.0, NULL);
            bench_ratio(table, "net/ompi-ofi", "ch4lite-net.us", "ompi-ofi.us");
            if ((k == OP_PUT || k == OP_GET) && s == S_LOCK_ALL) {
                bench_ratio(table, "net/fi_rma", "ch4lite-net.us", "fi_rma.us");
                bench_goal(table, "net/fi_rma", "<=", 1.3, "alloc/8,create/8");
            }
        }
    for (int k = OP_PUT; k <= OP_GET; ++k)
        for (int s = S_LOCK; s <= S_PSCW; ++s) {
            char table[64], desc[200];
            snprintf(table, sizeof table, "rma_bw_%s_%s", op_names[k], sync_names[s]);
            snprintf(desc, sizeof desc, "MPI_%s bandwidth, %d operations per %s iteration, MB/s (higher is better)",
                     k == OP_PUT ? "Put" : "Get", BW_WINDOW, sync_names[s]);
            bench_table(table, "window/bytes", desc);
            bench_ratio(table, "best-peer/shm", "max(mpich.MBps,ompi.MBps)", "ch4lite.MBps");
            bench_goal(table, "best-peer/shm", "<=", 1.0, NULL);
            bench_ratio(table, "ompi-ofi/net", "ompi-ofi.MBps", "ch4lite-net.MBps");
        }
    bench_table("rma_atomic_lat", "op/window", "MPI_Fetch_and_op (SUM) and MPI_Compare_and_swap on int64, lock_all + flush, us per operation");
    bench_ratio("rma_atomic_lat", "shm/best-peer", "ch4lite.us", "min(mpich.us,ompi.us)");
    bench_goal("rma_atomic_lat", "shm/best-peer", "<=", 1.0, NULL);
    bench_ratio("rma_atomic_lat", "net/ompi-ofi", "ch4lite-net.us", "ompi-ofi.us");
    for (int flavor = 0; flavor < 2; ++flavor) {
        const char* fl = flavor ? "create" : "alloc";
        MPI_Win win;
        char* base;
        if (flavor == 1) {
            base = bench_alloc(wbytes);
            MPI_Win_create(base, (MPI_Aint)wbytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
        } else {
            MPI_Win_allocate((MPI_Aint)wbytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
        }
        memset(base, 0, wbytes);
        for (int k = OP_PUT; k <= OP_ACC; ++k)
            for (int s = S_LOCK; s <= S_PSCW; ++s)
                for (int i = 0; i < 4; ++i) {
                    char table[64], row[32];
                    snprintf(table, sizeof table, "rma_lat_%s_%s", op_names[k], sync_names[s]);
                    snprintf(row, sizeof row, "%s/%s", fl, lat_rows[i]);
                    const double t = measure((enum op_kind)k, (enum sync_kind)s, lat_sizes[i], 1, win);
                    bench_emit(table, row, "us", t * 1e6);
                }
        for (int k = OP_PUT; k <= OP_GET; ++k)
            for (int s = S_LOCK; s <= S_PSCW; ++s)
                for (int i = 0; i < 3; ++i) {
                    char table[64], row[32];
                    snprintf(table, sizeof table, "rma_bw_%s_%s", op_names[k], sync_names[s]);
                    snprintf(row, sizeof row, "%s/%s", fl, bw_rows[i]);
                    const double t = measure((enum op_kind)k, (enum sync_kind)s, bw_sizes[i], BW_WINDOW, win);
                    bench_emit(table, row, "MBps", (double)bw_sizes[i] * BW_WINDOW / t / 1e6);
                }
        MPI_Win_free(&win);
    }
    /* Last: Open MPI 4.1.4 (vader) crashed in MPI_Compare_and_swap here once */
    for (int flavor = 0; flavor < 2; ++flavor) {
        const char* fl = flavor ? "create" : "alloc";
        MPI_Win win;
        char* base;
        if (flavor == 1) {
            base = bench_alloc(4096);
            MPI_Win_create(base, 4096, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
        } else {
            MPI_Win_allocate(4096, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
        }
        memset(base, 0, 4096);
        for (int k = OP_FOP; k <= OP_CAS; ++k) {
            char row[32];
            snprintf(row, sizeof row, "%s/%s", op_names[k], fl);
            const double t = measure((enum op_kind)k, S_LOCK_ALL, 8, 1, win);
            bench_emit("rma_atomic_lat", row, "us", t * 1e6);
        }
        MPI_Win_free(&win);
    }
    MPI_Group_free(&g_peer);
    MPI_Finalize();
    return 0;
}
