/* SPDX-License-Identifier: MIT */
/* MPI_Ibcast and MPI_Bcast_init through the staging segment
 * (docs/collectives-staged.md, "Scheduled broadcast"), run with every
 * broadcast staged (CH4LITE_COLL_BCAST_STAGE=0):
 *   - the first collective on a fresh communicator is an MPI_Ibcast, which
 *     sets the segment up inside its schedule, and a blocking MPI_Bcast
 *     issued right after it (the ranks reach it at different times) waits
 *     for that set-up and for its turn;
 *   - 16 outstanding Ibcasts of mixed sizes and roots (some of more chunks
 *     than the 8 slots hold), a blocking Bcast and an Allreduce among them,
 *     completed in reverse order, or by MPI_Testall polling while rank 0
 *     computes;
 *   - a persistent Bcast_init started 50 times with new data, mixed with
 *     Ibcasts (each start takes its place in collective order);
 *   - a persistent Bcast_init made before the communicator had a segment
 *     (it keeps its point-to-point steps), started after one exists;
 *   - a member that cannot attach the segment (out of file descriptors):
 *     every member takes the point-to-point steps of that Ibcast, and later
 *     broadcasts on that communicator too (it never tries again);
 *   - a strided datatype (packed before the staged steps, unpacked after);
 *   - a reader whose count is short of the root's: MPI_ERR_TRUNCATE for that
 *     rank only (MPI_ERRORS_RETURN), what fits delivered, and the next
 *     broadcasts still right (the chunk counters stayed in step).
 * Each check fails when a reader takes a chunk of another broadcast, when
 * a member takes another branch than the others (hangs: the ctest timeout),
 * or when a turn is skipped. */
#include <sys/resource.h>
#include <unistd.h>

#include "mpitest.h"

static int me, p;

/* A broadcast buffer: the root's holds the pattern of `seed`, the others' zeros. */
static void prepare(void* b, size_t n, int root, int seed) {
    if (me == root)
        mt_fill(b, n, seed);
    else
        memset(b, 0, n);
}
static void expect(const char* b, size_t n, int seed, const char* what) {
    const size_t bad = mt_verify(b, n, seed);
    CHECK(bad == 0, "%s: %zu bytes, first wrong byte %zu", what, n, bad - 1);
}

/* Ibcast first, then a blocking Bcast, on a fresh communicator. */
static void first_is_nonblocking(void) {
    MPI_Comm c;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    const size_t n1 = 300000, n2 = 70000;
    char* a = malloc(n1);
    char* b = malloc(n2);
    prepare(a, n1, 0, 1);
    prepare(b, n2, p - 1, 2);
    MPI_Request r;
    CHECK_MPI(MPI_Ibcast(a, (int)n1, MPI_CHAR, 0, c, &r));
    /* Ranks reach the blocking call at different times. */
    if (me == 1) {
        double t = MPI_Wtime();
        while (MPI_Wtime() - t < 0.01) {}
    }
    CHECK_MPI(MPI_Bcast(b, (int)n2, MPI_CHAR, p - 1, c));
    expect(b, n2, 2, "blocking Bcast after Ibcast");
    CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
    expect(a, n1, 1, "first Ibcast");
    free(a);
    free(b);
    CHECK_MPI(MPI_Comm_free(&c));
}

enum { NB = 16 };
static const size_t sizes[NB] = {40000, 131072, 1200000, 65536, 33000, 2000000, 90000, 150000,
                                 1, 40000, 600000, 70000, 300000, 45000, 1048576, 64};

