/* SPDX-License-Identifier: MIT */
/*
 * Ping-pong of a derived type of 2-4 large blocks (a vector of doubles with
 * a gap of one block between blocks), ranks 0 and 1, against a contiguous
 * message of the same bytes. Rows "b<blocks>/<block bytes>". This is the
 * benchmark behind CH4LITE_DDT_IOV_SEG_MIN (docs/ddt-wire.md): on the
 * native tagged path (CH4LITE_SHM=0) sends are packed and the switch picks
 * the receive, CH4LITE_DDT_IOV_SEG_MIN=1 a scatter receive into the type's
 * blocks, =1099511627776 a bounce buffer and an unpack. Run both,
 * interleaved, and compare ddt_us (each divided by its run's ref_us when
 * the machine is shared). IOV_BLOCKS (comma list, default 2,3,4) and
 * IOV_MAX (largest block bytes, default 1 MiB) limit the rows. 2 ranks.
 */
#include "bench.h"

#define TABLE "ddt_iov_pingpong"

static void round_trip(int rank, void* buf, int count, MPI_Datatype t) {
    bench_round_trip(rank, buf, buf, count, t, 1);
}

/* Half round trip in microseconds: calibrated count, fastest of the reps. */
static double measure(int rank, void* buf, int count, MPI_Datatype t) {
    for (int i = 0; i < 3; ++i) round_trip(rank, buf, count, t);
    double t0 = MPI_Wtime();
    round_trip(rank, buf, count, t);
    double one = MPI_Wtime() - t0;
    MPI_Bcast(&one, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD); /* one iteration count for both */
    const long iters = bench_iters_for(one, 2, 2000);
    double best[BENCH_REPS_MAX];
    const int reps = bench_reps();
    for (int r = 0; r < reps; ++r) {
        MPI_Barrier(MPI_COMM_WORLD);
        t0 = MPI_Wtime();
        for (long i = 0; i < iters; ++i) round_trip(rank, buf, count, t);
        best[r] = (MPI_Wtime() - t0) / (double)iters / 2 * 1e6;
    }
    return bench_min(best, reps);
}

static int wanted_blocks(int b) {
    const char* s = getenv("IOV_BLOCKS");
    if (!s || !*s) return b >= 2 && b <= 4;
    char buf[128], key[8];
    snprintf(buf, sizeof buf, ",%s,", s);
    snprintf(key, sizeof key, ",%d,", b);
    return strstr(buf, key) != NULL;
}

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2) {
        if (rank == 0) fprintf(stderr, "iov_pingpong: run on 2 ranks\n");
        MPI_Finalize();
        return 0;
    }
    bench_info();
    bench_table(TABLE, "blocks/block bytes",
                "half round trip (us): vector of 2-4 blocks, contiguous reference");
    const char* mx = getenv("IOV_MAX");
    const size_t max_block = mx && atol(mx) > 0 ? (size_t)atol(mx) : (size_t)1 << 20;
    for (int b = 1; b <= 8; ++b) {
        if (!wanted_blocks(b)) continue;
        for (size_t blk = 1024; blk <= max_block; blk *= 4) {
            const int n = (int)(blk / sizeof(double));
            double* buf = bench_alloc(2 * (size_t)b * blk);
            MPI_Datatype t;
            MPI_Type_vector(b, n, 2 * n, MPI_DOUBLE, &t);
            MPI_Type_commit(&t);
            const double ddt = measure(rank, buf, 1, t);
            const double ref = measure(rank, buf, b * n, MPI_DOUBLE);
            char row[32];
            snprintf(row, sizeof row, "b%d/%zu", b, blk);
            bench_emit(TABLE, row, "ddt_us", ddt);
            bench_emit(TABLE, row, "ref_us", ref);
            MPI_Type_free(&t);
            free(buf);
        }
    }
    bench_ratio(TABLE, "net ddt/ref", "ch4lite-net.ddt_us", "ch4lite-net.ref_us");
    MPI_Finalize();
    return 0;
}
