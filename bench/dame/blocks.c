/* SPDX-License-Identifier: MIT */
/*
 * Long blocks: MPI_Pack / MPI_Unpack of a vector of blocks of 1 KiB - 1 MiB
 * (stride twice the block, 4 MiB packed) against memcpy per block of the same
 * layout in the same process, the way a datatype engine that calls memcpy
 * for each block copies it. The two are timed in alternation, round after
 * round, so that a disturbed stretch of the shared machine hits both; the
 * ratio vs-blocks is the one to read. Rows "+8": the typed side starts 8
 * bytes after a cache line. Built against ch4lite, MPICH and Open MPI.
 */
#include "bench.h"

enum { packed_bytes = 4 << 20 };

typedef struct {
    long blen, count, stride;
    char *typed, *packed;
    MPI_Datatype t;
} layout;

static void do_pack(const layout *L) {
    int pos = 0;
    MPI_Pack(L->typed, 1, L->t, L->packed, packed_bytes, &pos, MPI_COMM_WORLD);
}
static void do_unpack(const layout *L) {
    int pos = 0;
    MPI_Unpack(L->packed, packed_bytes, &pos, L->typed, 1, L->t, MPI_COMM_WORLD);
}
static void do_blocks_pack(const layout *L) {
    for (long i = 0; i < L->count; ++i)
        memcpy(L->packed + i * L->blen, L->typed + i * L->stride, (size_t)L->blen);
}
static void do_blocks_unpack(const layout *L) {
    for (long i = 0; i < L->count; ++i)
        memcpy(L->typed + i * L->stride, L->packed + i * L->blen, (size_t)L->blen);
}

/* Seconds per call of f and of g, each the best of rounds that alternate
 * between them. */
static void best_pair(void (*f)(const layout *), void (*g)(const layout *), const layout *L,
                      double *tf, double *tg) {
    double t0 = MPI_Wtime();
    f(L);
    g(L);
    const long iters = bench_iters_for((MPI_Wtime() - t0) / 2, 1, 10000);
    const int rounds = 4 * bench_reps();
    *tf = *tg = 1e30;
    for (int r = 0; r < rounds; ++r) {
        t0 = MPI_Wtime();
        for (long i = 0; i < iters; ++i) f(L);
        double t1 = MPI_Wtime();
        for (long i = 0; i < iters; ++i) g(L);
        double t2 = MPI_Wtime();
        if ((t1 - t0) / iters < *tf) *tf = (t1 - t0) / iters;
        if ((t2 - t1) / iters < *tg) *tg = (t2 - t1) / iters;
    }
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    bench_table("dame_blocks", "block",
                "MPI_Pack of a vector of long blocks (stride 2 blocks, 4 MiB packed), GB/s");
    bench_table("dame_blocks_unpack", "block", "MPI_Unpack of the same, GB/s");
    const long kib[] = {1, 2, 4, 8, 16, 64, 256, 1024};
    const int offs[] = {0, 8};
    char *typed = bench_alloc(2 * (size_t)packed_bytes + 64);
    char *packed = bench_alloc(packed_bytes);
    for (int o = 0; o < 2; ++o)
        for (size_t k = 0; k < sizeof kib / sizeof kib[0]; ++k) {
            if (offs[o] && kib[k] != 8 && kib[k] != 64) continue;
            layout L = {kib[k] << 10, packed_bytes / (kib[k] << 10), 2 * (kib[k] << 10),
                        typed + offs[o], packed, MPI_DATATYPE_NULL};
            MPI_Type_vector((int)L.count, (int)(L.blen / 8), (int)(L.stride / 8), MPI_DOUBLE, &L.t);
            MPI_Type_commit(&L.t);
            char row[32];
            snprintf(row, sizeof row, kib[k] < 1024 ? "b%ldK%s" : "b%ldM%s",
                     kib[k] < 1024 ? kib[k] : kib[k] >> 10, offs[o] ? "+8" : "");
            const double gb = packed_bytes / 1e9;
            double t, tb;
            best_pair(do_pack, do_blocks_pack, &L, &t, &tb);
            bench_emit("dame_blocks", row, "pack_GBps", gb / t);
            bench_emit("dame_blocks", row, "blocks_GBps", gb / tb);
            best_pair(do_unpack, do_blocks_unpack, &L, &t, &tb);
            bench_emit("dame_blocks_unpack", row, "unpack_GBps", gb / t);
            bench_emit("dame_blocks_unpack", row, "blocks_GBps", gb / tb);
            MPI_Type_free(&L.t);
        }
    const char *dir[2][2] = {{"dame_blocks", "pack_GBps"}, {"dame_blocks_unpack", "unpack_GBps"}};
    for (int d = 0; d < 2; ++d) {
        char num[64], den[96];
        snprintf(num, sizeof num, "ch4lite.%s", dir[d][1]);
        bench_ratio(dir[d][0], "vs-blocks", num, "ch4lite.blocks_GBps");
        snprintf(den, sizeof den, "mpich.%s", dir[d][1]);
        bench_ratio(dir[d][0], "vs-mpich", num, den);
        snprintf(den, sizeof den, "ompi.%s", dir[d][1]);
        bench_ratio(dir[d][0], "vs-ompi", num, den);
    }
    free(typed);
    free(packed);
    MPI_Finalize();
    return 0;
}
