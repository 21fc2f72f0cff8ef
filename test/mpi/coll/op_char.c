/* SPDX-License-Identifier: MIT */
/* The MPI_CHAR extension (docs/collectives.md): MPI_SUM, MPI_PROD, MPI_MIN
 * and MPI_MAX on MPI_CHAR reduce as signed char, as MPICH and Open MPI do
 * (osu_allreduce's default), in MPI_Allreduce, MPI_Reduce and MPI_Accumulate;
 * MPI_Compare_and_swap takes MPI_CHAR; the bitwise and logical ops stay
 * MPI_ERR_OP on it. */
#include "mpitest.h"

int main(int argc, char** argv) {
    mt_init(&argc, &argv);
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int me = mt_rank;
    enum { N = 1000 };
    char in[N], out[N];
    for (int i = 0; i < N; ++i) in[i] = (char)(me % 2 ? -(i % 50) : i % 50);
    CHECK_MPI(MPI_Allreduce(in, out, N, MPI_CHAR, MPI_SUM, MPI_COMM_WORLD));
    for (int i = 0; i < N; ++i) {
        const int odd = size / 2, even = size - odd; /* ranks of each sign */
        const signed char want = (signed char)((even - odd) * (i % 50));
        CHECK((signed char)out[i] == want, "SUM element %d: %d, want %d", i, (signed char)out[i], want);
    }
    CHECK_MPI(MPI_Allreduce(in, out, N, MPI_CHAR, MPI_MIN, MPI_COMM_WORLD));
    for (int i = 0; i < N; ++i) {
        const signed char want = (signed char)(size > 1 ? -(i % 50) : i % 50);
        CHECK((signed char)out[i] == want, "MIN element %d: %d (signed), want %d", i, (signed char)out[i], want);
    }
    CHECK_MPI(MPI_Reduce(in, out, N, MPI_CHAR, MPI_MAX, 0, MPI_COMM_WORLD));
    if (me == 0)
        for (int i = 0; i < N; ++i) CHECK((signed char)out[i] == i % 50, "MAX element %d: %d", i, out[i]);
    char two = 2, prod = 0;
    CHECK_MPI(MPI_Allreduce(&two, &prod, 1, MPI_CHAR, MPI_PROD, MPI_COMM_WORLD));
    CHECK((signed char)prod == (signed char)(1 << size), "PROD: %d", prod);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int cls = 0;
    MPI_Error_class(MPI_Allreduce(in, out, N, MPI_CHAR, MPI_BAND, MPI_COMM_WORLD), &cls);
    CHECK(cls == MPI_ERR_OP, "BAND on MPI_CHAR: class %d", cls);
    /* RMA: accumulate and compare-and-swap on MPI_CHAR */
    char* mem;
    MPI_Win win;
    CHECK_MPI(MPI_Win_allocate(4, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
    mem[0] = 0;
    mem[1] = 7;
    CHECK_MPI(MPI_Win_fence(0, win));
    char minus = -1, seven = 7, mine = (char)me, old = 0;
    CHECK_MPI(MPI_Accumulate(&minus, 1, MPI_CHAR, 0, 0, 1, MPI_CHAR, MPI_SUM, win));
    CHECK_MPI(MPI_Win_fence(0, win));
    if (me == 0) CHECK((signed char)mem[0] == -size, "accumulated SUM: %d", (signed char)mem[0]);
    CHECK_MPI(MPI_Win_fence(0, win));
    CHECK_MPI(MPI_Compare_and_swap(&mine, &seven, &old, MPI_CHAR, 0, 1, win));
    CHECK_MPI(MPI_Win_fence(0, win));
    int swapped = old == 7, total = 0;
    MPI_Allreduce(&swapped, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    CHECK(total == 1, "%d ranks saw the compare-and-swap succeed", total);
    MPI_Win_free(&win);
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == 0) printf("op_char: OK\n");
    MPI_Finalize();
    return 0;
}
