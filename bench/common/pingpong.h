/* SPDX-License-Identifier: MIT */
/* The MPI_Send / MPI_Recv ping-pong between ranks 0 and 1 of the latency
 * benchmarks (bench/p2p/latency.c, and persistent.c beside its persistent
 * loop). Rank 0 pings up to `iters` times, stopping early (at a multiple of
 * BENCH_CHECK_EVERY) once `deadline` (MPI_Wtime, 0: none) has passed; the
 * last ping carries BENCH_TAG_LAST, so rank 1 needs no count. Returns the
 * round trips done. The deadline bounds a measurement that other processes
 * disturb: each message can then wait a scheduler slice (milliseconds). */
#ifndef CH4LITE_BENCH_PINGPONG_H
#define CH4LITE_BENCH_PINGPONG_H
#include "bench.h"

#define BENCH_TAG_DATA 1
#define BENCH_TAG_LAST 2    /* the last ping of a measurement */
#define BENCH_CHECK_EVERY 64 /* iterations between clock reads on rank 0 */

static inline long bench_pingpong(int rank, char *sbuf, char *rbuf, size_t size, long iters,
                                  double deadline)
{
    long i = 0;
    if (rank == 0) {
        for (int last = 0; !last; i++) {
            last = i + 1 >= iters || (deadline > 0 && i % BENCH_CHECK_EVERY == BENCH_CHECK_EVERY - 1 &&
                                      MPI_Wtime() > deadline);
            MPI_Send(sbuf, (int)size, MPI_BYTE, 1, last ? BENCH_TAG_LAST : BENCH_TAG_DATA,
                     MPI_COMM_WORLD);
            MPI_Recv(rbuf, (int)size, MPI_BYTE, 1, BENCH_TAG_DATA, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
    } else if (rank == 1) {
        for (int last = 0; !last; i++) {
            MPI_Status st;
            MPI_Recv(rbuf, (int)size, MPI_BYTE, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
            MPI_Send(sbuf, (int)size, MPI_BYTE, 0, BENCH_TAG_DATA, MPI_COMM_WORLD);
            last = st.MPI_TAG == BENCH_TAG_LAST;
        }
    }
    return i;
}

#endif
