/* SPDX-License-Identifier: MIT */
/* RMA corner cases MPICH's rma suite relies on:
 *  - MPI_Rput / MPI_Rget / MPI_Raccumulate / MPI_Rget_accumulate to
 *    MPI_PROC_NULL after MPI_Win_lock(MPI_PROC_NULL) (a no-op that opens no
 *    epoch) succeed with a complete request (rma/rmanull);
 *  - MPI_Put / MPI_Get / MPI_Accumulate from MPI_BOTTOM with a datatype of
 *    absolute addresses (rma/put_bottom);
 *  - MPI_Win_shared_query of a member that gave no memory: size 0 and NULL
 *    (rma/win_shared_noncontig_put);
 *  - a rank that spins on lock / MPI_Fetch_and_op(MPI_NO_OP) / unlock of
 *    its OWN memory (done at the call) still serves the others' requests
 *    to it: rank 1 writes rank 0's word of a dynamic window (the target
 *    checks the address, so it must act), rank 0 waits for the value
 *    (rma/linked_list_fop hung; here a 20 s limit fails instead);
 *  - the same with exclusive locks on a dynamic window: rank 0 locks itself
 *    exclusively in a loop while rank 1 waits for an exclusive lock on it:
 *    rank 0 must let the waiting request in after its unlock
 *    (rma/linked_list starved with shm off). */
#include "mpitest.h"

