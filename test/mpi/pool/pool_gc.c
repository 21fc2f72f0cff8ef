/* SPDX-License-Identifier: MIT */
/* Garbage collection of the device's pools, driven to their maximum
 * (device/pool_gc.cpp). argv[1] names the part, argv[2] the collection mode
 * the test runs with (CH4LITE_<POOL>_POOL_GC caps it):
 *   requests <simple|nonblocking|blocking>   (CH4LITE_REQUEST_POOL_MAX=64)
 *     A: 64 eager sends released with MPI_Request_free fill the pool; one
 *        more MPI_Isend. Simple collection (nothing cached) cannot give
 *        one back (MPI_ERR_NO_MEM); blocking waits until one completes;
 *        non-blocking polls what completed already (reported).
 *     B: the same with 256 KiB messages whose receives are posted: they
 *        complete only after round trips. simple fails; blocking waits
 *        until one returns; non-blocking (a few polls) is reported only.
 *   unexpected <mode>                         (CH4LITE_UNEXPECTED_POOL_MAX=64)
 *     40 messages arrive on a communicator the receiver frees without
 *     receiving them, then 40 on MPI_COMM_WORLD: the pool gives back the
 *     freed communicator's (stale) ones instead of ending the job, at the
 *     simple collection whatever the mode allows (CH4LITE_STATS: rescued
 *     by simple, no aggressive collection run).
 *   unexpected_live <mode>
 *     70 live messages queue unexpected at rank 0: no mode can give one
 *     back, and the job ends with a message (the pool's documented limit;
 *     the test expects that message).
 *   pack <simple|nonblocking|blocking>       (CH4LITE_PACK_POOL_MAX=8)
 *     Noncontiguous sends on the native tagged path, each packed into a
 *     pack buffer that its request holds until it is freed; a ninth send
 *     with the heap fallback refused (this program's aligned_alloc), so
 *     the pool has to hand one back or the send fails (MPI_ERR_NO_MEM):
 *     A: eight sends complete but not waited for: every mode gives back
 *        their packed copies at the simple collection.
 *     B: eight synchronous sends the receiver matches only later (after
 *        the ninth attempt; blocking: after 300 ms): simple and non-blocking
 *        cannot give one back (MPI_ERR_NO_MEM); blocking progresses until
 *        one completes.
 *     Every message is received and checked; rank 0 checks its pool's
 *     collection counts (CH4LITE_STATS=1, read back from its stderr).
 * Rank 0 prints what each phase recovered. */
#include <stdint.h>
#include <unistd.h>

#include "mpitest.h"

/* The heap fallback of the pack-buffer pool, refused while `refuse_heap`:
 * the staging buffers' aligned_alloc(64, n) calls (device/typed.cpp). */
static volatile int refuse_heap;
void* aligned_alloc(size_t align, size_t n) {
    void* p = NULL;
    if (refuse_heap && align == 64) return NULL;
    return posix_memalign(&p, align < sizeof(void*) ? sizeof(void*) : align, n) ? NULL : p;
}

/* CH4LITE_STATS=1 prints each pool's counts at MPI_Finalize on stderr:
 * capture them (a temporary file in place of fd 2), pass them on, and
 * parse the line of pool `name`. */
