/* SPDX-License-Identifier: MIT */
/* Out of memory in the functions that create communicators, groups, ops,
 * keyvals and attributes, error handlers, names, windows and point-to-point
 * requests: the k-th allocation of a call fails, for every k until the call
 * needs no more. Under MPI_ERRORS_RETURN each call must return MPI_SUCCESS
 * or an error (never crash, abort or hang), and the library must stay
 * usable afterwards.
 *
 * Local calls: every rank fails its own allocations; the class must be
 * MPI_ERR_NO_MEM. Collective creations (Comm_dup, Comm_split, Win_create,
 * Win_allocate): only the last rank fails an allocation, and every rank must
 * reach the same outcome: all succeed, or all fail, the last rank with
 * MPI_ERR_NO_MEM. A creation that succeeded on some ranks only would leave
 * the others waiting in the next collective on it. Then Put, Get and
 * Accumulate in fence epochs fail on every rank (rma_ops), and the last rank
 * asks Win_allocate for more memory than exists: every rank must fail.
 *
 * The failures come from nomem.h (it replaces malloc; only the main
 * thread's allocations fail). ch4lite only. */
#include "mpitest.h"
#include "nomem.h"

static int cls(int rc) {
    int c = rc;
    MPI_Error_class(rc, &c);
    return c;
}

static int me, np;

/* ---- local calls: create and free one object ------------------------- */
static int l_comm_group(void) {
    MPI_Group g;
    int rc = MPI_Comm_group(MPI_COMM_WORLD, &g);
    if (rc == MPI_SUCCESS) MPI_Group_free(&g);
    return rc;
}
static MPI_Group world_group; /* made before any failure is armed */
static int l_group_incl(void) {
    MPI_Group g;
    int r[2] = {np - 1, 0};
    int rc = MPI_Group_incl(world_group, np > 1 ? 2 : 1, r, &g);
    if (rc == MPI_SUCCESS) MPI_Group_free(&g);
    return rc;
}
static int l_group_union(void) {
    MPI_Group a, u;
    int r0 = np - 1;
    int rc = MPI_Group_incl(world_group, 1, &r0, &a);
    if (rc == MPI_SUCCESS) {
        rc = MPI_Group_union(a, world_group, &u);
        if (rc == MPI_SUCCESS) MPI_Group_free(&u);
        MPI_Group_free(&a);
    }
    return rc;
}
static void sum_fn(void* in, void* inout, int* len, MPI_Datatype* t) {
    (void)t;
    for (int i = 0; i < *len; ++i) ((int*)inout)[i] += ((int*)in)[i];
}
static int l_op_create(void) {
    MPI_Op op;
    int rc = MPI_Op_create(sum_fn, 1, &op);
    if (rc == MPI_SUCCESS) MPI_Op_free(&op);
    return rc;
}
static int l_keyval_attr(void) {
    int kv, rc = MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &kv, NULL);
    if (rc != MPI_SUCCESS) return rc;
    rc = MPI_Comm_set_attr(MPI_COMM_SELF, kv, &kv);
    if (rc == MPI_SUCCESS) MPI_Comm_delete_attr(MPI_COMM_SELF, kv);
    MPI_Comm_free_keyval(&kv);
    return rc;
}
static void eh_fn(MPI_Comm* c, int* code, ...) { (void)c, (void)code; }
static int l_errhandler(void) {
    MPI_Errhandler e;
    int rc = MPI_Comm_create_errhandler(eh_fn, &e);
    if (rc == MPI_SUCCESS) MPI_Errhandler_free(&e);
    return rc;
}
static int l_comm_name(void) {
    return MPI_Comm_set_name(MPI_COMM_SELF, "a communicator name longer than any short string");
}
static int l_self_message(void) {
    int x = 42, y = 0;
    MPI_Request r[2];
    int rc = MPI_Irecv(&y, 1, MPI_INT, 0, 5, MPI_COMM_SELF, &r[0]);
    if (rc != MPI_SUCCESS) return rc;
    rc = MPI_Isend(&x, 1, MPI_INT, 0, 5, MPI_COMM_SELF, &r[1]);
    if (rc != MPI_SUCCESS) {
        MPI_Cancel(&r[0]);
        MPI_Wait(&r[0], MPI_STATUS_IGNORE);
        return rc;
    }
    rc = MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
    CHECK(rc != MPI_SUCCESS || y == 42, "self message: received %d, sent 42", y);
    return rc;
}

