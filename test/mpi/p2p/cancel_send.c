/* SPDX-License-Identifier: MIT */
/* Cancelling sends (MPI-4.1 §3.8.4; docs/p2p.md, "Cancel"), ranks 0 -> 1:
 *   - an unmatched rendezvous MPI_Isend, an unmatched MPI_Issend, and an
 *     unmatched persistent rendezvous send are cancelled: MPI_Wait returns,
 *     MPI_Test_cancelled is true, and the receiver never sees the message
 *     (MPI_Iprobe finds nothing; a later message with the same signature
 *     goes to the next receive);
 *   - a send whose receive was posted first, and an eager send, are not
 *     cancelled: they complete normally and their data arrives intact.
 * Where the netmod matches tagged messages itself (shm off on a full
 * netmod), a queued message cannot be withdrawn: there the unmatched cases
 * are left out (they would wait for a receive forever) and the rest run. */
#include "mpitest.h"

enum { BIG = 1 << 18 }; /* bytes: a rendezvous everywhere */

static int device_matches(void) {
#ifdef CH4LITE
    char v[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0;
    MPI_Get_library_version(v, &len);
    return strstr(v, "matched in the device") != NULL || strstr(v, "active-message path") != NULL;
#else
    return 1;
#endif
}

static void fill(unsigned char* b, int n, int seed) {
    for (int i = 0; i < n; ++i) b[i] = (unsigned char)(i * 7 + seed);
}
static int same(const unsigned char* b, int n, int seed) {
    for (int i = 0; i < n; ++i)
        if (b[i] != (unsigned char)(i * 7 + seed)) return 0;
    return 1;
}

/* Rank 0: cancel request r, wait, and check the cancelled flag. */
static void cancel_and_check(MPI_Request* r, int want, const char* what) {
    MPI_Status st;
    int flag = -1;
    CHECK_MPI(MPI_Cancel(r));
    CHECK_MPI(MPI_Wait(r, &st));
    CHECK_MPI(MPI_Test_cancelled(&st, &flag));
    CHECK(flag == want, "%s: MPI_Test_cancelled says %d, want %d", what, flag, want);
}

/* Rank 1: no message with this tag from rank 0 is queued. */
static void none_queued(int tag) {
    int flag = 0;
    for (int i = 0; i < 100 && !flag; ++i) CHECK_MPI(MPI_Iprobe(0, tag, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
    CHECK(!flag, "a cancelled message with tag %d reached the receiver", tag);
}

int main(int argc, char** argv) {
    mt_init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    const int withdraw = device_matches();
    unsigned char* a = malloc(BIG);
    unsigned char* b = malloc(BIG);
    CHECK(a && b, "malloc");
    MPI_Request r;
    MPI_Status st;
    int flag = 0;

    if (withdraw) {
        /* unmatched rendezvous and synchronous sends: withdrawn */
        if (rank == 0) {
            fill(a, BIG, 1);
            CHECK_MPI(MPI_Isend(a, BIG, MPI_BYTE, 1, 900, MPI_COMM_WORLD, &r));
            cancel_and_check(&r, 1, "unmatched rendezvous send");
            int x = 5;
            CHECK_MPI(MPI_Issend(&x, 1, MPI_INT, 1, 901, MPI_COMM_WORLD, &r));
            cancel_and_check(&r, 1, "unmatched MPI_Issend");
            MPI_Request p;
            CHECK_MPI(MPI_Send_init(a, BIG, MPI_BYTE, 1, 905, MPI_COMM_WORLD, &p));
            CHECK_MPI(MPI_Start(&p));
            cancel_and_check(&p, 1, "unmatched persistent send");
            CHECK(p != MPI_REQUEST_NULL, "persistent request freed by MPI_Wait");
            CHECK_MPI(MPI_Request_free(&p));
        }
        CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
        if (rank == 1) {
            none_queued(900);
            none_queued(901);
            none_queued(905);
        }
        CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
        /* the next message with the cancelled one's signature is received */
        if (rank == 0) {
            fill(a, BIG, 2);
            CHECK_MPI(MPI_Send(a, BIG, MPI_BYTE, 1, 900, MPI_COMM_WORLD));
        } else if (rank == 1) {
            CHECK_MPI(MPI_Recv(b, BIG, MPI_BYTE, 0, 900, MPI_COMM_WORLD, &st));
            CHECK(same(b, BIG, 2), "the message after a cancelled one has the wrong data");
        }
    } else if (rank == 0) {
        printf("cancel_send: the netmod matches here; unmatched sends cannot be withdrawn (left out)\n");
    }

    /* a send whose receive was posted first: matched, not cancelled */
    if (rank == 1) CHECK_MPI(MPI_Irecv(b, BIG, MPI_BYTE, 0, 902, MPI_COMM_WORLD, &r));
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0) {
        fill(a, BIG, 3);
        CHECK_MPI(MPI_Isend(a, BIG, MPI_BYTE, 1, 902, MPI_COMM_WORLD, &r));
        cancel_and_check(&r, 0, "send to a posted receive");
    } else if (rank == 1) {
        CHECK_MPI(MPI_Wait(&r, &st));
        CHECK_MPI(MPI_Test_cancelled(&st, &flag));
        CHECK(!flag && same(b, BIG, 3), "posted receive: cancelled %d or wrong data", flag);
    }
    /* an eager send is complete by itself: not cancelled, delivered */
    if (rank == 0) {
        int x = 77;
        CHECK_MPI(MPI_Isend(&x, 1, MPI_INT, 1, 904, MPI_COMM_WORLD, &r));
        cancel_and_check(&r, 0, "eager send");
    }
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 1) {
        int x = 0;
        CHECK_MPI(MPI_Recv(&x, 1, MPI_INT, 0, 904, MPI_COMM_WORLD, &st));
        CHECK(x == 77, "eager message after a failed cancel: %d", x);
    }
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    free(a);
    free(b);
    if (rank == 0) printf("cancel_send: OK\n");
    MPI_Finalize();
    return 0;
}
