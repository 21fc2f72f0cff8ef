/* SPDX-License-Identifier: MIT */
/*
 * Instruction counts of MPI_Pack / MPI_Unpack against the hand-written loop,
 * and of constructing + committing + freeing the type, for one DDTBench layout, for `valgrind --tool=callgrind` (icount.sh): on a
 * shared, noisy machine instruction counts are the stable measure of the
 * interpreter's overhead. Plain MPI C; built like the benchmarks.
 *   icount <layout substring>
 */
#include "ddt_layouts.h"

#define REPS 10

__attribute__((noinline)) void run_pack(ddt *L, MPI_Datatype t, char *out) {
    for (int i = 0; i < REPS; ++i) {
        int pos = 0;
        MPI_Pack(L->buf, L->count, t, out, (int)L->bytes, &pos, MPI_COMM_WORLD);
    }
}
__attribute__((noinline)) void run_unpack(ddt *L, MPI_Datatype t, char *in) {
    for (int i = 0; i < REPS; ++i) {
        int pos = 0;
        MPI_Unpack(in, (int)L->bytes, &pos, (void *)L->buf, L->count, t, MPI_COMM_WORLD);
    }
}
__attribute__((noinline)) void run_hand(ddt *L, char *out, int unpack) {
    for (int i = 0; i < REPS; ++i) L->hand(L, out, unpack);
}
/* Construction + commit + free of the layout's type (the dame_commit table's
 * work, and the free). */
__attribute__((noinline)) void run_commit(ddt *L) {
    for (int i = 0; i < REPS; ++i) {
        MPI_Datatype t;
        L->mktype(L, &t);
        MPI_Type_free(&t);
    }
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    ddt L;
    for (int i = 0; argc > 1 && ddt_make(i, &L); ++i) {
        if (strcmp(L.name, argv[1]) != 0) {
            ddt_free(&L);
            continue;
        }
        MPI_Datatype t;
        L.mktype(&L, &t);
        char *buf = malloc(L.bytes);
        run_pack(&L, t, buf);   /* the measured calls follow the first (warm) ones */
        run_hand(&L, buf, 0);
        run_unpack(&L, t, buf);
        run_hand(&L, buf, 1);
        run_commit(&L);
        run_commit(&L);
        printf("%s %zu\n", L.name, L.bytes);
        MPI_Type_free(&t);
        free(buf);
        ddt_free(&L);
    }
    MPI_Finalize();
    return 0;
}
