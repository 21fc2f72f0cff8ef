/* SPDX-License-Identifier: MIT */
/*
 * DAME pack/unpack benchmark: every DDTBench layout at its listed sizes plus
 * a vector sweep, timing MPI_Pack / MPI_Unpack against memcpy of the same
 * bytes and against the application's hand-written loop, in one process.
 * Built against ch4lite, MPICH and Open MPI from this one source; the
 * harness merges the runs and computes the ratios declared below.
 */
#include "bench.h"
#include "ddt_layouts.h"

#define MAXROWS 128

typedef void (*op_fn)(ddt *L, MPI_Datatype t, char *packed, char *src);

static void op_pack(ddt *L, MPI_Datatype t, char *packed, char *src) {
    int pos = 0;
    MPI_Pack(L->buf, L->count, t, packed, (int)L->bytes, &pos, MPI_COMM_WORLD);
}
static void op_unpack(ddt *L, MPI_Datatype t, char *packed, char *src) {
    int pos = 0;
    MPI_Unpack(packed, (int)L->bytes, &pos, (void *)L->buf, L->count, t, MPI_COMM_WORLD);
}
static void op_hand_pack(ddt *L, MPI_Datatype t, char *packed, char *src) { L->hand(L, packed, 0); }
static void op_hand_unpack(ddt *L, MPI_Datatype t, char *packed, char *src) { L->hand(L, packed, 1); }
static void op_memcpy(ddt *L, MPI_Datatype t, char *packed, char *src) { memcpy(packed, src, L->bytes); }

static double budget(void) { return bench_quick() ? 0.002 : 0.008; }
static int reps(void) { return bench_quick() ? 2 : 3; }

/* Best time of one call (seconds). */
static double best_time(op_fn f, ddt *L, MPI_Datatype t, char *packed, char *src) {
    double t0 = MPI_Wtime();
    f(L, t, packed, src);
    double one = MPI_Wtime() - t0;
    long iters = one > 0 ? (long)(budget() / one) : 1000;
    if (iters < 1) iters = 1;
    if (iters > 100000) iters = 100000;
    double best = 1e30;
    for (int r = 0; r < reps(); ++r) {
        t0 = MPI_Wtime();
        for (long i = 0; i < iters; ++i) f(L, t, packed, src);
        double dt = (MPI_Wtime() - t0) / (double)iters;
        if (dt < best) best = dt;
    }
    return best;
}

static double commit_time(ddt *L) {
    double best = 1e30;
    int n = 0;
    double start = MPI_Wtime();
    do {
        MPI_Datatype t;
        double t0 = MPI_Wtime();
        L->mktype(L, &t);
        double dt = MPI_Wtime() - t0;
        MPI_Type_free(&t);
        if (dt < best) best = dt;
    } while (++n < 200 && MPI_Wtime() - start < budget());
    return best;
}

/* The same with many types alive at once, as an application that builds a
 * type per neighbour or per field has them: construction + commit of `live`
 * types, then MPI_Type_free of all of them; seconds per type. */
enum { live = 64 };
static double live_time(ddt *L) {
    MPI_Datatype t[live];
    double best = 1e30;
    int n = 0;
    double start = MPI_Wtime();
    do {
        double t0 = MPI_Wtime();
        for (int k = 0; k < live; ++k) L->mktype(L, &t[k]);
        for (int k = 0; k < live; ++k) MPI_Type_free(&t[k]);
        double dt = (MPI_Wtime() - t0) / live;
        if (dt < best) best = dt;
    } while (++n < 50 && MPI_Wtime() - start < budget());
    return best;
}

