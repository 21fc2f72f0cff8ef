/* SPDX-License-Identifier: MIT */
/* Request-based RMA (MPI_Rput, MPI_Rget, MPI_Raccumulate,
 * MPI_Rget_accumulate and their _c forms) inside passive-target epochs, on
 * Win_allocate and Win_create windows: many requests to every rank, 8 B to
 * 1 MiB, completed in reverse order, with Waitall, Waitany and Testsome;
 * an Rget's data is there when its request completes, an Rput's or
 * Raccumulate's buffer may be reused then; the results after the epoch. */
#include "mpitest.h"

static int rank, size;

int main(int argc, char** argv) {
    mt_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    enum { SLOT = 1 << 20, NSMALL = 32 };
    const MPI_Aint bytes = (MPI_Aint)SLOT * 2 + 4096;
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
        /* [0, SLOT): what the left neighbour puts; [SLOT, 2 SLOT): our own
         * pattern for gets; [2 SLOT, +4096): counters */
        mt_fill(mem + SLOT, SLOT, 50 + rank);
        MPI_Barrier(MPI_COMM_WORLD);
        const int right = (rank + 1) % size, left = (rank + size - 1) % size;
        unsigned char* src = malloc(SLOT);
        unsigned char* dst = malloc(SLOT);
        mt_fill(src, SLOT, rank);
        MPI_Request reqs[3 * NSMALL + 8];
        int n = 0;
        CHECK_MPI(MPI_Win_lock_all(0, win));
        /* 1 MiB put and get, and small ones of 8 .. 256 B */
        CHECK_MPI(MPI_Rput(src, SLOT, MPI_BYTE, right, 0, SLOT, MPI_BYTE, win, &reqs[n++]));
        CHECK_MPI(MPI_Rget_c(dst, SLOT, MPI_BYTE, right, SLOT, SLOT, MPI_BYTE, win, &reqs[n++]));
        long vals[NSMALL], olds[NSMALL][2];
        const long one = 1;
        for (int i = 0; i < NSMALL; ++i) {
            const int t = (rank + i) % size;
            vals[i] = rank * 1000 + i;
            CHECK_MPI(MPI_Raccumulate(&one, 1, MPI_LONG, t, 2 * SLOT + 8 * (i % 8), 1, MPI_LONG, MPI_SUM, win,
                                      &reqs[n++]));
            CHECK_MPI(MPI_Rget_accumulate_c(&one, 1, MPI_LONG, olds[i], 1, MPI_LONG, t, 2 * SLOT + 512,
                                            1, MPI_LONG, MPI_SUM, win, &reqs[n++]));
            olds[i][1] = -7;  /* untouched by the operation */
            CHECK_MPI(MPI_Raccumulate_c(&vals[i], 1, MPI_LONG, t, 2 * SLOT + 1024 + 8 * rank, 1, MPI_LONG,
                                        MPI_REPLACE, win, &reqs[n++]));
        }
        /* complete in reverse order; the rput's buffer is ours again after */
        for (int i = n - 1; i >= 3 * NSMALL / 2 + 2; --i) CHECK_MPI(MPI_Wait(&reqs[i], MPI_STATUS_IGNORE));
        int done = 0;
        while (done < 3 * NSMALL / 2) {  /* a middle part with Testsome */
            int outc = 0, idx[3 * NSMALL];
            CHECK_MPI(MPI_Testsome(3 * NSMALL / 2, reqs + 2, &outc, idx, MPI_STATUSES_IGNORE));
            if (outc != MPI_UNDEFINED) done += outc;
        }
        int which = -1;
        CHECK_MPI(MPI_Waitany(2, reqs, &which, MPI_STATUS_IGNORE));
        CHECK(which == 0 || which == 1, "Waitany index %d", which);
        CHECK_MPI(MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE));
        CHECK(mt_verify(dst, SLOT, 50 + right) == 0, "Rget data at completion");
        memset(src, 0, SLOT);  /* allowed: the Rput completed */
        for (int i = 0; i < NSMALL; ++i)
            CHECK(olds[i][0] >= 0 && olds[i][0] < (long)size * NSMALL, "Rget_accumulate old value %ld",
                  olds[i][0]);
        /* a request completed after the epoch's end is fine too */
        MPI_Request late;
        long late_v = -1;
        CHECK_MPI(MPI_Rget(&late_v, 1, MPI_LONG, right, 2 * SLOT + 1024 + 8 * rank, 1, MPI_LONG, win, &late));
        CHECK_MPI(MPI_Win_unlock_all(win));
        CHECK_MPI(MPI_Wait(&late, MPI_STATUS_IGNORE));
        int last_i = -1;  /* accumulates from one origin apply in order: the last REPLACE */
        for (int i = 0; i < NSMALL; ++i)
            if ((rank + i) % size == right) last_i = i;
        CHECK(late_v == rank * 1000 + last_i, "late Rget: %ld, want %d", late_v, rank * 1000 + last_i);
        MPI_Barrier(MPI_COMM_WORLD);
        CHECK(mt_verify(mem, SLOT, left) == 0, "Rput data from the left neighbour");
        const long* cnt = (const long*)(mem + 2 * SLOT);
        long sum = 0;
        for (int i = 0; i < 8; ++i) sum += cnt[i];
        long expect = 0;  /* Raccumulate of 1 from every rank for each i with (rank + i) % size == me */
        for (int r = 0; r < size; ++r)
            for (int i = 0; i < NSMALL; ++i) expect += (r + i) % size == rank;
        CHECK(sum == expect, "Raccumulate counters: %ld, want %ld", sum, expect);
        CHECK(cnt[64] == expect, "Rget_accumulate counter: %ld, want %ld", cnt[64], expect);
        MPI_Barrier(MPI_COMM_WORLD);
        CHECK_MPI(MPI_Win_free(&win));
        if (flavor == 1) free(mem);
        free(src);
        free(dst);
    }
    if (rank == 0) printf("rma_request: ok\n");
    MPI_Finalize();
    return 0;
}
