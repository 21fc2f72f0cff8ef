/* SPDX-License-Identifier: MIT */
/*
 * Buffered-mode streaming bandwidth from rank 0 to rank 1 (others idle):
 * per iteration rank 0 sends a window of 64 messages with MPI_Bsend (a
 * buffer of 64 x (size + MPI_BSEND_OVERHEAD) attached once), then waits for
 * a 4-byte ack; rank 1 posts 64 MPI_Irecv, MPI_Waitall, acks. As
 * bandwidth.c with MPI_Bsend for MPI_Isend + MPI_Waitall. MB/s (10^6
 * bytes/s) for 8 B .. 64 KiB (argv[1] or BENCH_MAX_BYTES).
 */
#include "bench.h"

#define TAG_DATA 1
#define TAG_ACK 2
#define TAG_LAST 3
#define TABLE "p2p_bsend"
#define WINDOW 64

static MPI_Request reqs[WINDOW];

static long stream(int rank, char *sbuf, char *rbuf, size_t size, long iters, double deadline)
{
    char ack[4] = {0};
    long i = 0;
    if (rank == 0) {
        for (int last = 0; !last; i++) {
            last = i + 1 >= iters || (deadline > 0 && MPI_Wtime() > deadline);
            for (int w = 0; w < WINDOW; w++)
                MPI_Bsend(sbuf, (int)size, MPI_BYTE, 1, last ? TAG_LAST : TAG_DATA, MPI_COMM_WORLD);
            MPI_Recv(ack, 4, MPI_BYTE, 1, TAG_ACK, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
    } else if (rank == 1) {
        MPI_Status st[WINDOW];
        for (int last = 0; !last; i++) {
            for (int w = 0; w < WINDOW; w++)
                MPI_Irecv(rbuf, (int)size, MPI_BYTE, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &reqs[w]);
            MPI_Waitall(WINDOW, reqs, st);
            MPI_Send(ack, 4, MPI_BYTE, 0, TAG_ACK, MPI_COMM_WORLD);
            last = st[0].MPI_TAG == TAG_LAST;
        }
    }
    return i;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, np;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    if (np < 2) {
        if (rank == 0) fprintf(stderr, "bsend: needs at least 2 ranks\n");
        MPI_Finalize();
        return 1;
    }
    size_t max = bench_max_bytes(argc, argv, 65536);
    size_t sizes[64];
    int nsizes = 0;
    for (size_t s = 8; s <= max && nsizes < 64; s <<= 1) sizes[nsizes++] = s;
    char *sbuf = bench_alloc(max);
    char *rbuf = bench_alloc(max);
    const int attach_bytes = (int)(WINDOW * (max + MPI_BSEND_OVERHEAD));
    char *attach = bench_alloc((size_t)attach_bytes);
    MPI_Buffer_attach(attach, attach_bytes);
    int reps = bench_reps();
    bench_info();
    bench_table(TABLE, "bytes", "MPI_Bsend streaming bandwidth, window 64, MB/s (higher is better)");
    /* Issue 42: >= the better peer's, 8 B .. 64 KiB, on a node. */
    bench_ratio(TABLE, "shm/best-peer", "ch4lite.MB_s", "max(mpich.MB_s,ompi.MB_s)");
    bench_goal(TABLE, "shm/best-peer", ">=", 1.0, "8..65536");
    bench_ratio(TABLE, "net/ompi-ofi", "ch4lite-net.MB_s", "ompi-ofi.MB_s");
    for (int s = 0; s < nsizes && rank < 2; s++) {
        stream(rank, sbuf, rbuf, sizes[s], 4, 0);
        double t0 = MPI_Wtime();
        stream(rank, sbuf, rbuf, sizes[s], 4, 0);
        const long n = bench_iters_for((MPI_Wtime() - t0) / 4.0, 2, 1000000);
        double per[BENCH_REPS_MAX] = {0};
        for (int r = 0; r < reps; r++) {
            t0 = MPI_Wtime();
            long done = stream(rank, sbuf, rbuf, sizes[s], n, t0 + BENCH_DEADLINE_FACTOR * bench_target_s());
            per[r] = (MPI_Wtime() - t0) / (double)done;
        }
        bench_emit_size(TABLE, sizes[s], "MB_s", (double)WINDOW * (double)sizes[s] / bench_min(per, reps) / 1e6);
    }
    void *b;
    int bs;
    MPI_Buffer_detach(&b, &bs);
    MPI_Barrier(MPI_COMM_WORLD);
    free(sbuf);
    free(rbuf);
    free(attach);
    MPI_Finalize();
    return 0;
}
