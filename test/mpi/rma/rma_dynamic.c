/* SPDX-License-Identifier: MIT */
/* Dynamic windows (MPI_Win_create_dynamic, MPI_Win_attach, MPI_Win_detach):
 * target displacements are the target's addresses (MPI_Get_address). Every
 * rank attaches three regions (one of 1 MiB); the others put, get,
 * accumulate and fetch-and-op into them under lock_all and in fence epochs,
 * themselves included; a region is detached and another attached between
 * epochs; overlapping attaches and detaching what is not attached fail with
 * MPI_ERR_RMA_ATTACH; an access to a detached region fails with
 * MPI_ERR_RMA_RANGE (at the origin's flush, from the target's answer) and
 * leaves the target's memory untouched. */
#include "mpitest.h"

static int rank, size;

enum { NREG = 3 };
static const MPI_Aint reg_bytes[NREG] = {256, 1 << 20, 64};

/* addrs[p * NREG + k]: rank p's region k. */
static void publish(char** regs, MPI_Aint* addrs) {
    MPI_Aint mine[NREG];
    for (int k = 0; k < NREG; ++k) CHECK_MPI(MPI_Get_address(regs[k], &mine[k]));
    MPI_Allgather(mine, NREG, MPI_AINT, addrs, NREG, MPI_AINT, MPI_COMM_WORLD);
}

