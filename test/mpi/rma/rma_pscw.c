/* SPDX-License-Identifier: MIT */
/* General active-target synchronization (MPI_Win_post / start / complete /
 * wait / test; docs/rma-passive.md, "PSCW"), Win_allocate and Win_create:
 *   - a ring: every rank exposes its window to its left neighbour and
 *     accesses its right one, puts 8 B .. 256 KiB and checks what the left
 *     one put, many rounds, waiting with Win_wait or polling Win_test;
 *   - a star: rank 0 exposes to everybody, the others accumulate and get
 *     (MPI_MODE_NOPUT on the post of a get-only epoch), rank 0 checks sums;
 *   - MPI_MODE_NOCHECK on both sides after a barrier. */
#include "mpitest.h"

static int rank, size;

static MPI_Group group_of(int n, const int* ranks) {
    MPI_Group world, g;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_incl(world, n, ranks, &g);
    MPI_Group_free(&world);
    return g;
}

static void ring(MPI_Win win, unsigned char* mem, int use_test) {
    const int right = (rank + 1) % size, left = (rank + size - 1) % size;
    MPI_Group gl = group_of(1, &left), gr = group_of(1, &right);
    unsigned char* src = malloc(1 << 18);
    int round = 0;
    for (size_t n = 8; n <= (1 << 18); n *= 4, ++round) {
        for (int rep = 0; rep < 3; ++rep) {
            const int seed = rank * 1000 + round * 10 + rep;
            mt_fill(src, n, seed);
            CHECK_MPI(MPI_Win_post(gl, 0, win));
            CHECK_MPI(MPI_Win_start(gr, 0, win));
            CHECK_MPI(MPI_Put(src, (int)n, MPI_BYTE, right, 0, (int)n, MPI_BYTE, win));
            CHECK_MPI(MPI_Win_complete(win));
            if (use_test) {
                int flag = 0;
                while (!flag) CHECK_MPI(MPI_Win_test(win, &flag));
            } else {
                CHECK_MPI(MPI_Win_wait(win));
            }
            const int lseed = left * 1000 + round * 10 + rep;
            CHECK(mt_verify(mem, n, lseed) == 0, "ring: %zu bytes from rank %d (rep %d)", n, left, rep);
        }
    }
    MPI_Group_free(&gl);
    MPI_Group_free(&gr);
    free(src);
}

static void star(MPI_Win win, unsigned char* mem) {
    long* cnt = (long*)(mem + 4096);
    int* others = malloc(sizeof(int) * size);
    int n = 0;
    for (int r = 1; r < size; ++r) others[n++] = r;
    const int zero = 0;
    MPI_Group g0 = group_of(1, &zero), go = group_of(n, others);
    if (rank == 0) for (int i = 0; i < 16; ++i) cnt[i] = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    for (int it = 0; it < 20; ++it) {
        if (rank == 0) {
            CHECK_MPI(MPI_Win_post(go, 0, win));
            CHECK_MPI(MPI_Win_wait(win));
            for (int i = 0; i < 16; ++i)
                CHECK(cnt[i] == (long)(it + 1) * (size - 1) * (size) / 2, "star sum [%d] = %ld", i, cnt[i]);
        } else {
            long add[16];
            for (int i = 0; i < 16; ++i) add[i] = rank;
            CHECK_MPI(MPI_Win_start(g0, 0, win));
            CHECK_MPI(MPI_Accumulate(add, 16, MPI_LONG, 0, 4096, 16, MPI_LONG, MPI_SUM, win));
            CHECK_MPI(MPI_Win_complete(win));
        }
    }
    /* a get-only epoch: MPI_MODE_NOPUT on the post */
    if (rank == 0) {
        CHECK_MPI(MPI_Win_post(go, MPI_MODE_NOPUT | MPI_MODE_NOSTORE, win));
        CHECK_MPI(MPI_Win_wait(win));
    } else {
        long got[16], one;
        CHECK_MPI(MPI_Win_start(g0, 0, win));
        CHECK_MPI(MPI_Get(got, 16, MPI_LONG, 0, 4096, 16, MPI_LONG, win));
        CHECK_MPI(MPI_Fetch_and_op(NULL, &one, MPI_LONG, 0, 4096 + 8, MPI_NO_OP, win));
        CHECK_MPI(MPI_Win_complete(win));
        for (int i = 0; i < 16; ++i)
            CHECK(got[i] == 20L * (size - 1) * size / 2, "get in a NOPUT epoch [%d] = %ld", i, got[i]);
        CHECK(one == 20L * (size - 1) * size / 2, "NO_OP read in a NOPUT epoch: %ld", one);
    }
    MPI_Group_free(&g0);
    MPI_Group_free(&go);
    free(others);
}

static void nocheck(MPI_Win win, unsigned char* mem) {
    const int right = (rank + 1) % size, left = (rank + size - 1) % size;
    MPI_Group gl = group_of(1, &left), gr = group_of(1, &right);
    for (int it = 0; it < 10; ++it) {
        CHECK_MPI(MPI_Win_post(gl, MPI_MODE_NOCHECK, win));
        MPI_Barrier(MPI_COMM_WORLD);  /* every post happened: starts need not wait */
        CHECK_MPI(MPI_Win_start(gr, MPI_MODE_NOCHECK, win));
        const int v = rank * 100 + it;
        CHECK_MPI(MPI_Put(&v, 1, MPI_INT, right, 8192, 1, MPI_INT, win));
        CHECK_MPI(MPI_Win_complete(win));
        CHECK_MPI(MPI_Win_wait(win));
        const int got = *(int*)(mem + 8192);
        CHECK(got == left * 100 + it, "NOCHECK epoch %d: %d", it, got);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    MPI_Group_free(&gl);
    MPI_Group_free(&gr);
}

int main(int argc, char** argv) {
    mt_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const MPI_Aint bytes = 1 << 18;
    for (int flavor = 0; flavor < 2; ++flavor) {
        unsigned char* mem;
        MPI_Win win;
        if (flavor == 0) {
            CHECK_MPI(MPI_Win_allocate(bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
        } else {
            mem = malloc(bytes);
            CHECK_MPI(MPI_Win_create(mem, bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
        }
        memset(mem, 0, bytes);
        MPI_Barrier(MPI_COMM_WORLD);
        ring(win, mem, 0);
        ring(win, mem, 1);
        star(win, mem);
        nocheck(win, mem);
        /* a fence epoch after PSCW ones works as before */
        CHECK_MPI(MPI_Win_fence(0, win));
        const int v = rank;
        CHECK_MPI(MPI_Put(&v, 1, MPI_INT, (rank + 1) % size, 12288, 1, MPI_INT, win));
        CHECK_MPI(MPI_Win_fence(0, win));
        CHECK(*(int*)(mem + 12288) == (rank + size - 1) % size, "fence after PSCW");
        CHECK_MPI(MPI_Win_free(&win));
        if (flavor == 1) free(mem);
    }
    if (rank == 0) printf("rma_pscw: ok\n");
    MPI_Finalize();
    return 0;
}