static void many(MPI_Comm c, int polled) {
    char* buf[NB];
    MPI_Request r[NB + 1];
    size_t mid = 100000;
    char* m = malloc(mid);
    int in = me + 1, sum = 0;
    for (int k = 0; k < NB; ++k) {
        buf[k] = malloc(sizes[k]);
        const int root = (k * 3) % p;
        prepare(buf[k], sizes[k], root, 10 + k);
        CHECK_MPI(MPI_Ibcast(buf[k], (int)sizes[k], MPI_CHAR, root, c, &r[k]));
        if (k == NB / 2) {  /* blocking calls in the middle of the queue */
            prepare(m, mid, 1 % p, 99);
            CHECK_MPI(MPI_Bcast(m, (int)mid, MPI_CHAR, 1 % p, c));
            CHECK_MPI(MPI_Allreduce(&in, &sum, 1, MPI_INT, MPI_SUM, c));
        }
    }
    expect(m, mid, 99, "blocking Bcast among Ibcasts");
    CHECK(sum == p * (p + 1) / 2, "Allreduce among Ibcasts: %d", sum);
    if (polled) {
        int done = 0;
        while (!done) {
            if (me == 0) {  /* computes between polls */
                double t = MPI_Wtime();
                while (MPI_Wtime() - t < 20e-6) {}
            }
            CHECK_MPI(MPI_Testall(NB, r, &done, MPI_STATUSES_IGNORE));
        }
    } else {
        for (int k = NB - 1; k >= 0; --k) CHECK_MPI(MPI_Wait(&r[k], MPI_STATUS_IGNORE));
    }
    for (int k = 0; k < NB; ++k) {
        char what[64];
        snprintf(what, sizeof what, "Ibcast %d of %zu bytes (%s)", k, sizes[k], polled ? "Testall" : "reverse");
        expect(buf[k], sizes[k], 10 + k, what);
        free(buf[k]);
    }
    free(m);
}

static void persistent(MPI_Comm c) {
    const size_t n = 200000, n2 = 50000;
    char* a = malloc(n);
    char* b = malloc(n2);
    MPI_Request pr;
    CHECK_MPI(MPI_Bcast_init(a, (int)n, MPI_CHAR, p - 1, c, MPI_INFO_NULL, &pr));
    for (int it = 0; it < 50; ++it) {
        prepare(a, n, p - 1, 200 + it);
        prepare(b, n2, 0, 300 + it);
        MPI_Request r;
        if (it % 2) CHECK_MPI(MPI_Ibcast(b, (int)n2, MPI_CHAR, 0, c, &r));
        CHECK_MPI(MPI_Start(&pr));
        if (it % 2 == 0) CHECK_MPI(MPI_Ibcast(b, (int)n2, MPI_CHAR, 0, c, &r));
        CHECK_MPI(MPI_Wait(&pr, MPI_STATUS_IGNORE));
        CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
        expect(a, n, 200 + it, "persistent Bcast_init");
        expect(b, n2, 300 + it, "Ibcast next to Bcast_init");
    }
    CHECK_MPI(MPI_Request_free(&pr));
    free(a);
    free(b);
}

/* A persistent broadcast made before the communicator had a segment. */
static void persistent_before(void) {
    MPI_Comm c;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    const size_t n = 100000;
    char* a = malloc(n);
    MPI_Request pr;
    CHECK_MPI(MPI_Bcast_init(a, (int)n, MPI_CHAR, 0, c, MPI_INFO_NULL, &pr));
    for (int it = 0; it < 3; ++it) {
        if (it == 1) {  /* now the communicator gets its segment */
            char* b = malloc(n);
            prepare(b, n, 0, 400);
            CHECK_MPI(MPI_Bcast(b, (int)n, MPI_CHAR, 0, c));
            expect(b, n, 400, "blocking Bcast that makes the segment");
            free(b);
        }
        prepare(a, n, 0, 410 + it);
        CHECK_MPI(MPI_Start(&pr));
        CHECK_MPI(MPI_Wait(&pr, MPI_STATUS_IGNORE));
        expect(a, n, 410 + it, "Bcast_init made before the segment");
    }
    CHECK_MPI(MPI_Request_free(&pr));
    free(a);
    CHECK_MPI(MPI_Comm_free(&c));
}

/* Every other int of 2 x 60000: the root packs before the staged steps,
 * the readers unpack after them; the gaps stay untouched. */
