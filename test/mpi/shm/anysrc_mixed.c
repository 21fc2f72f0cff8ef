/* SPDX-License-Identifier: MIT */
/* MPI_ANY_SOURCE receives and probes that see shm and netmod senders at once.
 * Run with `mpiexec -ppn 2` so ranks {0,1} share a "node" (shm) and the
 * others reach rank 0 through the netmod. Every message carries (source,
 * sequence) in its tag and bytes; rank 0 checks that each arrives exactly
 * once, intact, and in order per source, in four patterns:
 *   A. ANY_SOURCE receives posted before the senders start;
 *   B. MPI_Probe(ANY_SOURCE) then a receive of the probed message;
 *   C. MPI_Iprobe(ANY_SOURCE) polling, then an ANY_SOURCE receive of the
 *      probed tag;
 *   D. ANY_SOURCE receives racing with the sends (no barrier between). */
#include "shmtest.h"

#define K 120
#define MAXB 40000

static const int sizes[] = {0, 4, 100, 5000, 40000, 16};
#define NSIZES (int)(sizeof sizes / sizeof sizes[0])

static int tag_of(int src, int seq) { return src * 1000 + seq; }

static void send_all(int rank, unsigned char* buf) {
    for (int i = 0; i < K; ++i) {
        const int n = sizes[i % NSIZES];
        st_fill(buf, (size_t)n, rank, i);
        CHECK_MPI(MPI_Send(buf, n, MPI_BYTE, 0, tag_of(rank, i), MPI_COMM_WORLD));
    }
}

/* Checks one received message; next[src] is the sequence expected from src. */
static void accept(const MPI_Status* st, const unsigned char* buf, int* next, int size, char phase) {
    const int src = st->MPI_SOURCE;
    CHECK(src >= 1 && src < size, "%c: bad source %d", phase, src);
    const int seq = st->MPI_TAG - src * 1000;
    CHECK(seq == next[src], "%c: from %d got sequence %d, expected %d (lost, duplicated or "
                            "overtaken)", phase, src, seq, next[src]);
    int count = -1;
    MPI_Get_count(st, MPI_BYTE, &count);
    CHECK(count == sizes[seq % NSIZES], "%c: from %d seq %d: %d bytes", phase, src, seq, count);
    size_t bad = st_check(buf, (size_t)count, src, seq);
    CHECK(bad == 0, "%c: from %d seq %d: byte %zu differs", phase, src, seq, bad - 1);
    ++next[src];
}

static void all_done(const int* next, int size, char phase) {
    for (int s = 1; s < size; ++s) CHECK(next[s] == K, "%c: %d of %d from %d", phase, next[s], K, s);
    int flag = 1;
    CHECK_MPI(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
    CHECK(!flag, "%c: a message is left over", phase);
}

int main(int argc, char** argv) {
    mt_init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size >= 3, "needs 3 ranks or more");
    if (rank == 0 && st_shm_on() && getenv("CH4LITE_TEST_PPN")) {
        /* The layout we meant to test: rank 0 shares a node with rank 1 only. */
        CHECK(st_version_has("shm on (2 local ranks"), "not 2 local ranks: %s", st_version());
        if (st_version_has("native tagged path"))
            CHECK(st_version_has("matched in the device"), "shm on and two nodes, but: %s",
                  st_version());
    }
    unsigned char* buf = malloc((size_t)MAXB * (size_t)(K * size + 1));
    CHECK(buf != NULL, "malloc");
    int next[64] = {0};
    CHECK(size <= 64, "at most 64 ranks");

    /* A: everything pre-posted as ANY_SOURCE. */
    const int total = K * (size - 1);
    MPI_Request* r = malloc(sizeof(MPI_Request) * (size_t)total);
    MPI_Status* sts = malloc(sizeof(MPI_Status) * (size_t)total);
    if (rank == 0)
        for (int i = 0; i < total; ++i)
            CHECK_MPI(MPI_Irecv(buf + (size_t)i * MAXB, MAXB, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG,
                                MPI_COMM_WORLD, &r[i]));
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    if (rank != 0) send_all(rank, buf);
    if (rank == 0) {
        CHECK_MPI(MPI_Waitall(total, r, sts));
        for (int i = 0; i < total; ++i) accept(&sts[i], buf + (size_t)i * MAXB, next, size, 'A');
        all_done(next, size, 'A');
    }
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));

    /* B: blocking probe, then receive exactly what was probed. */
    memset(next, 0, sizeof next);
    if (rank != 0) send_all(rank, buf);
    if (rank == 0)
        for (int i = 0; i < total; ++i) {
            MPI_Status p, st;
            CHECK_MPI(MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &p));
            CHECK_MPI(MPI_Recv(buf, MAXB, MPI_BYTE, p.MPI_SOURCE, p.MPI_TAG, MPI_COMM_WORLD, &st));
            CHECK(st.MPI_SOURCE == p.MPI_SOURCE && st.MPI_TAG == p.MPI_TAG, "B: probe/recv differ");
            accept(&st, buf, next, size, 'B');
        }
    /* Checked before the barrier: after it, the senders start phase C. */
    if (rank == 0) all_done(next, size, 'B');
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));

    /* C: nonblocking probe, then an ANY_SOURCE receive of that tag. */
    memset(next, 0, sizeof next);
    if (rank != 0) send_all(rank, buf);
    if (rank == 0)
        for (int i = 0; i < total;) {
            MPI_Status p, st;
            int flag = 0;
            CHECK_MPI(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &p));
            if (!flag) continue;
            CHECK_MPI(MPI_Recv(buf, MAXB, MPI_BYTE, MPI_ANY_SOURCE, p.MPI_TAG, MPI_COMM_WORLD, &st));
            CHECK(st.MPI_SOURCE == p.MPI_SOURCE, "C: tag %d probed from %d, received from %d",
                  p.MPI_TAG, p.MPI_SOURCE, st.MPI_SOURCE);
            accept(&st, buf, next, size, 'C');
            ++i;
        }
    if (rank == 0) all_done(next, size, 'C');
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));

    /* D: receives and sends race. */
    memset(next, 0, sizeof next);
    if (rank != 0) send_all(rank, buf);
    if (rank == 0) {
        for (int i = 0; i < total; ++i)
            CHECK_MPI(MPI_Irecv(buf + (size_t)i * MAXB, MAXB, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG,
                                MPI_COMM_WORLD, &r[i]));
        CHECK_MPI(MPI_Waitall(total, r, sts));
        for (int i = 0; i < total; ++i) accept(&sts[i], buf + (size_t)i * MAXB, next, size, 'D');
        all_done(next, size, 'D');
    }
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0) {
        printf("anysrc_mixed: OK (%s)\n", st_version());
    }
    free(r);
    free(sts);
    free(buf);
    MPI_Finalize();
    return 0;
}
