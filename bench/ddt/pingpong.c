/* SPDX-License-Identifier: MIT */
/*
 * DDTBench-style ping-pong per layout (issue 7), ranks 0 and 1:
 *   (a) "ddt"    send and receive the layout's derived datatype;
 *   (b) "pack"   MPI_Pack into a contiguous buffer, a contiguous send of
 *                the packed bytes, MPI_Unpack on arrival (both directions:
 *                DDTBench's "MPI_Pack" variant, what an application does
 *                by hand when it does not trust the library's datatypes);
 *   (c) "ref"    a contiguous message of the same byte count (the floor).
 * Reports half the round trip in microseconds. Ratios: ddt/pack per
 * implementation (goal for ch4lite <= 1.1, on-node and network paths) and
 * ch4lite's ddt against MPICH's and Open MPI's (goal: faster on every
 * layout). DDT_LAYOUTS (comma list of indices) limits the layouts; this is
 * the benchmark that set the thresholds of docs/ddt-wire.md.
 * On one node each row also carries cl_us, the cache-line handoff of ranks
 * 0 and 1 around the fastest derived-type repetition (cacheline.h), so the
 * harness compares configurations in the vCPU placement each saw fastest
 * (docs/benchmarks.md, point 6).
 */
#include "../dame/ddt_layouts.h"
#include "bench.h"
#include "cacheline.h"

#define TABLE "ddt_pingpong"

static struct bench_cl_state cls;
static double cl_floor; /* handoff around the last measure()'s fastest repetition */

typedef void (*round_fn)(int rank, ddt* L, MPI_Datatype t, char* packed, char* rpacked);

static void round_ddt(int rank, ddt* L, MPI_Datatype t, char* packed, char* rpacked) {
    (void)packed, (void)rpacked;
    bench_round_trip(rank, L->buf, (void*)L->buf, L->count, t, 1);
}

static void pack(ddt* L, MPI_Datatype t, char* out) {
    int pos = 0;
    MPI_Pack(L->buf, L->count, t, out, (int)L->bytes, &pos, MPI_COMM_WORLD);
}
static void unpack(ddt* L, MPI_Datatype t, char* in) {
    int pos = 0;
    MPI_Unpack(in, (int)L->bytes, &pos, (void*)L->buf, L->count, t, MPI_COMM_WORLD);
}

static void round_pack(int rank, ddt* L, MPI_Datatype t, char* packed, char* rpacked) {
    const int n = (int)L->bytes;
    if (rank == 0) {
        pack(L, t, packed);
        MPI_Send(packed, n, MPI_PACKED, 1, 2, MPI_COMM_WORLD);
        MPI_Recv(rpacked, n, MPI_PACKED, 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        unpack(L, t, rpacked);
    } else {
        MPI_Recv(rpacked, n, MPI_PACKED, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        unpack(L, t, rpacked);
        pack(L, t, packed);
        MPI_Send(packed, n, MPI_PACKED, 0, 2, MPI_COMM_WORLD);
    }
}

static void round_ref(int rank, ddt* L, MPI_Datatype t, char* packed, char* rpacked) {
    (void)t;
    bench_round_trip(rank, packed, rpacked, (int)L->bytes, MPI_BYTE, 3);
}

/* Half round trip in microseconds: calibrated count, fastest of the reps. */
static double measure(int rank, round_fn f, ddt* L, MPI_Datatype t, char* p, char* rp) {
    for (int i = 0; i < 3; ++i) f(rank, L, t, p, rp);
    double t0 = MPI_Wtime();
    f(rank, L, t, p, rp);
    double one = MPI_Wtime() - t0;
    if (rank == 0)  /* rank 0 decides the iteration count for both */
        MPI_Send(&one, 1, MPI_DOUBLE, 1, 9, MPI_COMM_WORLD);
    else
        MPI_Recv(&one, 1, MPI_DOUBLE, 0, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    long iters = bench_iters_for(one, 2, 2000);
    double best[BENCH_REPS_MAX], cl[BENCH_REPS_MAX + 1];
    const int reps = bench_reps();
    for (int r = 0; r < reps; ++r) {
        if (cls.cl) cl[r] = bench_cl_run(&cls, rank, cls.n, MPI_Wtime() + bench_target_s());
        MPI_Barrier(MPI_COMM_WORLD);
        t0 = MPI_Wtime();
        for (long i = 0; i < iters; ++i) f(rank, L, t, p, rp);
        best[r] = (MPI_Wtime() - t0) / (double)iters / 2 * 1e6;
    }
    cl_floor = 0;
    if (cls.cl) {
        cl[reps] = bench_cl_run(&cls, rank, cls.n, MPI_Wtime() + bench_target_s());
        cl_floor = bench_cl_floor(best, cl, reps, NULL);
    }
    return bench_min(best, reps);
}

static int selected(int i) {
    const char* s = getenv("DDT_LAYOUTS");
    if (!s || !*s) return 1;
    char buf[512];
    snprintf(buf, sizeof buf, ",%s,", s);
    char key[16];
    snprintf(key, sizeof key, ",%d,", i);
    return strstr(buf, key) != NULL;
}

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    bench_info();
    bench_cl_open(&cls, rank);
    bench_cl_calibrate(&cls, rank);
    bench_table(TABLE, "layout", "half round trip (us): derived type, MPI_Pack+send+MPI_Unpack, contiguous reference");
    ddt L;
    for (int i = 0; ddt_make(i, &L); ++i) {
        if (!selected(i) || rank > 1) {
            ddt_free(&L);
            continue;
        }
        MPI_Datatype t;
        L.mktype(&L, &t);
        char* p = bench_alloc(L.bytes + 64);
        char* rp = bench_alloc(L.bytes + 64);
        char row[64];
        snprintf(row, sizeof row, "%s", L.name);
        const double a = measure(rank, round_ddt, &L, t, p, rp);
        const double cl_a = cl_floor;
        const double b = measure(rank, round_pack, &L, t, p, rp);
        const double c = measure(rank, round_ref, &L, t, p, rp);
        bench_emit(TABLE, row, "ddt_us", a);
        bench_emit(TABLE, row, "pack_us", b);
        bench_emit(TABLE, row, "ref_us", c);
        if (cls.cl) bench_emit(TABLE, row, "cl_us", cl_a);
        free(p);
        free(rp);
        MPI_Type_free(&t);
        ddt_free(&L);
    }
    bench_cl_close(&cls);
    bench_ratio(TABLE, "ddt/pack", "ch4lite.ddt_us", "ch4lite.pack_us");
    bench_ratio(TABLE, "net ddt/pack", "ch4lite-net.ddt_us", "ch4lite-net.pack_us");
    bench_ratio(TABLE, "ddt/ref", "ch4lite.ddt_us", "ch4lite.ref_us");
    bench_ratio(TABLE, "ddt/mpich", "ch4lite.ddt_us", "mpich.ddt_us");
    bench_ratio(TABLE, "ddt/ompi", "ch4lite.ddt_us", "ompi.ddt_us");
    bench_ratio(TABLE, "mpich ddt/pack", "mpich.ddt_us", "mpich.pack_us");
    bench_ratio(TABLE, "ompi ddt/pack", "ompi.ddt_us", "ompi.pack_us");
    bench_goal(TABLE, "ddt/pack", "<=", 1.1, NULL);
    bench_goal(TABLE, "net ddt/pack", "<=", 1.1, NULL);
    bench_goal(TABLE, "ddt/mpich", "<=", 1.0, NULL);
    bench_goal(TABLE, "ddt/ompi", "<=", 1.0, NULL);
    MPI_Finalize();
    return 0;
}
