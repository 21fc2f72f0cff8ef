/* SPDX-License-Identifier: MIT */
/* The blocking calls that need no request on a node (MPI_Send of a few
 * bytes writes one ring cell; MPI_Recv takes a plain eager message straight
 * from the ring or the unexpected queue; docs/shm.md "Direct paths") must
 * give way to the request path whenever the first matching message needs it,
 * without reordering anything:
 *   1. tag-selective receives out of arrival order (non-matching cells at the
 *      head of the ring are queued, the match behind them taken);
 *   2. a rendezvous-sized and an Ssend message between small ones;
 *   3. a message too long for the buffer (MPI_ERR_TRUNCATE, then go on);
 *   4. an MPI_Irecv posted before a blocking MPI_Recv gets the first message;
 *   5. MPI_ANY_SOURCE from every rank, per-source order kept;
 *   6. the same with payloads through the data ring (beyond one cell, up to
 *      and past the eager limits of 16 KiB (before) and 32 KiB (default)),
 *      checked word by word, and a data-ring message too long for the
 *      buffer.
 * Rank 0 receives, every other rank sends; run with 2-4 ranks. */
#include "mpitest.h"

#define BIG 50000 /* ints: beyond every eager limit */

static int big[BIG];

static void expect(const int* got, MPI_Status* st, int src, int tag, int first, int count) {
    int n = -1;
    MPI_Get_count(st, MPI_INT, &n);
    CHECK(st->MPI_SOURCE == src, "source %d, expected %d", st->MPI_SOURCE, src);
    CHECK(st->MPI_TAG == tag, "tag %d, expected %d (from %d)", st->MPI_TAG, tag, src);
    CHECK(n == count, "count %d, expected %d (tag %d from %d)", n, count, tag, src);
    CHECK(got[0] == first, "payload %d, expected %d (tag %d from %d)", got[0], first, tag, src);
}

