/* SPDX-License-Identifier: MIT */
/* Shared by the intercommunicator tests: world split into two uneven
 * groups, A = world ranks [0, k) and B = [k, np) with k = max(1, np / 3),
 * joined by MPI_Intercomm_create. */
#ifndef INTER_COMMON_H
#define INTER_COMMON_H
#include "mpitest.h"

static int me, np, k, in_a;

static void inter_setup(void) {
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    CHECK(np >= 2, "needs at least 2 ranks");
    k = np / 3 > 1 ? np / 3 : 1;
    in_a = me < k;
}

/* The intercommunicator between A and B, and my local communicator. */
static MPI_Comm make_inter(MPI_Comm* local, int tag) {
    MPI_Comm ic;
    CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, in_a, me, local));
    CHECK_MPI(MPI_Intercomm_create(*local, 0, MPI_COMM_WORLD, in_a ? k : 0, tag, &ic));
    return ic;
}

/* world rank of remote rank r / local rank r */
static int remote_world(int r) { return in_a ? k + r : r; }
static int local_world(int r) { return in_a ? r : k + r; }
static int remote_n(void) { return in_a ? np - k : k; }
static int local_n(void) { return in_a ? k : np - k; }

#endif
