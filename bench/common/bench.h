/* SPDX-License-Identifier: MIT */
/*
 * Shared helpers for ch4lite benchmarks (plain MPI C, header only, so the
 * same source builds against ch4lite, MPICH and Open MPI).
 *
 * Output contract (rank 0 prints, stdout, tab-separated; docs/benchmarks.md):
 *   TABLE  <table> <row label> <description>          (optional, once)
 *   BENCH  <table> <row> <metric> <value>
 *   RATIO  <table> <name> <num> <den>                 num/den: <impl>.<metric>,
 *                                                     min(a,b,..) or max(a,b,..)
 *   GOAL   <table> <ratio name> <op> <value> [<rows>] op: >= or <=
 *   INFO   <text>                                     shown once per configuration
 * The runner tags every BENCH line with the configuration it launched
 * (ch4lite, ch4lite-net, mpich, ompi, ...); a program never names itself.
 *
 * Only point-to-point calls and MPI_Barrier are used here: collectives may
 * not exist yet in every ch4lite build.
 */
#ifndef CH4LITE_BENCH_H
#define CH4LITE_BENCH_H

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Default per-measurement time budget (seconds) and repetition count. A
 * measurement is repeated and the fastest repetition is kept: on a shared
 * machine noise only ever adds time. */
#define BENCH_TARGET_S 0.040
#define BENCH_TARGET_QUICK_S 0.008
#define BENCH_REPS 5
#define BENCH_REPS_QUICK 2
#define BENCH_REPS_MAX 64
/* A repetition stops early past this many time budgets (disturbed runs). */
#define BENCH_DEADLINE_FACTOR 4.0

/* One ping-pong round trip between ranks 0 and 1: rank 0 sends sbuf and
 * then receives into rbuf; rank 1 receives into rbuf and sends sbuf back. */
