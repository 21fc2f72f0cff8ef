/* SPDX-License-Identifier: MIT */
/* Accumulate semantics: ordering of accumulates from one origin to one
 * location (small and spanning many messages), concurrent same-op
 * accumulates, Get_accumulate (incl. MPI_NO_OP), Fetch_and_op and
 * Compare_and_swap. (rma_acc_ops.c: every op on every type.) Argument
 * "create": on a Win_create window (accumulates by cross-memory attach with
 * CH4LITE_RMA_CMA_MIN=1 CH4LITE_RMA_CMA_ACC=1; only MPI_NO_OP's without the
 * latter). */
#include "mpitest.h"

static int rank, size;
static int use_create; /* argument "create": a Win_create window instead of Win_allocate */

/* Allgather over point-to-point (the test needs nothing else). */
static void allgather_long(const long* mine, int n, long* all) {
    for (int p = 0; p < size; ++p)
        if (p != rank) MPI_Send(mine, n, MPI_LONG, p, 7, MPI_COMM_WORLD);
    for (int p = 0; p < size; ++p) {
        if (p == rank) memcpy(all + p * n, mine, n * sizeof(long));
        else MPI_Recv(all + p * n, n, MPI_LONG, p, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
}

static void ordering_and_atomics(void) {
    enum { BIG = 100000 };
    long* mem;
    MPI_Win win;
    mem = NULL;
    if (use_create) {
        mem = malloc((BIG + 64) * sizeof(long));
        CHECK_MPI(MPI_Win_create(mem, (BIG + 64) * sizeof(long), sizeof(long), MPI_INFO_NULL,
                                 MPI_COMM_WORLD, &win));
    } else {
        CHECK_MPI(MPI_Win_allocate((BIG + 64) * sizeof(long), sizeof(long), MPI_INFO_NULL,
                                   MPI_COMM_WORLD, &mem, &win));
    }
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    for (int i = 0; i < BIG + 64; ++i) mem[i] = 0;
    long one = 1, two = 2, three = 3, five = 5;
    long* big = malloc(BIG * sizeof(long));
    for (int i = 0; i < BIG; ++i) big[i] = i;
    CHECK_MPI(MPI_Win_fence(0, win));
    for (int rep = 0; rep < 50; ++rep) { /* ((1 + 2) * 3) -> 5 -> 6, 50 times into 50 slots */
        CHECK_MPI(MPI_Accumulate(&one, 1, MPI_LONG, right, rep, 1, MPI_LONG, MPI_REPLACE, win));
        CHECK_MPI(MPI_Accumulate(&two, 1, MPI_LONG, right, rep, 1, MPI_LONG, MPI_SUM, win));
        CHECK_MPI(MPI_Accumulate(&three, 1, MPI_LONG, right, rep, 1, MPI_LONG, MPI_PROD, win));
        CHECK_MPI(MPI_Accumulate(&five, 1, MPI_LONG, right, rep, 1, MPI_LONG, MPI_REPLACE, win));
        CHECK_MPI(MPI_Accumulate(&one, 1, MPI_LONG, right, rep, 1, MPI_LONG, MPI_SUM, win));
    }
    /* large: REPLACE then SUM then PROD over BIG elements (many messages each) */
    CHECK_MPI(MPI_Accumulate(big, BIG, MPI_LONG, right, 64, BIG, MPI_LONG, MPI_REPLACE, win));
    CHECK_MPI(MPI_Accumulate(big, BIG, MPI_LONG, right, 64, BIG, MPI_LONG, MPI_SUM, win));
    CHECK_MPI(MPI_Accumulate(&three, 1, MPI_LONG, right, 64 + BIG - 1, 1, MPI_LONG, MPI_PROD, win));
    CHECK_MPI(MPI_Win_fence(0, win));
    for (int rep = 0; rep < 50; ++rep) CHECK(mem[rep] == 6, "ordered accumulate [%d] = %ld", rep, mem[rep]);
    for (int i = 0; i < BIG - 1; ++i) CHECK(mem[64 + i] == 2L * i, "large ordered acc [%d] = %ld", i, mem[64 + i]);
    CHECK(mem[64 + BIG - 1] == 6L * (BIG - 1), "large ordered acc, last");

    /* concurrent: every rank adds to every rank's counters 0..49, 20 times */
    CHECK_MPI(MPI_Win_fence(0, win));
    for (int i = 0; i < 50; ++i) mem[i] = 0;
    CHECK_MPI(MPI_Win_fence(0, win));
    for (int rep = 0; rep < 20; ++rep)
        for (int t = 0; t < size; ++t)
            CHECK_MPI(MPI_Accumulate(big, 50, MPI_LONG, t, 0, 50, MPI_LONG, MPI_SUM, win));
    CHECK_MPI(MPI_Win_fence(0, win));
    for (int i = 0; i < 50; ++i) CHECK(mem[i] == 20L * size * i, "concurrent SUM [%d] = %ld", i, mem[i]);

    /* fetch_and_op: a ticket counter on rank 0, every rank takes 10 tickets in
     * separate epochs; all tickets distinct */
    CHECK_MPI(MPI_Win_fence(0, win));
    mem[0] = 0;
    CHECK_MPI(MPI_Win_fence(0, win));
    long tickets[10];
    for (int k = 0; k < 10; ++k) {
        CHECK_MPI(MPI_Fetch_and_op(&one, &tickets[k], MPI_LONG, 0, 0, MPI_SUM, win));
        CHECK_MPI(MPI_Win_fence(0, win));
    }
    long* all = malloc(10 * size * sizeof(long));
    allgather_long(tickets, 10, all);
    char* seen = calloc(10 * size, 1);
    for (int i = 0; i < 10 * size; ++i) {
        CHECK(all[i] >= 0 && all[i] < 10 * size && !seen[all[i]], "ticket %ld repeated or out of range", all[i]);
        seen[all[i]] = 1;
    }
    if (rank == 0) CHECK(mem[0] == 10L * size, "ticket counter = %ld", mem[0]);
    /* get_accumulate with NO_OP is an atomic read */
    long rd = -1;
    CHECK_MPI(MPI_Get_accumulate(NULL, 0, MPI_DATATYPE_NULL, &rd, 1, MPI_LONG, 0, 0, 1, MPI_LONG, MPI_NO_OP, win));
    CHECK_MPI(MPI_Win_fence(0, win));
    CHECK(rd == 10L * size, "NO_OP read = %ld", rd);

    /* compare_and_swap: everybody tries to claim slot 1 of rank 0 in one epoch;
     * exactly one succeeds */
    if (rank == 0) mem[1] = -1;
    CHECK_MPI(MPI_Win_fence(0, win));
    long me = rank, expect = -1, prev = 77;
    CHECK_MPI(MPI_Compare_and_swap(&me, &expect, &prev, MPI_LONG, 0, 1, win));
    CHECK_MPI(MPI_Win_fence(0, win));
    long won = prev == -1, wonall[64], winners = 0;
    allgather_long(&won, 1, wonall);
    for (int p = 0; p < size; ++p) winners += wonall[p];
    CHECK(winners == 1, "CAS winners = %ld", winners);
    long owner = -2;
    CHECK_MPI(MPI_Get(&owner, 1, MPI_LONG, 0, 1, 1, MPI_LONG, win));
    CHECK_MPI(MPI_Win_fence(0, win));
    if (won) CHECK(owner == rank, "CAS owner = %ld", owner);
    if (!won) CHECK(prev == owner, "losing CAS returned %ld, owner %ld", prev, owner);
    CHECK_MPI(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
    CHECK_MPI(MPI_Win_free(&win));
    if (use_create) free(mem);
    free(big);
    free(all);
    free(seen);
}

int main(int argc, char** argv) {
    mt_init(&argc, &argv);
    use_create = argc > 1 && strcmp(argv[1], "create") == 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    ordering_and_atomics();
    if (rank == 0) printf("rma_acc: OK\n");
    MPI_Finalize();
    return 0;
}