struct pool_counts {
    int found;
    unsigned long long failures, runs[3], rescues[3];
};
static FILE* cap_file;
static int cap_saved = -1;
static void stats_capture(void) {
    fflush(stderr);
    cap_file = tmpfile();
    CHECK(cap_file != NULL, "tmpfile failed");
    cap_saved = dup(2);
    CHECK(cap_saved >= 0 && dup2(fileno(cap_file), 2) >= 0, "cannot redirect stderr");
}
static struct pool_counts stats_release(const char* name) {
    struct pool_counts c;
    memset(&c, 0, sizeof c);
    char line[512], pool[32];
    unsigned maxc;
    int rank;
    fflush(stderr);
    dup2(cap_saved, 2);
    close(cap_saved);
    rewind(cap_file);
    while (fgets(line, sizeof line, cap_file)) {
        struct pool_counts t;
        fputs(line, stderr);
        if (sscanf(line,
                   "ch4lite: stats rank %d: pool %31[A-Z]: max %u, failures %llu, gc runs "
                   "%llu/%llu/%llu, rescues %llu/%llu/%llu",
                   &rank, pool, &maxc, &t.failures, &t.runs[0], &t.runs[1], &t.runs[2],
                   &t.rescues[0], &t.rescues[1], &t.rescues[2]) == 10 &&
            strcmp(pool, name) == 0) {
            c = t;
            c.found = 1;
        }
    }
    fclose(cap_file);
    return c;
}

enum { MAX = 64 };

