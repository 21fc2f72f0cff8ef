/* SPDX-License-Identifier: MIT */
/* Aliasing rules and overflow classes (issue 46 item 7), rule by rule; each
 * rule is checked by the block tagged with it. Rules marked * failed before.
 *
 * Aliasing. MPI-4.1 §2.3: "Unless specified otherwise, an argument of type
 * OUT or type INOUT cannot be aliased with any other argument passed to an
 * MPI procedure"; collectives name MPI_IN_PLACE as the way to share a buffer.
 * | tag | rule                                                         | check                                        |
 * |-----|--------------------------------------------------------------|----------------------------------------------|
 * | X1* | Allreduce, Allgather(v), Alltoall(v), Reduce_scatter(_block),| sendbuf == recvbuf, data on both sides:      |
 * |     | Scan, Exscan: send and receive buffer the same memory        | MPI_ERR_BUFFER on every rank (no hang)       |
 * | X2* | rooted ones (Reduce, Gather(v), Scatter(v)) at the root      | on MPI_COMM_SELF: MPI_ERR_BUFFER             |
 * | X3  | ... but not where the other buffer is not significant (a     | Reduce at a non-root with recvbuf == sendbuf |
 * |     | non-root's recvbuf)                                          | succeeds                                     |
 * | X4  | nothing moves (count 0): no error                            | Allreduce count 0, same pointer              |
 * | X5  | MPI_IN_PLACE where the standard allows it                    | Allreduce in place, result checked           |
 * | X6  | MPI_IN_PLACE where it does not (Bcast buffer, Reduce_local,  | MPI_ERR_BUFFER                               |
 * |     | a non-root's sendbuf of Gather... here: Bcast, Reduce_local) |                                              |
 * | X7* | MPI_Reduce_local: inbuf == inoutbuf                          | MPI_ERR_BUFFER (as MPICH)                    |
 * | X8  | MPI_Sendrecv: send and receive buffers must be disjoint      | not checked (MPICH neither): erroneous, not  |
 * |     | (§3.10)                                                      | detected; MPI_Sendrecv_replace is the way    |
 * Overflow. MPI-4.1: an output that cannot represent the value is
 * MPI_ERR_VALUE_TOO_LARGE, except where the standard sets MPI_UNDEFINED.
 * | O1* | MPI_Pack_size (int): packed size > INT_MAX                   | MPI_ERR_VALUE_TOO_LARGE (was MPI_ERR_COUNT)  |
 * | O2* | MPI_Pack_size_c: count x size beyond 64 bits                 | MPI_ERR_VALUE_TOO_LARGE                      |
 * | O3* | MPI_Pack_external_size(_c): beyond 64 bits                   | MPI_ERR_VALUE_TOO_LARGE                      |
 * | O4  | MPI_Type_size (int) of a type > INT_MAX bytes (§5.1.5)       | MPI_UNDEFINED, MPI_SUCCESS; _c: exact        |
 * | O5  | MPI_Get_count / MPI_Get_elements (int) beyond INT_MAX        | MPI_UNDEFINED, MPI_SUCCESS (status set with  |
 * |     | (§3.2.5, §5.1.11)                                            | MPI_Status_set_elements_c); _c: exact        |
 * | O6  | input counts whose product overflows (MPI_Pack_c, constructors)| MPI_ERR_COUNT (an argument error, not an     |
 * |     |                                                              | output): test/mpi/datatype/dt_pack_quick.c,  |
 * |     |                                                              | dt_errors.c                                  |
 * | O7  | messages beyond 2 GiB with _c counts                         | test/mpi/p2p/large.c, ddt/large.c            | */
#include <limits.h>
#include <stdint.h>

#include "mpitest.h"

static int cls_of(int rc) {
    int c = -1;
    MPI_Error_class(rc, &c);
    return c;
}
#define EXPECT_CLASS(call, want, what)                                                        \
    do {                                                                                      \
        const int rc_ = (call);                                                               \
        CHECK(cls_of(rc_) == (want), "%s: class %d, expected %d", what, cls_of(rc_), (want)); \
    } while (0)

