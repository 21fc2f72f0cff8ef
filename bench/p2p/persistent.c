/* SPDX-License-Identifier: MIT */
/*
 * Persistent ping-pong latency between ranks 0 and 1 (others idle), as
 * osu_latency_persistent: MPI_Send_init / MPI_Recv_init once, then per round
 * trip MPI_Start + MPI_Wait of the send and of the receive on each side.
 * Beside it, in the same process and placement, the MPI_Send / MPI_Recv
 * ping-pong of latency.c, so "persistent/send-recv" compares the two paths
 * of one implementation. Half round trip in microseconds, 0 B .. 64 B
 * (argv[1] or BENCH_MAX_BYTES raises the top size).
 *
 * Rank 0 ends a measurement with a ping on a second persistent send whose
 * tag says "last"; rank 1 receives with MPI_ANY_TAG, so neither needs the
 * count. Per size: warm-up, calibration, BENCH_REPS timed repetitions each
 * cut short past 4x the budget; the fastest is reported.
 */
#include "bench.h"
#include "pingpong.h"

#define TABLE "p2p_persistent"

static MPI_Request s_data, s_last, r_any, s_reply, r_reply;

static void make_requests(int rank, char *sbuf, char *rbuf, size_t size)
{
    const int n = (int)size;
    if (rank == 0) {
        MPI_Send_init(sbuf, n, MPI_BYTE, 1, BENCH_TAG_DATA, MPI_COMM_WORLD, &s_data);
        MPI_Send_init(sbuf, n, MPI_BYTE, 1, BENCH_TAG_LAST, MPI_COMM_WORLD, &s_last);
        MPI_Recv_init(rbuf, n, MPI_BYTE, 1, BENCH_TAG_DATA, MPI_COMM_WORLD, &r_reply);
    } else if (rank == 1) {
        MPI_Recv_init(rbuf, n, MPI_BYTE, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &r_any);
        MPI_Send_init(sbuf, n, MPI_BYTE, 0, BENCH_TAG_DATA, MPI_COMM_WORLD, &s_reply);
    }
}

static void free_requests(int rank)
{
    if (rank == 0) {
        MPI_Request_free(&s_data);
        MPI_Request_free(&s_last);
        MPI_Request_free(&r_reply);
    } else if (rank == 1) {
        MPI_Request_free(&r_any);
        MPI_Request_free(&s_reply);
    }
}

/* Persistent round trips: up to `iters`, rank 0 stopping early past
 * `deadline` (0: none). Returns the round trips done. */
static long persistent(int rank, long iters, double deadline)
{
    long i = 0;
    if (rank == 0) {
        for (int last = 0; !last; i++) {
            last = i + 1 >= iters ||
                   (deadline > 0 && i % BENCH_CHECK_EVERY == BENCH_CHECK_EVERY - 1 && MPI_Wtime() > deadline);
            MPI_Request *s = last ? &s_last : &s_data;
            MPI_Start(s);
            MPI_Wait(s, MPI_STATUS_IGNORE);
            MPI_Start(&r_reply);
            MPI_Wait(&r_reply, MPI_STATUS_IGNORE);
        }
    } else if (rank == 1) {
        for (int last = 0; !last; i++) {
            MPI_Status st;
            MPI_Start(&r_any);
            MPI_Wait(&r_any, &st);
            MPI_Start(&s_reply);
            MPI_Wait(&s_reply, MPI_STATUS_IGNORE);
            last = st.MPI_TAG == BENCH_TAG_LAST;
        }
    }
    return i;
}

static void declare(void)
{
    bench_table(TABLE, "bytes", "persistent ping-pong (MPI_Start/MPI_Wait), half round trip, us "
                                "(lower is better); sr_us: MPI_Send/MPI_Recv in the same run");
    /* Issue 42: on a node, persistent <= our MPI_Send/MPI_Recv and <= the
     * better peer's persistent figure. */
    bench_ratio(TABLE, "shm/send-recv", "ch4lite.lat_us", "ch4lite.sr_us");
    bench_goal(TABLE, "shm/send-recv", "<=", 1.0, "0..64");
    bench_ratio(TABLE, "shm/best-peer", "ch4lite.lat_us", "min(mpich.lat_us,ompi.lat_us)");
    bench_goal(TABLE, "shm/best-peer", "<=", 1.0, "0..64");
    /* References: the network path. */
    bench_ratio(TABLE, "net/send-recv", "ch4lite-net.lat_us", "ch4lite-net.sr_us");
    bench_ratio(TABLE, "net/ompi-ofi", "ch4lite-net.lat_us", "ompi-ofi.lat_us");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, np;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    if (np < 2) {
        if (rank == 0) fprintf(stderr, "persistent: needs at least 2 ranks\n");
        MPI_Finalize();
        return 1;
    }
    size_t max = bench_max_bytes(argc, argv, 64);
    size_t sizes[64];
    int nsizes = bench_sizes(sizes, 64, 1, max);
    char *sbuf = bench_alloc(max ? max : 1);
    char *rbuf = bench_alloc(max ? max : 1);
    int reps = bench_reps();
    bench_info();
    declare();
    for (int s = 0; s < nsizes && rank < 2; s++) {
        const size_t size = sizes[s];
        make_requests(rank, sbuf, rbuf, size);
        long warm = 200;
        persistent(rank, warm, 0);
        bench_pingpong(rank, sbuf, rbuf, size, warm, 0);
        double t0 = MPI_Wtime();
        persistent(rank, warm, 0);
        const long n = bench_iters_for((MPI_Wtime() - t0) / (double)warm, 5, 2000000);
        double best_p[BENCH_REPS_MAX] = {0}, best_s[BENCH_REPS_MAX] = {0};
        for (int r = 0; r < reps; r++) { /* interleaved: one placement for both */
            t0 = MPI_Wtime();
            long done = persistent(rank, n, t0 + BENCH_DEADLINE_FACTOR * bench_target_s());
            best_p[r] = (MPI_Wtime() - t0) * 1e6 / (2.0 * (double)done);
            t0 = MPI_Wtime();
            done = bench_pingpong(rank, sbuf, rbuf, size, n, t0 + BENCH_DEADLINE_FACTOR * bench_target_s());
            best_s[r] = (MPI_Wtime() - t0) * 1e6 / (2.0 * (double)done);
        }
        bench_emit_size(TABLE, size, "lat_us", bench_min(best_p, reps));
        bench_emit_size(TABLE, size, "sr_us", bench_min(best_s, reps));
        free_requests(rank);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    free(sbuf);
    free(rbuf);
    MPI_Finalize();
    return 0;
}
