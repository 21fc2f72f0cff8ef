/* SPDX-License-Identifier: MIT */
/* Shared-memory windows (MPI_Win_allocate_shared, MPI_Win_shared_query) on
 * a communicator from MPI_Comm_split_type(MPI_COMM_TYPE_SHARED):
 *   - contiguous by default: rank r's memory starts where rank r-1's ends
 *     (sizes differ per rank, some zero), MPI_PROC_NULL queries the first
 *     rank with memory; alloc_shared_noncontig gives every rank its own pages;
 *   - load/store: every rank stores into its neighbour's segment through
 *     the query's pointer, MPI_Win_sync + barrier, the neighbour sees it;
 *     a flag handshake under lock_all with Win_sync only;
 *   - RMA on the same window (put, accumulate, fetch_and_op) agrees with
 *     loads and stores; flavor and model attributes; get_info;
 *   - Win_shared_query on Win_allocate (node peers' memory) and Win_create
 *     (only our own) windows.
 * Argument "split": the job spans nodes (mpiexec -ppn): a shared window on
 * MPI_COMM_WORLD fails with MPI_ERR_RMA_SHARED, the split communicator works. */
#include <stdint.h>

#include "mpitest.h"

static int rank, size;

static void contiguous(MPI_Comm node, int noncontig) {
    int nr, ns;
    MPI_Comm_rank(node, &nr);
    MPI_Comm_size(node, &ns);
    MPI_Info info = MPI_INFO_NULL;
    if (noncontig) {
        MPI_Info_create(&info);
        MPI_Info_set(info, "alloc_shared_noncontig", "true");
    }
    /* rank r: (r % 3) * 24 + 8 bytes, rank 1 of 3+ has none */
    const MPI_Aint mine = (ns > 2 && nr == 1) ? 0 : (MPI_Aint)((nr % 3) * 24 + 8);
    char* base = NULL;
    MPI_Win win;
    CHECK_MPI(MPI_Win_allocate_shared(mine, 1, info, node, &base, &win));
    if (info != MPI_INFO_NULL) MPI_Info_free(&info);
    int* flavor = NULL;
    int* model = NULL;
    int flag = 0;
    CHECK_MPI(MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &flavor, &flag));
    CHECK(flag && *flavor == MPI_WIN_FLAVOR_SHARED, "flavor");
    CHECK_MPI(MPI_Win_get_attr(win, MPI_WIN_MODEL, &model, &flag));
    CHECK(flag && *model == MPI_WIN_UNIFIED, "model");
    char* prev_end = NULL;
    char* first = NULL;
    for (int r = 0; r < ns; ++r) {
        MPI_Aint sz = -1;
        int du = 0;
        char* p = NULL;
        CHECK_MPI(MPI_Win_shared_query(win, r, &sz, &du, &p));
        const MPI_Aint want = (ns > 2 && r == 1) ? 0 : (MPI_Aint)((r % 3) * 24 + 8);
        CHECK(sz == want && du == 1, "query of %d: size %ld disp_unit %d", r, (long)sz, du);
        if (r == nr) CHECK(p == base || sz == 0, "query of myself differs from my base");
        if (sz > 0 && !first) first = p;
        if (!noncontig && prev_end && sz > 0)
            CHECK(p == prev_end, "rank %d's memory does not follow rank %d's", r, r - 1);
        if (noncontig && sz > 0) CHECK(((uintptr_t)p & 4095) == 0, "noncontig: rank %d not on its own page", r);
        if (sz > 0) prev_end = p + sz;
    }
    MPI_Aint sz;
    int du;
    char* p;
    CHECK_MPI(MPI_Win_shared_query(win, MPI_PROC_NULL, &sz, &du, &p));
    CHECK(p == first && sz > 0, "MPI_PROC_NULL query: first rank with memory");
    /* load / store into the right neighbour's segment */
    MPI_Win_lock_all(0, win);
    const int right = (nr + 1) % ns;
    MPI_Aint rs;
    char* rp;
    CHECK_MPI(MPI_Win_shared_query(win, right, &rs, &du, &rp));
    for (MPI_Aint i = 0; i < rs; ++i) rp[i] = (char)(nr * 7 + i);
    CHECK_MPI(MPI_Win_sync(win));
    MPI_Barrier(node);
    CHECK_MPI(MPI_Win_sync(win));
    const int left = (nr + ns - 1) % ns;
    for (MPI_Aint i = 0; i < mine; ++i)
        CHECK(base[i] == (char)(left * 7 + i), "my byte %ld from rank %d: %d", (long)i, left, base[i]);
    MPI_Win_unlock_all(win);
    MPI_Barrier(node);
    CHECK_MPI(MPI_Win_free(&win));
}

/* A flag handshake by load/store and Win_sync only, and RMA on the same
 * window: rank 0 writes a payload then a flag into rank last's segment. */