static void strided(MPI_Comm c) {
    enum { N = 60000 };
    int* v = malloc(2 * N * sizeof(int));
    MPI_Datatype t;
    CHECK_MPI(MPI_Type_vector(N, 1, 2, MPI_INT, &t));
    CHECK_MPI(MPI_Type_commit(&t));
    for (int it = 0; it < 3; ++it) {
        const int root = it % p;
        for (int i = 0; i < 2 * N; ++i) v[i] = me == root || i % 2 ? i * 7 + it : -1;
        MPI_Request r;
        CHECK_MPI(MPI_Ibcast(v, 1, t, root, c, &r));
        CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
        for (int i = 0; i < 2 * N; ++i)
            CHECK(v[i] == i * 7 + it, "strided Ibcast from %d: element %d is %d", root, i, v[i]);
    }
    CHECK_MPI(MPI_Type_free(&t));
    free(v);
}

/* Rank p-1 has no file descriptor left when the first Ibcast of a fresh
 * communicator sets the segment up: its attach fails, and every member
 * must take the point-to-point branch (one that kept the segment would
 * wait for chunks nobody sends: a hang). */
static void no_segment(void) {
    MPI_Comm c;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    const size_t n = 300000;
    char* a = malloc(n);
    int fds[4096], nfd = 0;
    struct rlimit old;
    CHECK(getrlimit(RLIMIT_NOFILE, &old) == 0, "getrlimit");
    if (me == p - 1) {
        struct rlimit low = old;
        low.rlim_cur = 1024 < old.rlim_cur ? 1024 : old.rlim_cur;
        CHECK(setrlimit(RLIMIT_NOFILE, &low) == 0, "setrlimit");
        int fd;
        while (nfd < 4096 && (fd = dup(0)) >= 0) fds[nfd++] = fd;
    }
    for (int k = 0; k < 2; ++k) {
        prepare(a, n, k % p, 600 + k);
        MPI_Request r;
        CHECK_MPI(MPI_Ibcast(a, (int)n, MPI_CHAR, k % p, c, &r));
        CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
        expect(a, n, 600 + k, "Ibcast where a member could not attach");
    }
    for (int i = 0; i < nfd; ++i) close(fds[i]);
    if (me == p - 1) CHECK(setrlimit(RLIMIT_NOFILE, &old) == 0, "setrlimit back");
    prepare(a, n, 1, 610);
    CHECK_MPI(MPI_Bcast(a, (int)n, MPI_CHAR, 1, c));
    expect(a, n, 610, "Bcast on a communicator without segment");
    free(a);
    CHECK_MPI(MPI_Comm_free(&c));
}

/* Rank p-1 expects fewer bytes than the root sends (more chunks). */
static void short_reader(MPI_Comm c) {
    if (!mt_truncation_keeps_data()) return;
    const size_t n = 400000, shortn = 100000;
    char* a = malloc(n);
    CHECK_MPI(MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN));
    prepare(a, n, 0, 500);
    const int mine = me == p - 1 ? (int)shortn : (int)n;
    MPI_Request r;
    CHECK_MPI(MPI_Ibcast(a, mine, MPI_CHAR, 0, c, &r));
    const int rc = MPI_Wait(&r, MPI_STATUS_IGNORE);
    int cls = MPI_SUCCESS;
    MPI_Error_class(rc, &cls);
    if (me == p - 1) {
        CHECK(cls == MPI_ERR_TRUNCATE, "short Ibcast reader: class %d", cls);
        expect(a, shortn, 500, "what fits of a truncated Ibcast");
    } else {
        CHECK(rc == MPI_SUCCESS, "Ibcast with one short reader: rank %d got %d", me, rc);
        expect(a, n, 500, "Ibcast with one short reader");
    }
    /* The counters stayed in step: the next broadcasts are right. */
    for (int k = 0; k < 3; ++k) {
        prepare(a, n, k % p, 510 + k);
        CHECK_MPI(MPI_Ibcast(a, (int)n, MPI_CHAR, k % p, c, &r));
        CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
        expect(a, n, 510 + k, "Ibcast after a truncated one");
    }
    free(a);
}

int main(int argc, char** argv) {
    mt_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    first_is_nonblocking();
    MPI_Comm c;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    many(c, 0);
    many(c, 1);
    persistent(c);
    persistent_before();
    no_segment();
    strided(c);
    short_reader(c);
    CHECK_MPI(MPI_Comm_free(&c));
    if (me == 0) printf("nbc_stage: ok (%d ranks)\n", p);
    MPI_Finalize();
    return 0;
}