int main(int argc, char** argv) {
    mt_init(&argc, &argv);
    int np, me;
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    enum { N = 64 };
    int buf[N * 8], other[N * 8];
    int counts[8], displs[8];
    for (int i = 0; i < 8; ++i) counts[i] = 1, displs[i] = i;
    for (int i = 0; i < N * 8; ++i) buf[i] = i, other[i] = -1;
    MPI_Comm w = MPI_COMM_WORLD;

    /* X1: every rank gets MPI_ERR_BUFFER locally, so nobody waits */
    EXPECT_CLASS(MPI_Allreduce(buf, buf, N, MPI_INT, MPI_SUM, w), MPI_ERR_BUFFER, "X1 Allreduce");
    EXPECT_CLASS(MPI_Allgather(buf, 1, MPI_INT, buf, 1, MPI_INT, w), MPI_ERR_BUFFER, "X1 Allgather");
    EXPECT_CLASS(MPI_Allgatherv(buf, 1, MPI_INT, buf, counts, displs, MPI_INT, w), MPI_ERR_BUFFER,
                 "X1 Allgatherv");
    EXPECT_CLASS(MPI_Alltoall(buf, 1, MPI_INT, buf, 1, MPI_INT, w), MPI_ERR_BUFFER, "X1 Alltoall");
    EXPECT_CLASS(MPI_Alltoallv(buf, counts, displs, MPI_INT, buf, counts, displs, MPI_INT, w),
                 MPI_ERR_BUFFER, "X1 Alltoallv");
    EXPECT_CLASS(MPI_Reduce_scatter_block(buf, buf, 1, MPI_INT, MPI_SUM, w), MPI_ERR_BUFFER,
                 "X1 Reduce_scatter_block");
    EXPECT_CLASS(MPI_Reduce_scatter(buf, buf, counts, MPI_INT, MPI_SUM, w), MPI_ERR_BUFFER,
                 "X1 Reduce_scatter");
    EXPECT_CLASS(MPI_Scan(buf, buf, N, MPI_INT, MPI_SUM, w), MPI_ERR_BUFFER, "X1 Scan");
    EXPECT_CLASS(MPI_Exscan(buf, buf, N, MPI_INT, MPI_SUM, w), MPI_ERR_BUFFER, "X1 Exscan");
    EXPECT_CLASS(MPI_Allreduce_c(buf, buf, N, MPI_INT, MPI_SUM, w), MPI_ERR_BUFFER, "X1 Allreduce_c");
    /* ... and MPI works after these errors */
    CHECK_MPI(MPI_Allreduce(buf, other, N, MPI_INT, MPI_SUM, w));
    CHECK(other[5] == 5 * np, "Allreduce after the errors: %d", other[5]);

    /* X2: rooted, at the root (on MPI_COMM_SELF: the root is every rank) */
    MPI_Comm s = MPI_COMM_SELF;
    EXPECT_CLASS(MPI_Reduce(buf, buf, N, MPI_INT, MPI_SUM, 0, s), MPI_ERR_BUFFER, "X2 Reduce");
    EXPECT_CLASS(MPI_Gather(buf, 1, MPI_INT, buf, 1, MPI_INT, 0, s), MPI_ERR_BUFFER, "X2 Gather");
    EXPECT_CLASS(MPI_Gatherv(buf, 1, MPI_INT, buf, counts, displs, MPI_INT, 0, s), MPI_ERR_BUFFER,
                 "X2 Gatherv");
    EXPECT_CLASS(MPI_Scatter(buf, 1, MPI_INT, buf, 1, MPI_INT, 0, s), MPI_ERR_BUFFER, "X2 Scatter");
    EXPECT_CLASS(MPI_Scatterv(buf, counts, displs, MPI_INT, buf, 1, MPI_INT, 0, s), MPI_ERR_BUFFER,
                 "X2 Scatterv");

    /* X3: a non-root's recvbuf is not significant */
    for (int i = 0; i < N; ++i) buf[i] = i;
    CHECK_MPI(MPI_Reduce(buf, me == 0 ? other : buf, N, MPI_INT, MPI_SUM, 0, w));
    if (me == 0) CHECK(other[7] == 7 * np, "X3 Reduce result %d", other[7]);

    /* X4 */
    CHECK_MPI(MPI_Allreduce(buf, buf, 0, MPI_INT, MPI_SUM, w));

    /* X5 */
    for (int i = 0; i < N; ++i) buf[i] = i;
    CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, buf, N, MPI_INT, MPI_SUM, w));
    CHECK(buf[9] == 9 * np, "X5 in place: %d", buf[9]);

    /* X6 */
    EXPECT_CLASS(MPI_Bcast(MPI_IN_PLACE, 1, MPI_INT, 0, w), MPI_ERR_BUFFER, "X6 Bcast(MPI_IN_PLACE)");
    EXPECT_CLASS(MPI_Reduce_local(MPI_IN_PLACE, buf, 1, MPI_INT, MPI_SUM), MPI_ERR_BUFFER,
                 "X6 Reduce_local(MPI_IN_PLACE)");

    /* X7 */
    EXPECT_CLASS(MPI_Reduce_local(buf, buf, N, MPI_INT, MPI_SUM), MPI_ERR_BUFFER, "X7 Reduce_local");
    CHECK_MPI(MPI_Reduce_local(other, buf, N, MPI_INT, MPI_SUM)); /* and twice in a row: no stale state */
    CHECK_MPI(MPI_Reduce_local(buf, other, N, MPI_INT, MPI_SUM));

    /* O1-O3: a type of 2^20 bytes, counts that push the size beyond an int / 64 bits */
    MPI_Datatype mb;
    CHECK_MPI(MPI_Type_contiguous(1 << 18, MPI_INT, &mb));
    CHECK_MPI(MPI_Type_commit(&mb));
    int isz = 0;
    CHECK_MPI(MPI_Pack_size(2047, mb, w, &isz));
    CHECK(isz == 2047 * (1 << 20), "Pack_size of 2047 MiB: %d", isz);
    EXPECT_CLASS(MPI_Pack_size(4096, mb, w, &isz), MPI_ERR_VALUE_TOO_LARGE, "O1 Pack_size > INT_MAX");
    MPI_Count csz = 0;
    CHECK_MPI(MPI_Pack_size_c(4096, mb, w, &csz));
    CHECK(csz == (MPI_Count)4096 << 20, "O1 Pack_size_c %lld", (long long)csz);
    EXPECT_CLASS(MPI_Pack_size_c((MPI_Count)1 << 50, mb, w, &csz), MPI_ERR_VALUE_TOO_LARGE,
                 "O2 Pack_size_c beyond 64 bits");
    EXPECT_CLASS(MPI_Pack_size(-1, mb, w, &isz), MPI_ERR_COUNT, "a negative count stays MPI_ERR_COUNT");
    MPI_Aint asz = 0;
    EXPECT_CLASS(MPI_Pack_external_size_c("external32", (MPI_Count)1 << 50, mb, &csz), MPI_ERR_VALUE_TOO_LARGE,
                 "O3 Pack_external_size_c beyond 64 bits");
    CHECK_MPI(MPI_Pack_external_size("external32", 4096, mb, &asz));
    CHECK(asz == (MPI_Aint)4096 << 20, "Pack_external_size %ld", (long)asz);

    /* O4 */
    MPI_Datatype big;
    CHECK_MPI(MPI_Type_contiguous(4096, mb, &big)); /* 4 GiB */
    CHECK_MPI(MPI_Type_commit(&big));
    int tsz = 0;
    CHECK_MPI(MPI_Type_size(big, &tsz));
    CHECK(tsz == MPI_UNDEFINED, "O4 Type_size of 4 GiB: %d", tsz);
    CHECK_MPI(MPI_Type_size_c(big, &csz));
    CHECK(csz == (MPI_Count)1 << 32, "O4 Type_size_c %lld", (long long)csz);

    /* O5 */
    MPI_Status st;
    CHECK_MPI(MPI_Status_set_elements_c(&st, MPI_BYTE, (MPI_Count)1 << 32));
    int cnt = 0;
    CHECK_MPI(MPI_Get_count(&st, MPI_BYTE, &cnt));
    CHECK(cnt == MPI_UNDEFINED, "O5 Get_count beyond INT_MAX: %d", cnt);
    CHECK_MPI(MPI_Get_elements(&st, MPI_BYTE, &cnt));
    CHECK(cnt == MPI_UNDEFINED, "O5 Get_elements beyond INT_MAX: %d", cnt);
    CHECK_MPI(MPI_Get_count_c(&st, MPI_BYTE, &csz));
    CHECK(csz == (MPI_Count)1 << 32, "O5 Get_count_c %lld", (long long)csz);

    MPI_Type_free(&big);
    MPI_Type_free(&mb);
    CHECK_MPI(MPI_Barrier(w));
    if (me == 0) printf("alias_overflow: OK\n");
    MPI_Finalize();
    return 0;
}
