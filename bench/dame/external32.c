/* SPDX-License-Identifier: MIT */
/*
 * MPI_Pack_external / MPI_Unpack_external ("external32": big-endian) of
 * contiguous and strided basic types, GB/s of external32 bytes, in one
 * process. Built against ch4lite, MPICH and Open MPI from this one source;
 * the harness merges the runs. Only types every peer packs: Debian's MPICH
 * 4.0.2 aborts on pair types and structs of several basic types.
 */
#include "bench.h"

#define N (1 << 20) /* doubles in the source array: 8 MiB */

static double best_time(int pack, const void *typed, int count, MPI_Datatype t, char *ext,
                        MPI_Aint bytes) {
    double best = 1e30;
    long iters = 1;
    for (int r = 0; r < bench_reps() + 1; ++r) {
        double t0 = MPI_Wtime();
        for (long i = 0; i < iters; ++i) {
            MPI_Aint pos = 0;
            if (pack)
                MPI_Pack_external("external32", typed, count, t, ext, bytes, &pos);
            else
                MPI_Unpack_external("external32", ext, bytes, &pos, (void *)typed, count, t);
        }
        double dt = (MPI_Wtime() - t0) / (double)iters;
        if (r == 0) iters = bench_iters_for(dt, 1, 1000); /* the first run only sizes the loop */
        else if (dt < best) best = dt;
    }
    return best;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    double *a = bench_alloc((size_t)N * sizeof(double));
    char *ext = bench_alloc((size_t)N * 16);
    for (int i = 0; i < N; ++i) a[i] = i * 0.5;
    MPI_Datatype v1, v3;
    MPI_Type_vector(N / 2, 1, 2, MPI_DOUBLE, &v1);
    MPI_Type_vector(N / 4, 3, 4, MPI_DOUBLE, &v3);
    MPI_Type_commit(&v1);
    MPI_Type_commit(&v3);
    struct {
        const char *name;
        MPI_Datatype t;
        int count;
    } rows[] = {{"double_x1M", MPI_DOUBLE, N},
                {"int_x2M", MPI_INT, 2 * N},
                {"short_x4M", MPI_SHORT, 4 * N},
                {"vector_b1_double", v1, 1},
                {"vector_b3_double", v3, 1}};
    bench_table("dame_external32", "layout", "MPI_Pack_external / MPI_Unpack_external, GB/s of external32 bytes");
    for (size_t k = 0; k < sizeof rows / sizeof rows[0]; ++k) {
        MPI_Aint bytes = 0;
        MPI_Pack_external_size("external32", rows[k].count, rows[k].t, &bytes);
        const double gb = (double)bytes / 1e9;
        bench_emit("dame_external32", rows[k].name, "pack_GBps", gb / best_time(1, a, rows[k].count, rows[k].t, ext, bytes));
        bench_emit("dame_external32", rows[k].name, "unpack_GBps",
                   gb / best_time(0, a, rows[k].count, rows[k].t, ext, bytes));
    }
    bench_ratio("dame_external32", "pack-vs-mpich", "ch4lite.pack_GBps", "mpich.pack_GBps");
    bench_ratio("dame_external32", "pack-vs-ompi", "ch4lite.pack_GBps", "ompi.pack_GBps");
    bench_ratio("dame_external32", "unpack-vs-mpich", "ch4lite.unpack_GBps", "mpich.unpack_GBps");
    bench_ratio("dame_external32", "unpack-vs-ompi", "ch4lite.unpack_GBps", "ompi.unpack_GBps");
    MPI_Type_free(&v1);
    MPI_Type_free(&v3);
    free(a);
    free(ext);
    MPI_Finalize();
    return 0;
}
