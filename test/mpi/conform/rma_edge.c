/* SPDX-License-Identifier: MIT */
/* RMA edge cases programs written for other MPIs rely on (issue 48):
 *  - MPI_Accumulate / MPI_Get_accumulate with count 0, or a target type of
 *    size 0, move no data: valid no-ops inside an epoch (MPICH and Open
 *    MPI accept them; the rule that the target type be built from one
 *    predefined type, MPI-4.1 §12.3.4, has nothing to apply to);
 *  - argument errors are reported as such also outside an epoch:
 *    MPI_Put / MPI_Get / MPI_Accumulate to rank -5 before any fence give
 *    MPI_ERR_RANK (as MPICH), a bad displacement MPI_ERR_DISP; a valid
 *    call outside an epoch gives MPI_ERR_RMA_SYNC. */
#include "mpitest.h"

static int cls_of(int rc) {
    int c = -1;
    MPI_Error_class(rc, &c);
    return c;
}
#define EXPECT_CLASS(call, want, what)                                                         \
    do {                                                                                       \
        const int rc_ = (call);                                                                \
        CHECK(cls_of(rc_) == (want), "%s: class %d, expected %d", what, cls_of(rc_), (want)); \
    } while (0)

int main(int argc, char** argv) {
    mt_init(&argc, &argv);
    int np, me;
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    long mem[8] = {0}, v[8] = {1, 2, 3, 4, 5, 6, 7, 8}, r[8];
    MPI_Win win;
    CHECK_MPI(MPI_Win_create(mem, sizeof mem, sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    const int right = (me + 1) % np;

    /* Outside an epoch: the argument's class first. */
    EXPECT_CLASS(MPI_Put(v, 1, MPI_LONG, -5, 0, 1, MPI_LONG, win), MPI_ERR_RANK, "MPI_Put to rank -5");
    EXPECT_CLASS(MPI_Get(r, 1, MPI_LONG, -5, 0, 1, MPI_LONG, win), MPI_ERR_RANK, "MPI_Get from rank -5");
    EXPECT_CLASS(MPI_Accumulate(v, 1, MPI_LONG, np, 0, 1, MPI_LONG, MPI_SUM, win), MPI_ERR_RANK,
                 "MPI_Accumulate to rank np");
    EXPECT_CLASS(MPI_Put(v, 1, MPI_LONG, right, -1, 1, MPI_LONG, win), MPI_ERR_DISP, "MPI_Put, disp -1");
    EXPECT_CLASS(MPI_Put(v, -1, MPI_LONG, right, 0, -1, MPI_LONG, win), MPI_ERR_COUNT, "MPI_Put, count -1");
    EXPECT_CLASS(MPI_Put(v, 1, MPI_LONG, right, 0, 1, MPI_LONG, win), MPI_ERR_RMA_SYNC,
                 "a valid MPI_Put outside an epoch");

    MPI_Datatype empty;
    CHECK_MPI(MPI_Type_contiguous(0, MPI_LONG, &empty));
    CHECK_MPI(MPI_Type_commit(&empty));
    CHECK_MPI(MPI_Win_fence(0, win));
    /* Zero counts and zero-size types: no-ops. */
    CHECK_MPI(MPI_Accumulate(v, 0, MPI_LONG, right, 0, 0, MPI_LONG, MPI_SUM, win));
    CHECK_MPI(MPI_Accumulate(v, 0, MPI_LONG, right, 0, 0, empty, MPI_SUM, win));
    CHECK_MPI(MPI_Accumulate(v, 1, empty, right, 0, 1, empty, MPI_SUM, win));
    CHECK_MPI(MPI_Accumulate(v, 3, empty, right, 0, 2, empty, MPI_REPLACE, win));
    CHECK_MPI(MPI_Accumulate(NULL, 0, MPI_LONG, right, 0, 0, empty, MPI_MAX, win));
    CHECK_MPI(MPI_Get_accumulate(v, 0, MPI_LONG, r, 0, MPI_LONG, right, 0, 0, empty, MPI_SUM, win));
    CHECK_MPI(MPI_Get_accumulate(NULL, 0, MPI_LONG, r, 1, empty, right, 0, 1, empty, MPI_NO_OP, win));
    CHECK_MPI(MPI_Put(v, 0, MPI_LONG, right, 0, 0, empty, win));
    CHECK_MPI(MPI_Get(r, 1, empty, right, 0, 0, MPI_LONG, win));
    /* ... next to a real accumulate, which still applies. */
    CHECK_MPI(MPI_Accumulate(v, 2, MPI_LONG, right, 1, 2, MPI_LONG, MPI_SUM, win));
    /* A zero-size target with a user op is still an invalid op. */
    EXPECT_CLASS(MPI_Accumulate(v, 0, MPI_LONG, right, 0, 0, empty, MPI_OP_NULL, win), MPI_ERR_OP,
                 "MPI_OP_NULL with a zero-size target");
    CHECK_MPI(MPI_Win_fence(0, win));
    CHECK(mem[0] == 0 && mem[1] == 1 && mem[2] == 2 && mem[3] == 0, "window after the epoch: %ld %ld %ld %ld",
          mem[0], mem[1], mem[2], mem[3]);
    CHECK_MPI(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
    /* After NOSUCCEED: again the argument's class before the epoch's. */
    EXPECT_CLASS(MPI_Get(r, 1, MPI_LONG, -5, 0, 1, MPI_LONG, win), MPI_ERR_RANK, "MPI_Get to -5 after NOSUCCEED");
    MPI_Type_free(&empty);
    CHECK_MPI(MPI_Win_free(&win));
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == 0) printf("rma_edge: OK\n");
    MPI_Finalize();
    return 0;
}
