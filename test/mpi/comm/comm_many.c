/* SPDX-License-Identifier: MIT */
/* Context ids: thousands of communicators created and freed (ids are
 * recycled), more than 512 alive at once (past the first allocation
 * window), communicators freed with a receive still pending (the receives
 * complete, also out of order, and their ids are not reused meanwhile),
 * and splits into many colors. Messages never cross between
 * communicators. */
#include "mpitest.h"

int main(int argc, char** argv) {
    mt_init(&argc, &argv);
    int me, np;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);

    /* 1. create / use / free, many times */
    for (int k = 0; k < 2000; ++k) {
        MPI_Comm d;
        CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &d));
        if (k % 100 == 0) {
            int x = k, s = 0;
            CHECK_MPI(MPI_Allreduce(&x, &s, 1, MPI_INT, MPI_SUM, d));
            CHECK(s == k * np, "allreduce on dup %d", k);
        }
        CHECK_MPI(MPI_Comm_free(&d));
    }
    /* 2. many alive at once: 600 > the 512 ids of the first window */
    enum { LIVE = 600 };
    static MPI_Comm live[LIVE];
    for (int k = 0; k < LIVE; ++k) CHECK_MPI(MPI_Comm_dup(k % 2 ? MPI_COMM_WORLD : MPI_COMM_SELF, &live[k]));
    for (int k = 0; k < LIVE; k += 37) {
        /* each one routes its own traffic: ring on the world dups */
        if (k % 2 == 0) continue;
        int got = -1;
        CHECK_MPI(MPI_Sendrecv(&k, 1, MPI_INT, (me + 1) % np, 0, &got, 1, MPI_INT, (me - 1 + np) % np, 0,
                               live[k], MPI_STATUS_IGNORE));
        CHECK(got == k, "ring on live comm %d got %d", k, got);
    }
    for (int k = 0; k < LIVE; ++k) CHECK_MPI(MPI_Comm_free(&live[k]));

    /* 3. free with a receive pending */
    MPI_Comm d;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &d));
    MPI_Request r = MPI_REQUEST_NULL;
    int got = -1, payload = 4242;
    if (me == 0) CHECK_MPI(MPI_Irecv(&got, 1, MPI_INT, np - 1, 9, d, &r));
    MPI_Comm keep = d;
    if (me == 0) CHECK_MPI(MPI_Comm_free(&d)); /* rank 0 frees first, receive pending */
    /* New communicators now must not take the pending one's id on rank 0. */
    MPI_Comm fresh[4];
    for (int k = 0; k < 4; ++k) CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &fresh[k]));
    if (me == np - 1) {
        int decoy = -1;
        for (int k = 0; k < 4; ++k) CHECK_MPI(MPI_Send(&decoy, 1, MPI_INT, 0, 9, fresh[k]));
        CHECK_MPI(MPI_Send(&payload, 1, MPI_INT, 0, 9, keep));
    }
    if (me == 0) {
        CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
        CHECK(got == payload, "pending receive on a freed communicator got %d", got);
        for (int k = 0; k < 4; ++k) {
            int x = 0;
            CHECK_MPI(MPI_Recv(&x, 1, MPI_INT, np - 1, 9, fresh[k], MPI_STATUS_IGNORE));
            CHECK(x == -1, "decoy on fresh %d got %d", k, x);
        }
    }
    if (me != 0) CHECK_MPI(MPI_Comm_free(&d));
    for (int k = 0; k < 4; ++k) CHECK_MPI(MPI_Comm_free(&fresh[k]));

    /* 3b. three freed with receives pending, completed out of order, while
     * communicators come and go: each receive gets its own message. */
    enum { NP = 3 };
    MPI_Comm ds[NP], ks[NP];
    MPI_Request rs[NP];
    int gs[NP];
    for (int k = 0; k < NP; ++k) {
        CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &ds[k]));
        ks[k] = ds[k];
        gs[k] = -1;
        rs[k] = MPI_REQUEST_NULL;
        if (me == 0) CHECK_MPI(MPI_Irecv(&gs[k], 1, MPI_INT, np - 1, 9, ds[k], &rs[k]));
    }
    if (me == 0)
        for (int k = 0; k < NP; ++k) CHECK_MPI(MPI_Comm_free(&ds[k]));
    static const int order[NP] = {1, 2, 0};
    for (int j = 0; j < NP; ++j) {
        const int k = order[j];
        MPI_Comm f;
        CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &f));
        if (me == np - 1) {
            const int decoy = -1, v = payload + k;
            CHECK_MPI(MPI_Send(&decoy, 1, MPI_INT, 0, 9, f));
            CHECK_MPI(MPI_Send(&v, 1, MPI_INT, 0, 9, ks[k]));
        }
        if (me == 0) {
            int x = 0;
            CHECK_MPI(MPI_Wait(&rs[k], MPI_STATUS_IGNORE));
            CHECK(gs[k] == payload + k, "pending receive %d on a freed communicator got %d", k, gs[k]);
            CHECK_MPI(MPI_Recv(&x, 1, MPI_INT, np - 1, 9, f, MPI_STATUS_IGNORE));
            CHECK(x == -1, "decoy on fresh communicator %d got %d", j, x);
        }
        CHECK_MPI(MPI_Comm_free(&f));
    }
    if (me != 0)
        for (int k = 0; k < NP; ++k) CHECK_MPI(MPI_Comm_free(&ds[k]));

    /* 4. split into a color per rank and back, repeatedly */
    for (int k = 0; k < 50; ++k) {
        MPI_Comm s;
        CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, (me + k) % np, me, &s));
        int sz;
        MPI_Comm_size(s, &sz);
        CHECK(sz == 1, "one rank per color");
        int v = 1, sum = 0;
        CHECK_MPI(MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, s));
        CHECK(sum == 1, "allreduce on a singleton split");
        CHECK_MPI(MPI_Comm_free(&s));
    }
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    MPI_Finalize();
    return 0;
}