int main(int argc, char** argv) {
    mt_init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int v[4];
    MPI_Status st;

    for (int src = 1; src < size; ++src) {
        if (rank == src) {
            /* 1: tags 1, 2, 3 in this order; received as 3, 1, 2. */
            for (int t = 1; t <= 3; ++t) {
                v[0] = 100 * src + t;
                CHECK_MPI(MPI_Send(v, 1, MPI_INT, 0, t, MPI_COMM_WORLD));
            }
            /* 2: small, rendezvous, small, Ssend, small on one tag. */
            v[0] = 1;
            CHECK_MPI(MPI_Send(v, 1, MPI_INT, 0, 10, MPI_COMM_WORLD));
            for (int k = 0; k < BIG; ++k) big[k] = 2 + k;
            CHECK_MPI(MPI_Send(big, BIG, MPI_INT, 0, 10, MPI_COMM_WORLD));
            v[0] = 3;
            CHECK_MPI(MPI_Send(v, 1, MPI_INT, 0, 10, MPI_COMM_WORLD));
            v[0] = 4;
            CHECK_MPI(MPI_Ssend(v, 1, MPI_INT, 0, 10, MPI_COMM_WORLD));
            v[0] = 5;
            CHECK_MPI(MPI_Send(v, 1, MPI_INT, 0, 10, MPI_COMM_WORLD));
            /* 3: four ints into a buffer of two, then one that fits. */
            int w[4] = {6, 6, 6, 6};
            CHECK_MPI(MPI_Send(w, 4, MPI_INT, 0, 20, MPI_COMM_WORLD));
            v[0] = 7;
            CHECK_MPI(MPI_Send(v, 1, MPI_INT, 0, 20, MPI_COMM_WORLD));
            /* 4: two messages; the receiver posts an Irecv, then a Recv. */
            CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
            v[0] = 8;
            CHECK_MPI(MPI_Send(v, 1, MPI_INT, 0, 30, MPI_COMM_WORLD));
            v[0] = 9;
            CHECK_MPI(MPI_Send(v, 1, MPI_INT, 0, 30, MPI_COMM_WORLD));
        } else if (rank == 0) {
            CHECK_MPI(MPI_Recv(v, 4, MPI_INT, src, 3, MPI_COMM_WORLD, &st));
            expect(v, &st, src, 3, 100 * src + 3, 1);
            CHECK_MPI(MPI_Recv(v, 4, MPI_INT, src, 1, MPI_COMM_WORLD, &st));
            expect(v, &st, src, 1, 100 * src + 1, 1);
            CHECK_MPI(MPI_Recv(v, 4, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
            expect(v, &st, src, 2, 100 * src + 2, 1);

            CHECK_MPI(MPI_Recv(big, BIG, MPI_INT, src, 10, MPI_COMM_WORLD, &st));
            expect(big, &st, src, 10, 1, 1);
            CHECK_MPI(MPI_Recv(big, BIG, MPI_INT, src, 10, MPI_COMM_WORLD, &st));
            expect(big, &st, src, 10, 2, BIG);
            CHECK(big[BIG - 1] == 1 + BIG, "rendezvous payload end %d", big[BIG - 1]);
            for (int k = 3; k <= 5; ++k) {
                CHECK_MPI(MPI_Recv(v, 4, MPI_INT, src, 10, MPI_COMM_WORLD, &st));
                expect(v, &st, src, 10, k, 1);
            }

            int rc = MPI_Recv(v, 2, MPI_INT, src, 20, MPI_COMM_WORLD, &st);
            int cls = -1;
            MPI_Error_class(rc, &cls);
            CHECK(cls == MPI_ERR_TRUNCATE, "4 ints into 2: error class %d, expected MPI_ERR_TRUNCATE", cls);
            CHECK_MPI(MPI_Recv(v, 4, MPI_INT, src, 20, MPI_COMM_WORLD, &st));
            expect(v, &st, src, 20, 7, 1);

            MPI_Request r;
            int first = -1;
            CHECK_MPI(MPI_Irecv(&first, 1, MPI_INT, src, 30, MPI_COMM_WORLD, &r));
            CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
            CHECK_MPI(MPI_Recv(v, 4, MPI_INT, src, 30, MPI_COMM_WORLD, &st));
            expect(v, &st, src, 30, 9, 1);
            CHECK_MPI(MPI_Wait(&r, &st));
            CHECK(first == 8, "the Irecv posted first got %d, expected 8", first);
        } else {
            CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
        }
    }

    /* 5: every sender streams 300 small messages; rank 0 takes them with
     *    MPI_ANY_SOURCE and checks the sequence of each source. */
    enum { M = 300 };
    if (rank != 0) {
        for (int i = 0; i < M; ++i) {
            v[0] = rank;
            v[1] = i;
            CHECK_MPI(MPI_Send(v, 2, MPI_INT, 0, 40, MPI_COMM_WORLD));
        }
    } else {
        int next[64] = {0};
        for (int k = 0; k < M * (size - 1); ++k) {
            CHECK_MPI(MPI_Recv(v, 4, MPI_INT, MPI_ANY_SOURCE, 40, MPI_COMM_WORLD, &st));
            CHECK(st.MPI_SOURCE == v[0], "status source %d, payload %d", st.MPI_SOURCE, v[0]);
            CHECK(v[1] == next[v[0]], "from %d: sequence %d, expected %d", v[0], v[1], next[v[0]]);
            next[v[0]]++;
        }
    }

    /* 6: sizes in ints: in a cell, just past it, mid data ring, 16 KiB and
     *    one past it, exactly the default eager limit (32 KiB), one past it
     *    (rendezvous). */
    static const int sizes[] = {1, 9, 1000, 4096, 4097, 8192, 8193};
    enum { NS = sizeof sizes / sizeof sizes[0], R = 40 };
    if (rank != 0) {
        for (int i = 0; i < R; ++i) {
            const int n = sizes[i % NS];
            for (int k = 0; k < n; ++k) big[k] = rank * 1000000 + i * 5000 + k;
            CHECK_MPI(MPI_Send(big, n, MPI_INT, 0, 50, MPI_COMM_WORLD));
        }
        for (int k = 0; k < 1000; ++k) big[k] = k;
        CHECK_MPI(MPI_Send(big, 1000, MPI_INT, 0, 51, MPI_COMM_WORLD));
        v[0] = 11;
        CHECK_MPI(MPI_Send(v, 1, MPI_INT, 0, 51, MPI_COMM_WORLD));
    } else {
        int next[64] = {0};
        for (int k = 0; k < R * (size - 1); ++k) {
            CHECK_MPI(MPI_Recv(big, BIG, MPI_INT, MPI_ANY_SOURCE, 50, MPI_COMM_WORLD, &st));
            const int src = st.MPI_SOURCE, i = next[src]++, n = sizes[i % NS];
            int got = -1;
            MPI_Get_count(&st, MPI_INT, &got);
            CHECK(got == n, "from %d message %d: count %d, expected %d", src, i, got, n);
            for (int w = 0; w < n; ++w)
                if (big[w] != src * 1000000 + i * 5000 + w) {
                    CHECK(0, "from %d message %d (%d ints): word %d is %d", src, i, n, w, big[w]);
                    break;
                }
        }
        for (int src = 1; src < size; ++src) {
            int rc = MPI_Recv(big, 500, MPI_INT, src, 51, MPI_COMM_WORLD, &st);
            int cls = -1;
            MPI_Error_class(rc, &cls);
            CHECK(cls == MPI_ERR_TRUNCATE, "1000 ints into 500: error class %d, expected MPI_ERR_TRUNCATE",
                  cls);
            CHECK_MPI(MPI_Recv(v, 4, MPI_INT, src, 51, MPI_COMM_WORLD, &st));
            expect(v, &st, src, 51, 11, 1);
        }
    }
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0) printf("direct: ok (%d ranks)\n", size);
    MPI_Finalize();
    return 0;
}