static inline void bench_round_trip(int rank, const void *sbuf, void *rbuf, int count,
                                    MPI_Datatype t, int tag)
{
    if (rank == 0) {
        MPI_Send(sbuf, count, t, 1, tag, MPI_COMM_WORLD);
        MPI_Recv(rbuf, count, t, 1, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
        MPI_Recv(rbuf, count, t, 0, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(sbuf, count, t, 0, tag, MPI_COMM_WORLD);
    }
}

static inline int bench_rank(void)
{
    int r = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    return r;
}

/* BENCH_QUICK=1 (set by bench/run.sh) asks for short runs. */
static inline int bench_quick(void)
{
    const char *q = getenv("BENCH_QUICK");
    return q && *q && strcmp(q, "0") != 0;
}

static inline double bench_target_s(void)
{
    return bench_quick() ? BENCH_TARGET_QUICK_S : BENCH_TARGET_S;
}

static inline int bench_reps(void)
{
    const char *r = getenv("BENCH_INNER_REPS");
    if (r && atoi(r) > 0)
        return atoi(r) < BENCH_REPS_MAX ? atoi(r) : BENCH_REPS_MAX;
    return bench_quick() ? BENCH_REPS_QUICK : BENCH_REPS;
}

/* Iterations that fill the time budget, given the measured time of one. */
static inline long bench_iters_for(double t_one, long lo, long hi)
{
    double n = t_one > 0 ? bench_target_s() / t_one : (double)hi;
    if (n < (double)lo)
        return lo;
    if (n > (double)hi)
        return hi;
    return (long)n;
}

/* Page-aligned, touched buffer (so first-touch faults stay out of timings). */
static inline void *bench_alloc(size_t bytes)
{
    void *p = NULL;
    if (posix_memalign(&p, 4096, bytes ? bytes : 1) != 0) {
        fprintf(stderr, "bench: cannot allocate %zu bytes\n", bytes);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    memset(p, 0x5a, bytes);
    return p;
}

/* 1 when the job has `np` ranks; else rank 0 says so (the program then
 * finalizes and exits 0: the harness runs it at its registered count). */
static inline int bench_need_ranks(int np, const char *name)
{
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size == np)
        return 1;
    if (bench_rank() == 0)
        fprintf(stderr, "%s: needs %d ranks\n", name, np);
    return 0;
}

static inline void bench_table(const char *table, const char *row_label, const char *desc)
{
    if (bench_rank() == 0) {
        printf("TABLE\t%s\t%s\t%s\n", table, row_label, desc);
        fflush(stdout);
    }
}

static inline void bench_emit(const char *table, const char *row, const char *metric,
                              double value)
{
    if (bench_rank() == 0) {
        printf("BENCH\t%s\t%s\t%s\t%.6g\n", table, row, metric, value);
        fflush(stdout);
    }
}

/* Rows that are byte counts are printed as plain integers (sortable). */
static inline void bench_emit_size(const char *table, size_t bytes, const char *metric,
                                   double value)
{
    char row[32];
    snprintf(row, sizeof row, "%zu", bytes);
    bench_emit(table, row, metric, value);
}

static inline void bench_ratio(const char *table, const char *name, const char *num,
                               const char *den)
{
    if (bench_rank() == 0) {
        printf("RATIO\t%s\t%s\t%s\t%s\n", table, name, num, den);
        fflush(stdout);
    }
}

/* rows: NULL for every row, else a comma list of rows and lo..hi ranges
 * (numeric rows), or "geomean" for the geometric-mean line. */
static inline void bench_goal(const char *table, const char *ratio, const char *op,
                              double value, const char *rows)
{
    if (bench_rank() == 0) {
        if (rows)
            printf("GOAL\t%s\t%s\t%s\t%g\t%s\n", table, ratio, op, value, rows);
        else
            printf("GOAL\t%s\t%s\t%s\t%g\n", table, ratio, op, value);
        fflush(stdout);
    }
}

/* metric: a reference the program times right beside each row's other
 * measurements, the same code in every implementation's process (a
 * hand-written loop, say); "max" or "min" says which end is fastest. Every
 * row of the table then takes all its values from the round where that
 * probe was fastest, not the median over rounds (docs/benchmarks.md). */
static inline void bench_probe(const char *table, const char *metric, const char *fastest)
{
    if (bench_rank() == 0) {
        printf("PROBE\t%s\t%s\t%s\n", table, metric, fastest);
        fflush(stdout);
    }
}

/* One INFO line: the first line of MPI_Get_library_version (plus a
 * "Device" line, for MPICH), so the tables say which implementation, and for
 * ch4lite which netmod and shm setting, was measured. */
static inline void bench_info(void)
{
    static char v[MPI_MAX_LIBRARY_VERSION_STRING];
    char out[256];
    int len = 0;
    if (bench_rank() != 0 || MPI_Get_library_version(v, &len) != MPI_SUCCESS)
        return;
    v[len > 0 && len < MPI_MAX_LIBRARY_VERSION_STRING ? len : MPI_MAX_LIBRARY_VERSION_STRING - 1] = 0;
    size_t o = 0;
    int lineno = 0;
    for (char *line = strtok(v, "\n"); line && o + 1 < sizeof out; line = strtok(NULL, "\n")) {
        if (lineno++ > 0 && !strstr(line, "Device"))
            continue;
        if (o > 0)
            o += (size_t)snprintf(out + o, sizeof out - o, "; ");
        for (char *c = line; *c && o + 1 < sizeof out; c++) {
            char ch = (*c == '\t') ? ' ' : *c;
            if (ch == ' ' && o > 0 && out[o - 1] == ' ')
                continue; /* squeeze blanks */
            out[o++] = ch;
        }
        out[o] = 0;
    }
    if (o >= sizeof out)
        out[sizeof out - 1] = 0;
    printf("INFO\t%s\n", out);
    fflush(stdout);
}

static inline double bench_min(const double *v, int n)
{
    double m = v[0];
    for (int i = 1; i < n; i++)
        if (v[i] < m)
            m = v[i];
    return m;
}

/* Sizes 0 (when from0), 1, 2, 4, ... max_bytes. Returns the count. */
static inline int bench_sizes(size_t *out, int cap, int from0, size_t max_bytes)
{
    int n = 0;
    if (from0 && n < cap)
        out[n++] = 0;
    for (size_t s = 1; s <= max_bytes && n < cap; s <<= 1)
        out[n++] = s;
    return n;
}

/* Largest message size: argv[1] or BENCH_MAX_BYTES, else the default. */
static inline size_t bench_max_bytes(int argc, char **argv, size_t dflt)
{
    const char *s = argc > 1 ? argv[1] : getenv("BENCH_MAX_BYTES");
    if (s && *s) {
        long long v = atoll(s);
        if (v >= 0)
            return (size_t)v;
    }
    return dflt;
}

#endif /* CH4LITE_BENCH_H */
