/* SPDX-License-Identifier: MIT */
/*
 * Deeply nested datatypes (docs/dame-types.md, "Depth"), one process:
 *   dup_<n>      a chain of n MPI_Type_dup, each level committed as it is made
 *                (MPI_Type_dup of a committed type) and every handle kept, then
 *                all freed: seconds for the chain, microseconds per level, and
 *                the growth of the per-level time over the 5000-level chain
 *                (1 when linear; ch4lite's had been quadratic: 5 k / 40 k levels
 *                took 0.46 / 64 s)
 *   contig_<n>, struct_<n>
 *                n levels of MPI_Type_contiguous(1, ...) / a one-field
 *                MPI_Type_create_struct, each level's handle freed once the
 *                next holds it, the top committed and freed (the chain of a
 *                million levels that had overflowed ch4lite's stack)
 * BENCH_QUICK: a tenth of the levels.
 */
#include "bench.h"

static double now(void) { return MPI_Wtime(); }

/* Seconds for a chain of n dups, each committed, then freeing them all. */
static double dup_chain(long n) {
    MPI_Datatype *h = malloc(sizeof(MPI_Datatype) * (size_t)(n + 1));
    MPI_Type_contiguous(4, MPI_INT, &h[0]);
    MPI_Type_commit(&h[0]);
    const double t0 = now();
    for (long i = 0; i < n; ++i) {
        MPI_Type_dup(h[i], &h[i + 1]);
        MPI_Type_commit(&h[i + 1]);
    }
    for (long i = n; i >= 0; --i) MPI_Type_free(&h[i]);
    const double dt = now() - t0;
    free(h);
    return dt;
}

/* Seconds to build n levels of one constructor, commit the top and free it. */
static double nest(long n, int use_struct) {
    const double t0 = now();
    MPI_Datatype cur = MPI_INT, next;
    for (long i = 0; i < n; ++i) {
        if (use_struct) {
            int b = 1;
            MPI_Aint d = 0;
            MPI_Type_create_struct(1, &b, &d, &cur, &next);
        } else {
            MPI_Type_contiguous(1, cur, &next);
        }
        if (cur != MPI_INT) MPI_Type_free(&cur);
        cur = next;
    }
    MPI_Type_commit(&cur);
    MPI_Type_free(&cur);
    return now() - t0;
}

static double best_of(int reps, double (*f)(long, int), long n, int arg) {
    double best = 1e30;
    for (int r = 0; r < reps; ++r) {
        const double t = f(n, arg);
        if (t < best) best = t;
    }
    return best;
}
static double dup_adapter(long n, int unused) { return dup_chain(n); }

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    const long scale = bench_quick() ? 10 : 1;
    const int reps = bench_quick() ? 1 : 3;
    bench_table("dame_deep", "chain", "deeply nested datatypes: seconds per chain (build, commit, free)");
    static const long dups[] = {5000, 10000, 20000, 40000};
    double per5k = 0;
    char row[64], dup_rows[256] = "";
    for (int i = 0; i < 4; ++i) {
        const long n = dups[i] / scale;
        const double s = best_of(reps, dup_adapter, n, 0);
        const double per = s / (double)n * 1e6;
        if (i == 0) per5k = per;
        snprintf(row, sizeof row, "dup_%ld", n);
        bench_emit("dame_deep", row, "s", s);
        bench_emit("dame_deep", row, "us_per_level", per);
        bench_emit("dame_deep", row, "growth", per5k > 0 ? per / per5k : 1.0);
        bench_emit("dame_deep", row, "one", 1.0);
        size_t l = strlen(dup_rows);
        snprintf(dup_rows + l, sizeof dup_rows - l, "%s%s", l ? "," : "", row);
    }
    const long deep = 1000000 / scale;
    snprintf(row, sizeof row, "contig_%ld", deep);
    bench_emit("dame_deep", row, "s", best_of(1, nest, deep, 0));
    snprintf(row, sizeof row, "struct_%ld", deep);
    bench_emit("dame_deep", row, "s", best_of(1, nest, deep, 1));
    bench_ratio("dame_deep", "vs-best-peer", "min(mpich.s,ompi.s)", "ch4lite.s");
    bench_goal("dame_deep", "vs-best-peer", ">=", 1.0, NULL);
    bench_ratio("dame_deep", "growth", "ch4lite.growth", "ch4lite.one");
    bench_goal("dame_deep", "growth", "<=", 3.0, dup_rows); /* quadratic: 8 at 40 000 */
    MPI_Finalize();
    return 0;
}