static void settle(int iters) {
    /* progress without allocating a request */
    int flag;
    for (int i = 0; i < iters; ++i)
        MPI_Iprobe(MPI_ANY_SOURCE, 999999, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
}

/* An MPI call the pool may refuse while released requests are in flight:
 * the application polls and tries again. */
#define RETRY(call)                                                          \
    do {                                                                     \
        int rc_;                                                             \
        while ((rc_ = (call)) != MPI_SUCCESS) {                              \
            int cls_;                                                        \
            MPI_Error_class(rc_, &cls_);                                     \
            CHECK(cls_ == MPI_ERR_NO_MEM, "%s: class %d", #call, cls_);      \
            settle(100);                                                     \
        }                                                                    \
    } while (0)

/* Fills the pool with MAX released sends of n bytes, then tries one more;
 * returns 1 if it went through. Rank 1 receives whatever was sent. */
static int fill_and_try(size_t n, int tag) {
    static char* buf;
    if (!buf) buf = malloc(256 * 1024);
    CHECK(buf != NULL, "out of memory");
    int ok = 0;
    if (mt_rank == 0) {
        MPI_Request r;
        for (int i = 0; i < MAX; ++i) {
            CHECK_MPI(MPI_Isend(buf, (int)n, MPI_BYTE, 1, tag, MPI_COMM_WORLD, &r));
            CHECK_MPI(MPI_Request_free(&r));
        }
        const int rc = MPI_Isend(buf, (int)n, MPI_BYTE, 1, tag, MPI_COMM_WORLD, &r);
        ok = rc == MPI_SUCCESS;
        if (ok) {
            CHECK_MPI(MPI_Request_free(&r));
        } else {
            int cls;
            MPI_Error_class(rc, &cls);
            CHECK(cls == MPI_ERR_NO_MEM, "class %d, expected MPI_ERR_NO_MEM", cls);
        }
        int count = MAX + ok;
        RETRY(MPI_Send(&count, 1, MPI_INT, 1, tag + 1, MPI_COMM_WORLD));
        /* Rank 1 got everything: wait for its word (point-to-point, which
         * fails or succeeds whole; a collective refused half-way would
         * leave the ranks out of step). */
        RETRY(MPI_Recv(&count, 1, MPI_INT, 1, tag + 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    } else if (mt_rank == 1) {
        /* Most receives posted up front (the pool here has the same limit),
         * the rest one by one. */
        enum { POSTED = MAX - 4 };
        MPI_Request rq[POSTED];
        for (int i = 0; i < POSTED; ++i)
            CHECK_MPI(MPI_Irecv(buf, (int)n, MPI_BYTE, 0, tag, MPI_COMM_WORLD, &rq[i]));
        int count = 0;
        CHECK_MPI(MPI_Recv(&count, 1, MPI_INT, 0, tag + 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK_MPI(MPI_Waitall(POSTED, rq, MPI_STATUSES_IGNORE));
        for (int i = POSTED; i < count; ++i)
            CHECK_MPI(MPI_Recv(buf, (int)n, MPI_BYTE, 0, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK_MPI(MPI_Send(&count, 1, MPI_INT, 0, tag + 2, MPI_COMM_WORLD));
    }
    return ok;
}

/* ---- pack: the pack-buffer pool (CH4LITE_PACK_POOL_MAX=8) */
enum { PK = 8, PN = 1024 };  /* sends that fill the pool; ints per message */
static int pk_a_ok, pk_b_ok;

/* The k-th message of a phase: PN ints at stride 2 (packed: 4 KiB). */
static void pk_fill(int* src, int phase, int k) {
    for (int j = 0; j < 2 * PN; ++j) src[j] = (j & 1) ? -1 : phase * 1000000 + k * 10000 + j / 2;
}
static void pk_check(const int* got, int phase, int k) {
    for (int j = 0; j < PN; ++j)
        CHECK(got[j] == phase * 1000000 + k * 10000 + j,
              "phase %d message %d: element %d is %d", phase, k, j, got[j]);
}

/* Rank 0: PK sends of `vec` held (sync or not), then after `prepare` one
 * more with the heap refused; returns whether it went through. Rank 1
 * receives them all (contiguous ints: the same signature), checking each. */
static int pk_phase(MPI_Datatype vec, int phase, int sync, int delay_ms) {
    static int src[PK + 1][2 * PN];
    static int dst[PK + 1][PN];
    const int tag = 30 + 10 * phase;
    int ok = 0;
    if (mt_rank == 0) {
        MPI_Request r[PK + 1];
        for (int k = 0; k <= PK; ++k) pk_fill(src[k], phase, k);
        for (int k = 0; k < PK; ++k) {
            if (sync)
                CHECK_MPI(MPI_Issend(src[k], 1, vec, 1, tag, MPI_COMM_WORLD, &r[k]));
            else
                CHECK_MPI(MPI_Isend(src[k], 1, vec, 1, tag, MPI_COMM_WORLD, &r[k]));
        }
        if (!sync) {
            /* complete, not freed: MPI_Request_get_status keeps them */
            for (int k = 0; k < PK; ++k) {
                int done = 0;
                while (!done) CHECK_MPI(MPI_Request_get_status(r[k], &done, MPI_STATUS_IGNORE));
            }
        }
        refuse_heap = 1;
        const int rc = MPI_Isend(src[PK], 1, vec, 1, tag, MPI_COMM_WORLD, &r[PK]);
        refuse_heap = 0;
        ok = rc == MPI_SUCCESS;
        if (!ok) {
            int cls;
            MPI_Error_class(rc, &cls);
            CHECK(cls == MPI_ERR_NO_MEM, "phase %d: class %d, expected MPI_ERR_NO_MEM", phase, cls);
        }
        int count = PK + ok;
        CHECK_MPI(MPI_Send(&count, 1, MPI_INT, 1, tag + 1, MPI_COMM_WORLD));
        CHECK_MPI(MPI_Waitall(count, r, MPI_STATUSES_IGNORE));
    } else if (mt_rank == 1) {
        MPI_Request r[PK];
        int count = 0;
        /* delay_ms < 0: match the sends only after rank 0's ninth attempt
         * (its count); > 0: after that long (rank 0 may be waiting) */
        if (delay_ms < 0)
            CHECK_MPI(MPI_Recv(&count, 1, MPI_INT, 0, tag + 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        if (delay_ms > 0) usleep((useconds_t)delay_ms * 1000);
        for (int k = 0; k < PK; ++k)
            CHECK_MPI(MPI_Irecv(dst[k], PN, MPI_INT, 0, tag, MPI_COMM_WORLD, &r[k]));
        CHECK_MPI(MPI_Waitall(PK, r, MPI_STATUSES_IGNORE));
        if (delay_ms >= 0)
            CHECK_MPI(MPI_Recv(&count, 1, MPI_INT, 0, tag + 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        if (count > PK)
            CHECK_MPI(MPI_Recv(dst[PK], PN, MPI_INT, 0, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        for (int k = 0; k < count; ++k) pk_check(dst[k], phase, k);
    }
    return ok;
}

/* Ranks 0 and 1 exchange one message first: a provider may say "again" to
 * the first sends while it connects, and they would then wait in the
 * device's queue instead of meeting the pool. */
static void connect_pair(void) {
    int x = 0;
    if (mt_rank == 0) {
        CHECK_MPI(MPI_Send(&x, 1, MPI_INT, 1, 1, MPI_COMM_WORLD));
        CHECK_MPI(MPI_Recv(&x, 1, MPI_INT, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    } else if (mt_rank == 1) {
        CHECK_MPI(MPI_Recv(&x, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK_MPI(MPI_Send(&x, 1, MPI_INT, 0, 1, MPI_COMM_WORLD));
    }
}

static void pack_part(const char* mode) {
    MPI_Datatype vec;
    CHECK_MPI(MPI_Type_vector(PN, 1, 2, MPI_INT, &vec));
    CHECK_MPI(MPI_Type_commit(&vec));
    connect_pair();
    pk_a_ok = pk_phase(vec, 0, 0, 0);
    /* blocking has to see the receiver act while it waits; the others
     * must not be able to give anything back: the receiver waits for them */
    pk_b_ok = pk_phase(vec, 1, 1, strcmp(mode, "blocking") == 0 ? 300 : -1);
    CHECK_MPI(MPI_Type_free(&vec));
    if (mt_rank == 0) {
        printf("pool_gc: pack, %s collection: completed sends' copies %s, in-flight sends' %s\n",
               mode, pk_a_ok ? "recovered" : "not recovered",
               pk_b_ok ? "recovered" : "not recovered");
        CHECK(pk_a_ok, "the packed copies of completed sends were not given back");
        if (strcmp(mode, "blocking") != 0)
            CHECK(!pk_b_ok, "%s collection gave back an in-flight send's buffer", mode);
        else
            CHECK(pk_b_ok, "blocking collection did not wait for a send");
    }
}

/* Rank 0, after MPI_Finalize: the PACK pool's counts agree. */
static void pack_check_stats(const char* mode) {
    const struct pool_counts c = stats_release("PACK");
    CHECK(c.found, "no PACK pool line in the stats (CH4LITE_STATS=1 not set?)");
    printf("pool_gc: pack, %s collection: rescued by simple/non-blocking/blocking "
           "%llu/%llu/%llu, runs %llu/%llu/%llu, failures %llu\n",
           mode, c.rescues[0], c.rescues[1], c.rescues[2], c.runs[0], c.runs[1], c.runs[2],
           c.failures);
    CHECK(c.rescues[0] >= 1, "no rescue by the simple collection");
    if (strcmp(mode, "simple") == 0)
        CHECK(c.runs[1] == 0 && c.runs[2] == 0 && c.failures >= 1,
              "simple: runs %llu/%llu, failures %llu", c.runs[1], c.runs[2], c.failures);
    else if (strcmp(mode, "nonblocking") == 0)
        CHECK(c.runs[1] >= 1 && c.runs[2] == 0, "nonblocking: runs %llu/%llu", c.runs[1], c.runs[2]);
    else
        CHECK(c.rescues[1] + c.rescues[2] >= 1, "blocking: no aggressive rescue");
}

int main(int argc, char** argv) {
    mt_init(&argc, &argv);
    CHECK(argc == 3, "usage: pool_gc requests|unexpected|unexpected_live|pack simple|nonblocking|blocking");
    const char* part = argv[1];
    const char* mode = argv[2];
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    if (strcmp(part, "requests") == 0) {
        connect_pair();
        const int a = fill_and_try(1024, 10);
        const int b = fill_and_try(256 * 1024, 20);
        if (mt_rank == 0)
            printf("pool_gc: requests, %s collection: eager sends %s, rendezvous sends %s\n", mode,
                   a ? "recovered" : "not recovered", b ? "recovered" : "not recovered");
        /* non-blocking polls what is there: the result depends on how far
         * the provider got; reported, not required. */
        if (mt_rank != 0) {
            /* only rank 0 filled its pool */
        } else if (strcmp(mode, "simple") == 0) {
            CHECK(!a && !b, "simple collection gave back a request (%d %d)", a, b);
        } else if (strcmp(mode, "blocking") == 0) {
            CHECK(a && b, "blocking collection did not wait for a send (%d %d)", a, b);
        }
    } else if (strcmp(part, "pack") == 0) {
        pack_part(mode);
    } else if (strcmp(part, "unexpected_live") == 0) {
        /* Only live messages: nothing to give back in any mode. */
        enum { N = 70 };
        int v = 0;
        if (mt_rank == 1)
            for (int i = 0; i < N; ++i) CHECK_MPI(MPI_Send(&i, 1, MPI_INT, 0, i, MPI_COMM_WORLD));
        if (mt_rank == 0) {
            MPI_Status st;
            CHECK_MPI(MPI_Probe(1, N - 1, MPI_COMM_WORLD, &st));
            CHECK(0, "%d unexpected messages queued in a pool of 64", N);
        }
        (void)v;
    } else {
        /* unexpected: messages of a freed communicator are stale */
        MPI_Comm dup;
        CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
        enum { STALE = 40, LIVE = 40 };
        int v = 0;
        if (mt_rank == 1)
            for (int i = 0; i < STALE; ++i) CHECK_MPI(MPI_Send(&i, 1, MPI_INT, 0, i, dup));
        CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
        if (mt_rank == 0) {
            /* all of them queued unexpected here before the communicator goes */
            MPI_Status st;
            CHECK_MPI(MPI_Probe(1, STALE - 1, dup, &st));
        }
        CHECK_MPI(MPI_Comm_free(&dup));
        CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));  /* freed everywhere first */
        if (mt_rank == 1)
            for (int i = 0; i < LIVE; ++i) CHECK_MPI(MPI_Send(&i, 1, MPI_INT, 0, 100 + i, MPI_COMM_WORLD));
        if (mt_rank == 0) {
            MPI_Status st;
            CHECK_MPI(MPI_Probe(1, 100 + LIVE - 1, MPI_COMM_WORLD, &st));  /* all queued */
            for (int i = 0; i < LIVE; ++i) {
                CHECK_MPI(MPI_Recv(&v, 1, MPI_INT, 1, 100 + i, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
                CHECK(v == i, "message %d is %d", i, v);
            }
        }
        if (mt_rank == 0) stats_capture();
        MPI_Finalize();
        if (mt_rank == 0) {
            const struct pool_counts c = stats_release("UNEXPECTED");
            CHECK(c.found, "no UNEXPECTED pool line in the stats (CH4LITE_STATS=1 not set?)");
            printf("pool_gc: unexpected, %s collection: %d stale messages given back for %d live "
                   "ones; rescued by simple/non-blocking/blocking %llu/%llu/%llu, runs %llu/%llu/%llu\n",
                   mode, STALE, LIVE, c.rescues[0], c.rescues[1], c.rescues[2], c.runs[0],
                   c.runs[1], c.runs[2]);
            /* the stale messages are given back at the simple collection,
             * and escalation stops there */
            CHECK(c.rescues[0] >= 1, "the simple collection gave no stale message back");
            CHECK(c.runs[1] == 0 && c.runs[2] == 0 && c.failures == 0,
                  "collection went past simple (runs %llu/%llu, failures %llu)", c.runs[1],
                  c.runs[2], c.failures);
            printf("pool_gc: OK\n");
        }
        return 0;
    }
    if (strcmp(part, "pack") == 0 && mt_rank == 0) stats_capture();
    MPI_Finalize();
    if (strcmp(part, "pack") == 0 && mt_rank == 0) pack_check_stats(mode);
    if (mt_rank == 0) printf("pool_gc: OK\n");
    return 0;
}
