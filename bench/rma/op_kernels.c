/* SPDX-License-Identifier: MIT */
/* Reduction kernels (issue 6): the time of MPI_Reduce_local on one process,
 * which is the kernel an accumulate applies at its target (ch4lite:
 * dev::op_apply; MPICH: its op functions; Open MPI: the op framework, with
 * its AVX/AVX2/AVX-512 component where the CPU has them). Plain MPI: it also
 * builds against MPICH and Open MPI.
 *
 * Tables rma_op_32K and rma_op_1M: inout buffers of 32 KiB (in and inout stay
 * in L2) and 1 MiB (as the 1 MiB accumulate of bench/rma/fence.c); rows
 * "<type>.<op>"; metric us_call, lower is better. Method as bench.h: time a
 * sample, fill the time budget, keep the fastest repetition. Both buffers are
 * reinitialized before each repetition, so values stay finite and no row
 * runs on denormals or NaNs. */
#include "bench.h"

#include <stdint.h>

struct row {
    const char* name;
    MPI_Datatype type;
    int size;
    MPI_Op op;
};

static void fill(char* in, char* io, size_t bytes, MPI_Datatype t) {
    if (t == MPI_DOUBLE) {
        for (size_t i = 0; i < bytes / 8; ++i) {
            ((double*)in)[i] = 1.0 + (double)(i % 7) * 0.125;
            ((double*)io)[i] = 1.0 + (double)(i % 5) * 0.25;
        }
    } else if (t == MPI_FLOAT) {
        for (size_t i = 0; i < bytes / 4; ++i) {
            ((float*)in)[i] = 1.0f + (float)(i % 7) * 0.125f;
            ((float*)io)[i] = 1.0f + (float)(i % 5) * 0.25f;
        }
    } else {
        for (size_t i = 0; i < bytes; ++i) {
            in[i] = (char)(1 + i % 3);
            io[i] = (char)(1 + i % 5);
        }
    }
}

static double calls(const struct row* r, const char* in, char* io, size_t bytes, long iters) {
    const int n = (int)(bytes / (size_t)r->size);
    double t0 = MPI_Wtime();
    for (long i = 0; i < iters; ++i) MPI_Reduce_local(in, io, n, r->type, r->op);
    return (MPI_Wtime() - t0) / (double)iters;
}

static double measure(const struct row* r, char* in, char* io, size_t bytes) {
    fill(in, io, bytes, r->type);
    calls(r, in, io, bytes, 3); /* warm-up: pages, caches */
    const double one = calls(r, in, io, bytes, 8);
    const long iters = bench_iters_for(one, 8, 1000000);
    double best[BENCH_REPS_MAX] = {0};
    const int reps = bench_reps();
    for (int k = 0; k < reps; ++k) {
        fill(in, io, bytes, r->type); /* PROD and SUM must not reach inf */
        best[k] = calls(r, in, io, bytes, iters);
    }
    return bench_min(best, reps);
}

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    bench_info();
    const struct row rows[] = {
        {"f64.sum", MPI_DOUBLE, 8, MPI_SUM},   {"f64.prod", MPI_DOUBLE, 8, MPI_PROD},
        {"f64.max", MPI_DOUBLE, 8, MPI_MAX},   {"f32.sum", MPI_FLOAT, 4, MPI_SUM},
        {"f32.min", MPI_FLOAT, 4, MPI_MIN},    {"i32.sum", MPI_INT, 4, MPI_SUM},
        {"i32.prod", MPI_INT, 4, MPI_PROD},    {"i32.max", MPI_INT, 4, MPI_MAX},
        {"i32.band", MPI_INT, 4, MPI_BAND},    {"i64.sum", MPI_INT64_T, 8, MPI_SUM},
        {"i64.min", MPI_INT64_T, 8, MPI_MIN},  {"u64.bxor", MPI_UINT64_T, 8, MPI_BXOR},
        {"u8.bor", MPI_UINT8_T, 1, MPI_BOR},   {"i16.sum", MPI_INT16_T, 2, MPI_SUM},
    };
    const size_t sizes[] = {32 << 10, 1 << 20};
    const char* names[] = {"rma_op_32K", "rma_op_1M"};
    char* in = bench_alloc(1 << 20);
    char* io = bench_alloc(1 << 20);
    for (int s = 0; s < 2; ++s) {
        char desc[160];
        snprintf(desc, sizeof desc,
                 "MPI_Reduce_local on %zu KiB, us per call (lower is better)", sizes[s] >> 10);
        bench_table(names[s], "type.op", desc);
        bench_ratio(names[s], "ch4lite/best-peer", "ch4lite.us_call", "min(mpich.us_call,ompi.us_call)");
        bench_goal(names[s], "ch4lite/best-peer", "<=", 1.0, NULL);
        for (size_t r = 0; r < sizeof rows / sizeof rows[0]; ++r)
            bench_emit(names[s], rows[r].name, "us_call", measure(&rows[r], in, io, sizes[s]) * 1e6);
    }
    MPI_Finalize();
    return 0;
}