static void handshake(MPI_Comm node) {
    int nr, ns;
    MPI_Comm_rank(node, &nr);
    MPI_Comm_size(node, &ns);
    long* base;
    MPI_Win win;
    CHECK_MPI(MPI_Win_allocate_shared(64 * sizeof(long), sizeof(long), MPI_INFO_NULL, node, &base, &win));
    for (int i = 0; i < 64; ++i) base[i] = 0;
    MPI_Barrier(node);
    CHECK_MPI(MPI_Win_lock_all(0, win));
    const int last = ns - 1;
    volatile long* lp;
    MPI_Aint sz;
    int du;
    CHECK_MPI(MPI_Win_shared_query(win, last, &sz, &du, (void*)&lp));
    for (int round = 1; round <= 50 && ns > 1; ++round) {
        if (nr == 0) {
            for (int i = 1; i < 32; ++i) lp[i] = round * 1000 + i;
            CHECK_MPI(MPI_Win_sync(win));
            lp[0] = round;
            CHECK_MPI(MPI_Win_sync(win));
            while (lp[40] != round) CHECK_MPI(MPI_Win_sync(win));  /* the answer */
        } else if (nr == last) {
            while (lp[0] != round) CHECK_MPI(MPI_Win_sync(win));
            for (int i = 1; i < 32; ++i) CHECK(lp[i] == round * 1000 + i, "payload [%d] round %d", i, round);
            lp[40] = round;
            CHECK_MPI(MPI_Win_sync(win));
        }
    }
    /* RMA on the shared window, seen by loads */
    long one = 1, old;
    for (int t = 0; t < ns; ++t) {
        CHECK_MPI(MPI_Accumulate(&one, 1, MPI_LONG, t, 50, 1, MPI_LONG, MPI_SUM, win));
        CHECK_MPI(MPI_Fetch_and_op(&one, &old, MPI_LONG, t, 51, MPI_SUM, win));
    }
    const long me = nr;
    CHECK_MPI(MPI_Put(&me, 1, MPI_LONG, (nr + 1) % ns, 52, 1, MPI_LONG, win));
    CHECK_MPI(MPI_Win_flush_all(win));
    MPI_Barrier(node);
    CHECK_MPI(MPI_Win_sync(win));
    CHECK(base[50] == ns && base[51] == ns, "accumulates seen by loads: %ld %ld", base[50], base[51]);
    CHECK(base[52] == (nr + ns - 1) % ns, "put seen by a load: %ld", base[52]);
    CHECK_MPI(MPI_Win_unlock_all(win));
    MPI_Info used;
    char v[MPI_MAX_INFO_VAL + 1];
    int flag = 0;
    CHECK_MPI(MPI_Win_get_info(win, &used));
    CHECK_MPI(MPI_Info_get(used, "alloc_shared_noncontig", MPI_MAX_INFO_VAL, v, &flag));
    CHECK(flag && strcmp(v, "false") == 0, "get_info alloc_shared_noncontig");
    MPI_Info_free(&used);
    MPI_Barrier(node);
    CHECK_MPI(MPI_Win_free(&win));
}

/* Win_shared_query on the other flavors (MPI-4.1). */
static void other_flavors(void) {
    long* mem;
    MPI_Win win;
    CHECK_MPI(MPI_Win_allocate(64, 8, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
    MPI_Aint sz;
    int du;
    long* p;
    CHECK_MPI(MPI_Win_shared_query(win, rank, &sz, &du, &p));
    CHECK(p == mem && sz == 64 && du == 8, "query of my own Win_allocate memory");
    for (int r = 0; r < size; ++r) {
        CHECK_MPI(MPI_Win_shared_query(win, r, &sz, &du, &p));
        CHECK((sz == 0 && p == NULL) || (sz == 64 && p != NULL), "query of rank %d: size %ld", r, (long)sz);
    }
    CHECK_MPI(MPI_Win_free(&win));
    long buf[8];
    CHECK_MPI(MPI_Win_create(buf, sizeof buf, 8, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    CHECK_MPI(MPI_Win_shared_query(win, rank, &sz, &du, &p));
    CHECK(p == buf && sz == (MPI_Aint)sizeof buf, "query of my own Win_create memory");
    CHECK_MPI(MPI_Win_free(&win));
}

int main(int argc, char** argv) {
    mt_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm node;
    CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node));
    if (argc > 1 && strcmp(argv[1], "split") == 0) {
        int ns;
        MPI_Comm_size(node, &ns);
        if (ns < size) {
            MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
            void* b;
            MPI_Win w;
            const int rc = MPI_Win_allocate_shared(64, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &b, &w);
            int cls = -1;
            MPI_Error_class(rc, &cls);
            CHECK(cls == MPI_ERR_RMA_SHARED, "a shared window across nodes: class %d", cls);
        }
    }
    contiguous(node, 0);
    contiguous(node, 1);
    handshake(node);
    other_flavors();
    MPI_Comm_free(&node);
    if (rank == 0) printf("rma_shared: ok\n");
    MPI_Finalize();
    return 0;
}