static void add_row(char *list, size_t cap, const char *row) {
    size_t l = strlen(list);
    if (l + strlen(row) + 2 < cap) snprintf(list + l, cap - l, "%s%s", l ? "," : "", row);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    static char large[4096], small[4096], index_[4096], regular[4096];
    ddt L;
    bench_table("dame_pack", "layout", "MPI_Pack of DDTBench layouts, GB/s of packed bytes");
    bench_table("dame_unpack", "layout", "MPI_Unpack of DDTBench layouts, GB/s of packed bytes");
    bench_table("dame_commit", "layout", "type construction + MPI_Type_commit");
    /* The hand-written loop, timed right after MPI_Pack / MPI_Unpack and the
     * same code in every implementation's process, tells which round ran on
     * an unshared core: each row's values come from the round where it was
     * fastest (a core shared with another guest's thread halves it). */
    bench_probe("dame_pack", "hand_GBps", "max");
    bench_probe("dame_unpack", "hand_GBps", "max");
    const char *only = getenv("DAME_BENCH_ONLY"); /* substring filter, for development */
    for (int i = 0; ddt_make(i, &L); ++i) {
        if (only && !strstr(L.name, only)) {
            ddt_free(&L);
            continue;
        }
        MPI_Datatype t;
        L.mktype(&L, &t);
        char *packed = bench_alloc(L.bytes), *src = bench_alloc(L.bytes);
        const double gb = (double)L.bytes / 1e9;
        bench_emit("dame_pack", L.name, "pack_GBps", gb / best_time(op_pack, &L, t, packed, src));
        bench_emit("dame_pack", L.name, "hand_GBps", gb / best_time(op_hand_pack, &L, t, packed, src));
        bench_emit("dame_pack", L.name, "memcpy_GBps", gb / best_time(op_memcpy, &L, t, packed, src));
        op_pack(&L, t, packed, src); /* unpack real data */
        bench_emit("dame_unpack", L.name, "unpack_GBps", gb / best_time(op_unpack, &L, t, packed, src));
        bench_emit("dame_unpack", L.name, "hand_GBps", gb / best_time(op_hand_unpack, &L, t, packed, src));
        bench_emit("dame_unpack", L.name, "memcpy_GBps", gb / best_time(op_memcpy, &L, t, src, packed));
        const double c = commit_time(&L);
        bench_emit("dame_commit", L.name, "commit_us", c * 1e6);
        bench_emit("dame_commit", L.name, "one", 1.0);
        if (L.blocks) bench_emit("dame_commit", L.name, "ns_per_block", c * 1e9 / (double)L.blocks);
        bench_emit("dame_commit", L.name, "live64_us", live_time(&L) * 1e6);
        if (L.klass == DDT_LARGE) add_row(large, sizeof large, L.name);
        if (L.klass == DDT_SMALL) add_row(small, sizeof small, L.name);
        if (L.klass == DDT_INDEX) add_row(index_, sizeof index_, L.name);
        else if (L.buf != MPI_BOTTOM && strncmp(L.name, "WRF", 3) != 0)
            add_row(regular, sizeof regular, L.name); /* regular: no struct, no index list */
        MPI_Type_free(&t);
        free(packed), free(src);
        ddt_free(&L);
    }
    const char *dir[2][2] = {{"dame_pack", "pack_GBps"}, {"dame_unpack", "unpack_GBps"}};
    for (int d = 0; d < 2; ++d) {
        const char *tb = dir[d][0], *m = dir[d][1];
        char num[64], den[160];
        snprintf(num, sizeof num, "ch4lite.%s", m);
        bench_ratio(tb, "vs-memcpy", num, "ch4lite.memcpy_GBps");
        bench_goal(tb, "vs-memcpy", ">=", 0.7, large);
        bench_ratio(tb, "time/hand", "ch4lite.hand_GBps", num);
        bench_goal(tb, "time/hand", "<=", 1.1, small);
        bench_goal(tb, "time/hand", "<=", 1.25, index_);
        snprintf(den, sizeof den, "mpich.%s", m);
        bench_ratio(tb, "vs-mpich", num, den);
        bench_goal(tb, "vs-mpich", ">=", 1.0, NULL);
        snprintf(den, sizeof den, "ompi.%s", m);
        bench_ratio(tb, "vs-ompi", num, den);
        bench_goal(tb, "vs-ompi", ">=", 1.0, NULL);
        snprintf(den, sizeof den, "max(mpich.%s,ompi.%s)", m, m);
        bench_ratio(tb, "vs-best-peer", num, den);
        bench_goal(tb, "vs-best-peer", ">=", 2.0, "geomean");
    }
    bench_ratio("dame_commit", "commit_us", "ch4lite.commit_us", "ch4lite.one");
    bench_goal("dame_commit", "commit_us", "<=", 5.0, regular);
    bench_ratio("dame_commit", "ns/block", "ch4lite.ns_per_block", "ch4lite.one");
    bench_goal("dame_commit", "ns/block", "<=", 25.0, index_);
    bench_ratio("dame_commit", "vs-best-peer", "min(mpich.commit_us,ompi.commit_us)", "ch4lite.commit_us");
    bench_ratio("dame_commit", "live-vs-peer", "min(mpich.live64_us,ompi.live64_us)", "ch4lite.live64_us");
    MPI_Finalize();
    return 0;
}
