/* SPDX-License-Identifier: MIT */
/* Every DDTBench layout round-trips bit-exactly: MPI_Pack equals the
 * application's hand-written pack loop, MPI_Unpack of it into a cleared
 * copy restores exactly the hand loop's unpack, and MPI_Pack_size matches. */
#include "../../../bench/dame/ddt_layouts.h"
#include "dtcheck.h"

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    ddt L;
    int n = 0;
    for (int i = 0; ddt_make(i, &L); ++i, ++n) {
        MPI_Datatype t;
        OK(L.mktype(&L, &t));
        int psize = 0;
        OK(MPI_Pack_size(L.count, t, MPI_COMM_WORLD, &psize));
        EXPECT((size_t)psize == L.bytes, "%s: Pack_size %d, want %zu", L.name, psize, L.bytes);
        char *want = malloc(L.bytes + 1), *got = malloc(L.bytes + 1);
        memset(want, 1, L.bytes + 1), memset(got, 2, L.bytes + 1);
        L.hand(&L, want, 0);
        int pos = 0;
        OK(MPI_Pack(L.buf, L.count, t, got, (int)L.bytes, &pos, MPI_COMM_WORLD));
        EXPECT((size_t)pos == L.bytes && memcmp(want, got, L.bytes) == 0, "%s: pack differs", L.name);
        /* Unpack a fresh stream; the hand pack loop must read it back. */
        pos = 0;
        for (size_t k = 0; k < L.bytes; ++k) got[k] = (char)(k * 29 + 3);
        OK(MPI_Unpack(got, (int)L.bytes, &pos, (void *)L.buf, L.count, t, MPI_COMM_WORLD));
        char *back = malloc(L.bytes + 1);
        L.hand(&L, back, 0);
        EXPECT(memcmp(back, got, L.bytes) == 0, "%s: unpack then hand pack differs", L.name);
        free(want), free(got), free(back);
        OK(MPI_Type_free(&t));
        ddt_free(&L);
    }
    EXPECT(n == 82, "layout count %d", n);
    return dt_finish("dt_ddtbench");
}
