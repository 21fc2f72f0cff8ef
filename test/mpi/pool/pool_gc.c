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
 *   unexpected simple                         (CH4LITE_UNEXPECTED_POOL_MAX=64)
 *     40 messages arrive on a communicator the receiver frees without
 *     receiving them, then 40 on MPI_COMM_WORLD: the pool gives back the
 *     freed communicator's (stale) ones instead of ending the job.
 * Rank 0 prints what each phase recovered. */
#include "mpitest.h"

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

int main(int argc, char** argv) {
    mt_init(&argc, &argv);
    CHECK(argc == 3, "usage: pool_gc requests|unexpected simple|nonblocking|blocking");
    const char* part = argv[1];
    const char* mode = argv[2];
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    if (strcmp(part, "requests") == 0) {
        /* Connect first (a provider may say "again" to the first sends while
         * it connects: they would wait in the device's queue instead). */
        int x = 0;
        if (mt_rank == 0) {
            CHECK_MPI(MPI_Send(&x, 1, MPI_INT, 1, 1, MPI_COMM_WORLD));
            CHECK_MPI(MPI_Recv(&x, 1, MPI_INT, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        } else if (mt_rank == 1) {
            CHECK_MPI(MPI_Recv(&x, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            CHECK_MPI(MPI_Send(&x, 1, MPI_INT, 0, 1, MPI_COMM_WORLD));
        }
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
            printf("pool_gc: unexpected, %s collection: %d stale messages given back for %d live ones\n",
                   mode, STALE, LIVE);
        }
    }
    MPI_Finalize();
    if (mt_rank == 0) printf("pool_gc: OK\n");
    return 0;
}