/* ---- collective creations: create, use, free --------------------------- */
static int c_dup(void) {
    MPI_Comm c;
    int rc = MPI_Comm_dup(MPI_COMM_WORLD, &c);
    if (rc == MPI_SUCCESS) MPI_Comm_free(&c);
    return rc;
}
static int c_split(void) {
    MPI_Comm c;
    int rc = MPI_Comm_split(MPI_COMM_WORLD, me % 2, np - me, &c);
    if (rc == MPI_SUCCESS) MPI_Comm_free(&c);
    return rc;
}
static int c_win_create(void) {
    static int buf[8];
    MPI_Win w;
    int rc = MPI_Win_create(buf, sizeof buf, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &w);
    if (rc == MPI_SUCCESS) MPI_Win_free(&w);
    return rc;
}
static int c_win_allocate(void) {
    int* base = NULL;
    MPI_Win w;
    int rc = MPI_Win_allocate(64, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &w);
    if (rc == MPI_SUCCESS) MPI_Win_free(&w);
    return rc;
}

typedef int (*call_fn)(void);
struct call {
    const char* name;
    call_fn fn;
};

/* The created object works: a dup'ed communicator carries a reduction, a
 * window a put between fences. */
static void still_usable(void) {
    MPI_Comm c;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    int one = 1, sum = 0;
    CHECK_MPI(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, c));
    CHECK(sum == np, "allreduce on a new communicator: %d, want %d", sum, np);
    CHECK_MPI(MPI_Comm_free(&c));
    int* base = NULL;
    MPI_Win w;
    CHECK_MPI(MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &w));
    *base = -1;
    CHECK_MPI(MPI_Win_fence(0, w));
    CHECK_MPI(MPI_Put(&me, 1, MPI_INT, (me + 1) % np, 0, 1, MPI_INT, w));
    CHECK_MPI(MPI_Win_fence(0, w));
    CHECK(*base == (me + np - 1) % np, "put through a new window: %d, want %d", *base,
          (me + np - 1) % np);
    CHECK_MPI(MPI_Win_free(&w));
}

/* RMA operations in fence epochs: every rank fails the k-th allocation of
 * its own Put / Get / Accumulate (the fences are not armed). An operation
 * that fails must say MPI_ERR_NO_MEM and leave the epoch intact; one that
 * succeeded must have moved its data. */
static void rma_ops(void) {
    enum { n = 64 };
    static int wbuf[n];
    MPI_Win w;
    CHECK_MPI(MPI_Win_create(wbuf, sizeof wbuf, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &w));
    const int to = (me + 1) % np, from = (me + np - 1) % np;
    const char* names[3] = {"Put", "Get", "Accumulate"};
    int src[n], dst[n];
    for (int op = 0; op < 3; ++op) {
        long k = 0, nomem = 0;
        for (;; ++k) {
            for (int i = 0; i < n; ++i) wbuf[i] = -1, src[i] = me * 1000 + i, dst[i] = -2;
            CHECK_MPI(MPI_Win_fence(0, w));
            arm(k);
            int rc = MPI_SUCCESS;
            if (op == 0) rc = MPI_Put(src, n, MPI_INT, to, 0, n, MPI_INT, w);
            if (op == 1) rc = MPI_Get(dst, n, MPI_INT, to, 0, n, MPI_INT, w);
            if (op == 2) rc = MPI_Accumulate(src, n, MPI_INT, to, 0, n, MPI_INT, MPI_SUM, w);
            long hit = failed;
            disarm();
            CHECK(rc == MPI_SUCCESS || cls(rc) == MPI_ERR_NO_MEM,
                  "%s, allocation %ld failing: class %d, want success or MPI_ERR_NO_MEM", names[op],
                  k, cls(rc));
            nomem += rc != MPI_SUCCESS;
            CHECK_MPI(MPI_Win_fence(0, w));
            int ok = rc == MPI_SUCCESS, ok_from = 0;
            CHECK_MPI(MPI_Sendrecv(&ok, 1, MPI_INT, to, 9, &ok_from, 1, MPI_INT, from, 9,
                                   MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            for (int i = 0; i < n; ++i) {
                const int want = op == 1 || !ok_from ? -1 : op == 0 ? from * 1000 + i : from * 1000 + i - 1;
                CHECK(wbuf[i] == want, "%s, allocation %ld failing: window[%d] = %d, want %d",
                      names[op], k, i, wbuf[i], want);
                CHECK(op != 1 || dst[i] == (ok ? -1 : -2), "Get, allocation %ld failing: got[%d] = %d",
                      k, i, dst[i]);
            }
            CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, &hit, 1, MPI_LONG, MPI_MAX, MPI_COMM_WORLD));
            if (!hit) break;
        }
        if (me == 0)
            printf("%s in an epoch: %ld allocations failed in turn, %ld reported MPI_ERR_NO_MEM on rank 0\n",
                   names[op], k, nomem);
    }
    CHECK_MPI(MPI_Win_free(&w));
}