int main(int argc, char** argv) {
    mt_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Win win;
    CHECK_MPI(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    int* flavor;
    int flag;
    CHECK_MPI(MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &flavor, &flag));
    CHECK(flag && *flavor == MPI_WIN_FLAVOR_DYNAMIC, "flavor");
    char* regs[NREG];
    for (int k = 0; k < NREG; ++k) {
        regs[k] = calloc((size_t)reg_bytes[k], 1);
        CHECK_MPI(MPI_Win_attach(win, regs[k], reg_bytes[k]));
    }
    /* overlaps and detaching what is not attached */
    int cls = -1;
    MPI_Error_class(MPI_Win_attach(win, regs[1] + 100, 10), &cls);
    CHECK(cls == MPI_ERR_RMA_ATTACH, "overlapping attach: class %d", cls);
    MPI_Error_class(MPI_Win_attach(win, regs[0] + 200, 100), &cls);
    CHECK(cls == MPI_ERR_RMA_ATTACH, "attach across a region's end: class %d", cls);
    MPI_Error_class(MPI_Win_detach(win, regs[1] + 8), &cls);
    CHECK(cls == MPI_ERR_RMA_ATTACH, "detach of an unattached address: class %d", cls);
    MPI_Aint* addrs = malloc(sizeof(MPI_Aint) * NREG * size);
    publish(regs, addrs);

    /* passive target: put into every rank's region 0 slot `rank`, a 1 MiB
     * slice pattern into region 1 of the right neighbour, accumulate and
     * fetch-and-op into region 2 */
    const int right = (rank + 1) % size, left = (rank + size - 1) % size;
    char* big = malloc(1 << 20);
    mt_fill(big, 1 << 20, rank);
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_MPI(MPI_Win_lock_all(0, win));
    long counter_old[64];
    const long one = 1;
    for (int t = 0; t < size; ++t) {
        const long v = 100 + rank;
        CHECK_MPI(MPI_Put(&v, 1, MPI_LONG, t, addrs[t * NREG + 0] + rank * 8, 1, MPI_LONG, win));
        CHECK_MPI(MPI_Accumulate(&one, 1, MPI_LONG, t, addrs[t * NREG + 2], 1, MPI_LONG, MPI_SUM, win));
        CHECK_MPI(MPI_Fetch_and_op(&one, &counter_old[t], MPI_LONG, t, addrs[t * NREG + 2] + 8, MPI_SUM, win));
    }
    CHECK_MPI(MPI_Put(big, 1 << 20, MPI_BYTE, right, addrs[right * NREG + 1], 1 << 20, MPI_BYTE, win));
    CHECK_MPI(MPI_Win_flush_all(win));
    char* back = malloc(1 << 20);
    CHECK_MPI(MPI_Get(back, 1 << 20, MPI_BYTE, right, addrs[right * NREG + 1], 1 << 20, MPI_BYTE, win));
    CHECK_MPI(MPI_Win_unlock_all(win));
    CHECK(mt_verify(back, 1 << 20, rank) == 0, "get of the 1 MiB put back");
    MPI_Barrier(MPI_COMM_WORLD);
    for (int p = 0; p < size; ++p) CHECK(((long*)regs[0])[p] == 100 + p, "region 0 slot %d", p);
    CHECK(((long*)regs[2])[0] == size && ((long*)regs[2])[1] == size, "region 2 counters %ld %ld",
          ((long*)regs[2])[0], ((long*)regs[2])[1]);
    CHECK(mt_verify(regs[1], 1 << 20, left) == 0, "region 1 from the left neighbour");

    /* fence epochs with the same addresses */
    CHECK_MPI(MPI_Win_fence(0, win));
    const long w2 = 200 + rank;
    CHECK_MPI(MPI_Put(&w2, 1, MPI_LONG, right, addrs[right * NREG + 2] + 16, 1, MPI_LONG, win));
    long got = 0;
    CHECK_MPI(MPI_Get(&got, 1, MPI_LONG, left, addrs[left * NREG + 0] + 8 * left, 1, MPI_LONG, win));
    CHECK_MPI(MPI_Win_fence(0, win));
    CHECK(((long*)regs[2])[2] == 200 + left, "fence put into region 2: %ld", ((long*)regs[2])[2]);
    CHECK(got == 100 + left, "fence get from region 0: %ld", got);

    /* detach region 0, attach a new region: the new address works, the
     * old one is refused at the target and nothing is written there */
    CHECK_MPI(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
    CHECK_MPI(MPI_Win_detach(win, regs[0]));
    for (int i = 0; i < 32; ++i) ((long*)regs[0])[i] = -1;
    char* fresh = calloc(128, 1);
    CHECK_MPI(MPI_Win_attach(win, fresh, 128));
    MPI_Aint fa, *fas = malloc(sizeof(MPI_Aint) * size);
    MPI_Get_address(fresh, &fa);
    MPI_Allgather(&fa, 1, MPI_AINT, fas, 1, MPI_AINT, MPI_COMM_WORLD);
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, win));
    const long w3 = 300 + rank;
    CHECK_MPI(MPI_Put(&w3, 1, MPI_LONG, right, fas[right], 1, MPI_LONG, win));
    CHECK_MPI(MPI_Put(&w3, 1, MPI_LONG, right, addrs[right * NREG + 0], 1, MPI_LONG, win));
    const int rc = MPI_Win_unlock(right, win);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_RMA_RANGE, "access to a detached region: class %d", cls);
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK(((long*)fresh)[0] == 300 + left, "put into the new region: %ld", ((long*)fresh)[0]);
    for (int i = 0; i < 32; ++i) CHECK(((long*)regs[0])[i] == -1, "the detached region was written at %d", i);
    /* the window stays usable */
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win));
    long g2 = 0;
    CHECK_MPI(MPI_Get(&g2, 1, MPI_LONG, right, fas[right], 1, MPI_LONG, win));
    CHECK_MPI(MPI_Win_unlock(right, win));
    CHECK(g2 == 300 + rank, "get from the new region: %ld", g2);
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_MPI(MPI_Win_detach(win, fresh));
    for (int k = 1; k < NREG; ++k) CHECK_MPI(MPI_Win_detach(win, regs[k]));
    CHECK_MPI(MPI_Win_free(&win));
    for (int k = 0; k < NREG; ++k) free(regs[k]);
    free(fresh);
    free(fas);
    free(addrs);
    free(big);
    free(back);
    if (rank == 0) printf("rma_dynamic: ok\n");
    MPI_Finalize();
    return 0;
}