int main(int argc, char** argv) {
    mt_init(&argc, &argv);
    int p;
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    const int me = mt_rank, peer = (me + 1) % p, from = (me + p - 1) % p;
    enum { N = 8 };
    int* mem = NULL;
    MPI_Win win;
    CHECK_MPI(MPI_Win_allocate(2 * N * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
    for (int i = 0; i < 2 * N; ++i) mem[i] = -1;

    /* request-based operations to MPI_PROC_NULL */
    int buf[N], res[N];
    for (int i = 0; i < N; ++i) buf[i] = i;
    MPI_Request rq[4];
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, MPI_PROC_NULL, 0, win));
    CHECK_MPI(MPI_Rput(buf, N, MPI_INT, MPI_PROC_NULL, 0, N, MPI_INT, win, &rq[0]));
    CHECK_MPI(MPI_Rget(res, N, MPI_INT, MPI_PROC_NULL, 0, N, MPI_INT, win, &rq[1]));
    CHECK_MPI(MPI_Raccumulate(buf, N, MPI_INT, MPI_PROC_NULL, 0, N, MPI_INT, MPI_SUM, win, &rq[2]));
    CHECK_MPI(MPI_Rget_accumulate(buf, N, MPI_INT, res, N, MPI_INT, MPI_PROC_NULL, 0, N, MPI_INT, MPI_SUM,
                                  win, &rq[3]));
    CHECK_MPI(MPI_Win_unlock(MPI_PROC_NULL, win));
    CHECK_MPI(MPI_Waitall(4, rq, MPI_STATUSES_IGNORE));
    for (int i = 0; i < 4; ++i) CHECK(rq[i] == MPI_REQUEST_NULL, "request %d not freed by MPI_Waitall", i);

    /* MPI_BOTTOM origin: every other element of src, by absolute address */
    int src[2 * N], dst[2 * N];
    for (int i = 0; i < 2 * N; ++i) {
        src[i] = me * 100 + i;
        dst[i] = -7;
    }
    MPI_Aint addr[N];
    int lens[N];
    for (int i = 0; i < N; ++i) {
        CHECK_MPI(MPI_Get_address(&src[2 * i], &addr[i]));
        lens[i] = 1;
    }
    MPI_Datatype abs_t, get_t;
    CHECK_MPI(MPI_Type_create_hindexed(N, lens, addr, MPI_INT, &abs_t));
    CHECK_MPI(MPI_Type_commit(&abs_t));
    for (int i = 0; i < N; ++i) CHECK_MPI(MPI_Get_address(&dst[2 * i], &addr[i]));
    CHECK_MPI(MPI_Type_create_hindexed(N, lens, addr, MPI_INT, &get_t));
    CHECK_MPI(MPI_Type_commit(&get_t));
    CHECK_MPI(MPI_Win_fence(0, win));
    CHECK_MPI(MPI_Put(MPI_BOTTOM, 1, abs_t, peer, 0, N, MPI_INT, win));
    CHECK_MPI(MPI_Accumulate(MPI_BOTTOM, 1, abs_t, peer, N, N, MPI_INT, MPI_REPLACE, win));
    CHECK_MPI(MPI_Win_fence(0, win));
    for (int i = 0; i < N; ++i) {
        CHECK(mem[i] == from * 100 + 2 * i, "put from MPI_BOTTOM: [%d] = %d, want %d", i, mem[i], from * 100 + 2 * i);
        CHECK(mem[N + i] == from * 100 + 2 * i, "accumulate from MPI_BOTTOM: [%d] = %d", i, mem[N + i]);
    }
    CHECK_MPI(MPI_Get(MPI_BOTTOM, 1, get_t, peer, 0, N, MPI_INT, win));
    CHECK_MPI(MPI_Win_fence(0, win));
    for (int i = 0; i < N; ++i) {
        CHECK(dst[2 * i] == me * 100 + 2 * i, "get to MPI_BOTTOM: [%d] = %d, want %d", 2 * i, dst[2 * i],
              me * 100 + 2 * i);
        CHECK(dst[2 * i + 1] == -7, "get to MPI_BOTTOM wrote the gap [%d]", 2 * i + 1);
    }
    CHECK_MPI(MPI_Type_free(&abs_t));
    CHECK_MPI(MPI_Type_free(&get_t));
    CHECK_MPI(MPI_Win_free(&win));

    /* shared window: odd ranks give no memory */
    MPI_Comm node;
    CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
    int nr, np;
    MPI_Comm_rank(node, &nr);
    MPI_Comm_size(node, &np);
    int* sbase = NULL;
    CHECK_MPI(MPI_Win_allocate_shared(nr % 2 ? 0 : N * sizeof(int), sizeof(int), MPI_INFO_NULL, node, &sbase,
                                      &win));
    for (int r = 0; r < np; ++r) {
        MPI_Aint sz = -1;
        int du = 0;
        int* b = (int*)&sz;
        CHECK_MPI(MPI_Win_shared_query(win, r, &sz, &du, &b));
        if (r % 2) {
            CHECK(sz == 0 && b == NULL, "shared_query of rank %d (no memory): size %ld base %p", r, (long)sz,
                  (void*)b);
        } else {
            CHECK(sz == (MPI_Aint)(N * sizeof(int)) && b != NULL, "shared_query of rank %d: size %ld base %p", r,
                  (long)sz, (void*)b);
        }
    }
    CHECK_MPI(MPI_Win_free(&win));
    CHECK_MPI(MPI_Comm_free(&node));
    /* self-spin while another origin writes our dynamic-window word */
    CHECK_MPI(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    MPI_Aint* word = NULL;
    CHECK_MPI(MPI_Alloc_mem(sizeof(MPI_Aint), MPI_INFO_NULL, &word));
    *word = 0;
    CHECK_MPI(MPI_Win_attach(win, word, sizeof(MPI_Aint)));
    MPI_Aint where = 0;
    CHECK_MPI(MPI_Get_address(word, &where));
    CHECK_MPI(MPI_Bcast(&where, 1, MPI_AINT, 0, MPI_COMM_WORLD));
    if (me == 1) {
        const MPI_Aint v = 4242;
        MPI_Aint old = -1;
        CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, 0, MPI_MODE_NOCHECK, win));
        CHECK_MPI(MPI_Fetch_and_op(&v, &old, MPI_AINT, 0, where, MPI_REPLACE, win));
        CHECK_MPI(MPI_Win_unlock(0, win));
        CHECK(old == 0, "fetched %ld, want 0", (long)old);
    } else if (me == 0) {
        MPI_Aint seen = 0;
        const double t0 = MPI_Wtime();
        while (seen != 4242) {
            CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, 0, MPI_MODE_NOCHECK, win));
            CHECK_MPI(MPI_Fetch_and_op(NULL, &seen, MPI_AINT, 0, where, MPI_NO_OP, win));
            CHECK_MPI(MPI_Win_unlock(0, win));
            CHECK(MPI_Wtime() - t0 < 20, "rank 1's MPI_Fetch_and_op never reached us (seen %ld)", (long)seen);
        }
    }
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    CHECK_MPI(MPI_Win_detach(win, word));
    CHECK_MPI(MPI_Win_free(&win));
    CHECK_MPI(MPI_Free_mem(word));

    /* exclusive self-locks in a loop while another origin waits for one */
    int* cell = NULL;
    CHECK_MPI(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    CHECK_MPI(MPI_Alloc_mem(sizeof(int), MPI_INFO_NULL, &cell));
    *cell = 0;
    CHECK_MPI(MPI_Win_attach(win, cell, sizeof(int)));
    CHECK_MPI(MPI_Get_address(cell, &where));
    CHECK_MPI(MPI_Bcast(&where, 1, MPI_AINT, 0, MPI_COMM_WORLD));
    if (me == 1) {
        const int v = 77;
        CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
        CHECK_MPI(MPI_Put(&v, 1, MPI_INT, 0, where, 1, MPI_INT, win));
        CHECK_MPI(MPI_Win_unlock(0, win));
    } else if (me == 0) {
        int seen = 0;
        const double t0 = MPI_Wtime();
        while (seen != 77) {
            CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
            CHECK_MPI(MPI_Get(&seen, 1, MPI_INT, 0, where, 1, MPI_INT, win));
            CHECK_MPI(MPI_Win_unlock(0, win));
            CHECK(MPI_Wtime() - t0 < 20, "rank 1's exclusive lock never got in (seen %d)", seen);
        }
    }
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    CHECK_MPI(MPI_Win_detach(win, cell));
    CHECK_MPI(MPI_Win_free(&win));
    CHECK_MPI(MPI_Free_mem(cell));

    MPI_Barrier(MPI_COMM_WORLD);
    if (me == 0) printf("rma_edges: OK\n");
    MPI_Finalize();
    return 0;
}