int main(int argc, char** argv) {
    nomem_init();
    mt_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    CHECK_MPI(MPI_Comm_group(MPI_COMM_WORLD, &world_group));

    const struct call local[] = {{"Comm_group", l_comm_group},   {"Group_incl", l_group_incl},
                                 {"Group_union", l_group_union}, {"Op_create", l_op_create},
                                 {"keyval+attr", l_keyval_attr}, {"Comm_create_errhandler", l_errhandler},
                                 {"Comm_set_name", l_comm_name}, {"Isend/Irecv to self", l_self_message}};
    for (size_t c = 0; c < sizeof local / sizeof local[0]; ++c) {
        long k = 0, nomem = 0;
        for (;; ++k) {
            arm(k);
            const int rc = local[c].fn();
            const long hit = failed;
            disarm();
            CHECK(rc == MPI_SUCCESS || cls(rc) == MPI_ERR_NO_MEM,
                  "%s, allocation %ld failing: class %d, want success or MPI_ERR_NO_MEM",
                  local[c].name, k, cls(rc));
            nomem += rc != MPI_SUCCESS;
            if (!hit) break;
        }
        CHECK(local[c].fn() == MPI_SUCCESS, "%s fails after the out-of-memory rounds", local[c].name);
        if (me == 0)
            printf("%s: %ld allocations failed in turn, %ld reported MPI_ERR_NO_MEM\n", local[c].name,
                   k, nomem);
    }

    const struct call coll[] = {{"Comm_dup", c_dup},
                                {"Comm_split", c_split},
                                {"Win_create", c_win_create},
                                {"Win_allocate", c_win_allocate}};
    const int victim = np - 1;
    for (size_t c = 0; c < sizeof coll / sizeof coll[0]; ++c) {
        long k = 0, fails = 0;
        for (;; ++k) {
            if (me == victim) arm(k);
            const int rc = coll[c].fn();
            long hit = failed;
            disarm();
            const int mine = rc != MPI_SUCCESS;
            int any = 0, all = 0;
            CHECK_MPI(MPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
            CHECK_MPI(MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD));
            CHECK(any == all, "%s, allocation %ld of rank %d failing: it failed on some ranks only",
                  coll[c].name, k, victim);
            if (me == victim)
                CHECK(rc == MPI_SUCCESS || cls(rc) == MPI_ERR_NO_MEM,
                      "%s, allocation %ld failing: class %d, want success or MPI_ERR_NO_MEM",
                      coll[c].name, k, cls(rc));
            fails += any;
            CHECK_MPI(MPI_Bcast(&hit, 1, MPI_LONG, victim, MPI_COMM_WORLD));
            if (!hit) break;
        }
        CHECK(fails > 0, "%s: no allocation failure was reported (%ld tried)", coll[c].name, k);
        still_usable();
        if (me == 0)
            printf("%s: %ld allocations of rank %d failed in turn, %ld creations failed everywhere\n",
                   coll[c].name, k, victim, fails);
    }
    rma_ops();
    {
        /* The last rank's window memory cannot be had: every rank fails. */
        const MPI_Aint size = me == victim ? (MPI_Aint)1 << 60 : 64;
        int* base = NULL;
        MPI_Win w = MPI_WIN_NULL;
        const int rc = MPI_Win_allocate(size, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &w);
        CHECK(rc != MPI_SUCCESS && w == MPI_WIN_NULL,
              "Win_allocate with 2^60 bytes on rank %d: rank %d returned %d", victim, me, rc);
        CHECK(me != victim || cls(rc) == MPI_ERR_NO_MEM, "Win_allocate of 2^60 bytes: class %d, want MPI_ERR_NO_MEM", cls(rc));
        still_usable();
        if (me == 0) printf("Win_allocate: 2^60 bytes on rank %d failed on every rank\n", victim);
    }
    MPI_Group_free(&world_group);
    MPI_Finalize();
    if (me == 0) printf("obj_nomem: ok\n");
    return 0;
}
