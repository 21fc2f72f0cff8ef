/* SPDX-License-Identifier: MIT */
/* The deprecated MPI-1 attribute functions MPI-4.1 keeps (section 19.1.2):
 * MPI_Keyval_create / Keyval_free / Attr_put / Attr_get / Attr_delete with
 * MPI_DUP_FN, MPI_NULL_COPY_FN, MPI_NULL_DELETE_FN and user callbacks of
 * the MPI_Copy_function / MPI_Delete_function types, interoperating with
 * the MPI_Comm_ attribute calls; and MPI_Comm_disconnect, which completes
 * the pending operations of a communicator before freeing it (intra- and
 * intercommunicators, eager and large messages, a nonblocking collective,
 * a started persistent receive; inactive persistent requests do not hold it
 * up) and rejects the predefined communicators. */
#include <stdint.h>

#include "mpitest.h"

static int copies = 0, deletes = 0;
static intptr_t last_deleted = -1;

static int copy_fn(MPI_Comm c, int k, void* extra, void* in, void* out, int* flag) {
    (void)c, (void)k;
    ++copies;
    CHECK(extra == (void*)&copies, "extra_state not passed to the copy callback");
    *(void**)out = (void*)((intptr_t)in * 10);
    *flag = 1;
    return MPI_SUCCESS;
}
static int delete_fn(MPI_Comm c, int k, void* v, void* extra) {
    (void)c, (void)k, (void)extra;
    ++deletes;
    last_deleted = (intptr_t)v;
    return MPI_SUCCESS;
}
static int count_delete(MPI_Comm c, int k, void* v, void* extra) {
    (void)c, (void)k, (void)v;
    ++*(int*)extra;
    return MPI_SUCCESS;
}

static intptr_t get(MPI_Comm c, int k, int* flag) {
    void* v = NULL;
    CHECK_MPI(MPI_Attr_get(c, k, &v, flag));
    return (intptr_t)v;
}

/* The call failed with class `want` and a message naming `fn`. */
static void expect_err(int rc, int want, const char* fn, const char* what) {
    int cls = -1, len = 0;
    char msg[MPI_MAX_ERROR_STRING];
    CHECK(rc != MPI_SUCCESS, "%s: succeeded", what);
    MPI_Error_class(rc, &cls);
    CHECK(cls == want, "%s: class %d, expected %d", what, cls, want);
    MPI_Error_string(rc, msg, &len);
#ifdef CH4LITE /* our messages begin with the function's name */
    CHECK(strncmp(msg, fn, strlen(fn)) == 0, "%s: message does not name %s: %s", what, fn, msg);
#else
    (void)fn;
#endif
}

static void attrs(void) {
    int flag = 0;
    /* the predefined attributes through MPI_Attr_get */
    int* pv = NULL;
    CHECK_MPI(MPI_Attr_get(MPI_COMM_WORLD, MPI_TAG_UB, &pv, &flag));
    CHECK(flag && *pv >= 32767, "MPI_TAG_UB via MPI_Attr_get");
    int* pc = NULL;
    CHECK_MPI(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &pc, &flag));
    CHECK(flag && *pc == *pv, "MPI_TAG_UB: MPI_Attr_get %d, MPI_Comm_get_attr %d", *pv, *pc);
    int np = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    CHECK_MPI(MPI_Attr_get(MPI_COMM_WORLD, MPI_HOST, &pv, &flag));
    CHECK(flag && (*pv == MPI_PROC_NULL || (*pv >= 0 && *pv < np)), "MPI_HOST = %d", *pv);
    CHECK_MPI(MPI_Attr_get(MPI_COMM_WORLD, MPI_IO, &pv, &flag));
    CHECK(flag && (*pv == MPI_ANY_SOURCE || *pv == MPI_PROC_NULL || (*pv >= 0 && *pv < np)),
          "MPI_IO = %d", *pv);
    CHECK_MPI(MPI_Attr_get(MPI_COMM_WORLD, MPI_WTIME_IS_GLOBAL, &pv, &flag));
    CHECK(flag && (*pv == 0 || *pv == 1), "MPI_WTIME_IS_GLOBAL: flag %d value %d", flag, *pv);

    /* MPI_DUP_FN copies the value on MPI_Comm_dup, MPI_NULL_COPY_FN does not;
     * callbacks of the MPI-1 types. */
    int kdup, knull, kuser;
    MPI_Copy_function* dupfn = MPI_DUP_FN;
    MPI_Delete_function* nodel = MPI_NULL_DELETE_FN;
    CHECK_MPI(MPI_Keyval_create(dupfn, nodel, &kdup, NULL));
    CHECK_MPI(MPI_Keyval_create(MPI_NULL_COPY_FN, MPI_NULL_DELETE_FN, &knull, NULL));
    CHECK_MPI(MPI_Keyval_create(copy_fn, delete_fn, &kuser, &copies));
    CHECK(kdup != knull && knull != kuser && kdup != MPI_KEYVAL_INVALID, "keyvals not distinct");

    MPI_Comm c;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    (void)get(c, kdup, &flag);
    CHECK(!flag, "MPI_Attr_get: flag set for an attribute never set");
    CHECK_MPI(MPI_Attr_put(c, kdup, (void*)11));
    CHECK_MPI(MPI_Attr_put(c, knull, (void*)22));
    CHECK_MPI(MPI_Attr_put(c, kuser, (void*)3));
    CHECK(get(c, kdup, &flag) == 11 && flag, "kdup value");
    /* the Comm_ calls see the same attributes */
    void* v = NULL;
    CHECK_MPI(MPI_Comm_get_attr(c, knull, &v, &flag));
    CHECK(flag && v == (void*)22, "MPI_Comm_get_attr of an MPI_Attr_put value");
    CHECK_MPI(MPI_Comm_set_attr(c, knull, (void*)23));
    CHECK(get(c, knull, &flag) == 23 && flag, "MPI_Attr_get of an MPI_Comm_set_attr value");

    MPI_Comm d;
    CHECK_MPI(MPI_Comm_dup(c, &d));
    CHECK(get(d, kdup, &flag) == 11 && flag, "MPI_DUP_FN: value not copied");
    (void)get(d, knull, &flag);
    CHECK(!flag, "MPI_NULL_COPY_FN: value copied");
    CHECK(copies == 1 && get(d, kuser, &flag) == 30 && flag, "user copy callback: copies %d",
          copies);

    /* delete callbacks: MPI_Attr_delete, overwrite by MPI_Attr_put, MPI_Comm_free */
    CHECK_MPI(MPI_Attr_delete(c, kuser));
    CHECK(deletes == 1 && last_deleted == 3, "MPI_Attr_delete: deletes %d last %ld", deletes,
          (long)last_deleted);
    (void)get(c, kuser, &flag);
    CHECK(!flag, "attribute still set after MPI_Attr_delete");
    CHECK_MPI(MPI_Attr_put(d, kuser, (void*)40));
    CHECK(deletes == 2 && last_deleted == 30, "overwriting: deletes %d last %ld", deletes,
          (long)last_deleted);
    CHECK_MPI(MPI_Comm_free(&d));
    CHECK(deletes == 3 && last_deleted == 40, "MPI_Comm_free: deletes %d last %ld", deletes,
          (long)last_deleted);

    /* A keyval freed while an attribute uses it keeps working for it; once
     * the attribute is gone, the keyval is invalid. */
    int kuser_saved = kuser;
    CHECK_MPI(MPI_Attr_put(c, kuser, (void*)5));
    CHECK_MPI(MPI_Keyval_free(&kuser));
    CHECK(kuser == MPI_KEYVAL_INVALID, "MPI_Keyval_free did not reset the keyval");
    CHECK(get(c, kuser_saved, &flag) == 5 && flag, "attribute of a freed keyval");
    CHECK_MPI(MPI_Comm_free(&c));
    CHECK(deletes == 4 && last_deleted == 5, "MPI_Comm_free after MPI_Keyval_free: deletes %d",
          deletes);

    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    /* Using a freed keyval is erroneous; we detect it (MPICH does not). */
#ifdef CH4LITE
    expect_err(MPI_Attr_put(MPI_COMM_WORLD, kuser_saved, (void*)1), MPI_ERR_KEYVAL,
               "MPI_Attr_put", "MPI_Attr_put with a freed keyval");
    void* dummy = NULL;
    expect_err(MPI_Attr_get(MPI_COMM_WORLD, kuser_saved, &dummy, &flag), MPI_ERR_KEYVAL,
               "MPI_Attr_get", "MPI_Attr_get with a freed keyval");
    int again = kuser_saved;
    expect_err(MPI_Keyval_free(&again), MPI_ERR_KEYVAL, "MPI_Keyval_free",
               "double MPI_Keyval_free");
#else
    (void)kuser_saved;
#endif
#ifdef CH4LITE /* as our MPI_Comm_delete_attr (MPICH returns success) */
    expect_err(MPI_Attr_delete(MPI_COMM_WORLD, kdup), MPI_ERR_KEYVAL, "MPI_Attr_delete",
               "MPI_Attr_delete of an attribute not set");
#endif
    expect_err(MPI_Attr_put(MPI_COMM_WORLD, MPI_TAG_UB, (void*)1), MPI_ERR_KEYVAL,
               "MPI_Attr_put", "MPI_Attr_put of MPI_TAG_UB");
    expect_err(MPI_Attr_put(MPI_COMM_NULL, kdup, (void*)1), MPI_ERR_COMM, "MPI_Attr_put",
               "MPI_Attr_put on MPI_COMM_NULL");
    expect_err(MPI_Keyval_create(MPI_NULL_COPY_FN, MPI_NULL_DELETE_FN, NULL, NULL), MPI_ERR_ARG,
               "MPI_Keyval_create", "MPI_Keyval_create with a NULL keyval");
    int pre = MPI_TAG_UB;
    expect_err(MPI_Keyval_free(&pre), MPI_ERR_KEYVAL, "MPI_Keyval_free", "freeing MPI_TAG_UB");
    /* keyvals of either family free with either call */
    CHECK_MPI(MPI_Comm_free_keyval(&kdup));
    CHECK_MPI(MPI_Keyval_free(&knull));
    int kc;
    CHECK_MPI(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &kc, NULL));
    CHECK_MPI(MPI_Attr_put(MPI_COMM_SELF, kc, (void*)7));
    CHECK(get(MPI_COMM_SELF, kc, &flag) == 7 && flag, "MPI_Attr_get of a Comm_ keyval");
    CHECK_MPI(MPI_Attr_delete(MPI_COMM_SELF, kc));
    CHECK_MPI(MPI_Keyval_free(&kc));
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL);
}

enum { NSMALL = 8, BIG = 1 << 20 };

/* Pending operations on c between ranks `me` and `peer` (peer may be
 * MPI_PROC_NULL), then MPI_Comm_disconnect; every request must be complete
 * right after it. */
static void disconnect_pending(MPI_Comm c, int me_in_c, int peer, int seed) {
    MPI_Request rq[2 * NSMALL + 4];
    int n = 0;
    int sbuf[NSMALL], rbuf[NSMALL];
    unsigned char* sbig = malloc(BIG);
    unsigned char* rbig = malloc(BIG);
    CHECK(sbig && rbig, "out of memory");
    mt_fill(sbig, BIG, seed + me_in_c);
    memset(rbig, 0, BIG);
    for (int i = 0; i < NSMALL; ++i) {
        sbuf[i] = seed * 100 + i;
        rbuf[i] = -1;
    }
    /* receives first on one side, sends first on the other: both orders */
    for (int i = 0; i < NSMALL; ++i) {
        CHECK_MPI(MPI_Irecv(&rbuf[i], 1, MPI_INT, peer, i, c, &rq[n++]));
        CHECK_MPI(MPI_Isend(&sbuf[i], 1, MPI_INT, peer, i, c, &rq[n++]));
    }
    CHECK_MPI(MPI_Issend(sbig, BIG, MPI_BYTE, peer, 99, c, &rq[n++]));
    CHECK_MPI(MPI_Irecv(rbig, BIG, MPI_BYTE, peer, 99, c, &rq[n++]));

    int kcount = 0, key;
    CHECK_MPI(MPI_Keyval_create(MPI_NULL_COPY_FN, count_delete, &key, &kcount));
    CHECK_MPI(MPI_Attr_put(c, key, (void*)1));

    MPI_Comm h = c;
    CHECK_MPI(MPI_Comm_disconnect(&h));
    CHECK(h == MPI_COMM_NULL, "MPI_Comm_disconnect did not set the handle to MPI_COMM_NULL");
    CHECK(kcount == 1, "MPI_Comm_disconnect ran %d delete callbacks, expected 1", kcount);
    CHECK_MPI(MPI_Keyval_free(&key));

    int done = 0;
    MPI_Status st[2 * NSMALL + 4];
    CHECK_MPI(MPI_Testall(n, rq, &done, st));
    CHECK(done, "requests still pending after MPI_Comm_disconnect");
    if (peer != MPI_PROC_NULL) {
        for (int i = 0; i < NSMALL; ++i)
            CHECK(rbuf[i] == seed * 100 + i, "message %d: %d", i, rbuf[i]);
        size_t bad = mt_verify(rbig, BIG, seed + (me_in_c ^ 1));
        CHECK(bad == 0, "large message: byte %zu wrong", bad - 1);
    }
    free(sbig);
    free(rbig);
}

static void disconnect(int me, int np) {
    /* intracommunicator: pairs (0,1), (2,3), ...; an odd last rank talks to
     * MPI_PROC_NULL */
    MPI_Comm c;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    int peer = (me ^ 1) < np ? (me ^ 1) : MPI_PROC_NULL;
    disconnect_pending(c, me, peer, 1);

    /* a pending nonblocking collective and a started persistent receive */
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    int in = me + 1, out = 0;
    MPI_Request ar;
    CHECK_MPI(MPI_Iallreduce(&in, &out, 1, MPI_INT, MPI_SUM, c, &ar));
    /* large, so that the sender's completion needs the receive posted: a
     * receive MPI_Start left armed (not yet posted) must be posted by the
     * disconnect, or both sides wait for each other */
    unsigned char* pbuf = calloc(BIG, 1);
    unsigned char* sbuf = malloc(BIG);
    CHECK(pbuf && sbuf, "out of memory");
    mt_fill(sbuf, BIG, 50 + me);
    MPI_Request pr = MPI_REQUEST_NULL, sr = MPI_REQUEST_NULL;
    const int to = (me + 1) % np, from = (me + np - 1) % np;
    CHECK_MPI(MPI_Recv_init(pbuf, BIG, MPI_BYTE, from, 5, c, &pr));
    CHECK_MPI(MPI_Start(&pr));
    CHECK_MPI(MPI_Isend(sbuf, BIG, MPI_BYTE, to, 5, c, &sr));
    /* inactive persistent requests are not pending communication */
    MPI_Request idle_coll, idle_p2p;
    CHECK_MPI(MPI_Barrier_init(c, MPI_INFO_NULL, &idle_coll));
    CHECK_MPI(MPI_Send_init(&in, 1, MPI_INT, to, 6, c, &idle_p2p));
    CHECK_MPI(MPI_Comm_disconnect(&c));
    CHECK_MPI(MPI_Request_free(&idle_coll));
    CHECK_MPI(MPI_Request_free(&idle_p2p));
    int flag = 0;
    CHECK_MPI(MPI_Test(&ar, &flag, MPI_STATUS_IGNORE));
    CHECK(flag && out == np * (np + 1) / 2, "Iallreduce after disconnect: flag %d sum %d", flag,
          out);
    flag = 0;
    CHECK_MPI(MPI_Test(&sr, &flag, MPI_STATUS_IGNORE));
    CHECK(flag, "send still pending after disconnect");
    flag = 0;
    CHECK_MPI(MPI_Test(&pr, &flag, MPI_STATUS_IGNORE));
    const size_t bad = mt_verify(pbuf, BIG, 50 + from);
    CHECK(flag && bad == 0, "persistent receive after disconnect: flag %d, byte %zu wrong", flag,
          bad - 1);
    free(pbuf);
    free(sbuf);
    CHECK_MPI(MPI_Request_free(&pr));

    /* intercommunicator: even ranks against odd ranks */
    if (np >= 2) {
        MPI_Comm half, ic;
        CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, me % 2, me, &half));
        CHECK_MPI(MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, me % 2 ? 0 : 1, 7, &ic));
        int lr, rs;
        MPI_Comm_rank(half, &lr);
        MPI_Comm_remote_size(ic, &rs);
        disconnect_pending(ic, me % 2, lr < rs ? lr : MPI_PROC_NULL, 2);
        CHECK_MPI(MPI_Comm_free(&half));
    }

    /* errors */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    MPI_Comm w = MPI_COMM_WORLD, s = MPI_COMM_SELF, nul = MPI_COMM_NULL;
    expect_err(MPI_Comm_disconnect(&w), MPI_ERR_COMM, "MPI_Comm_disconnect", "MPI_COMM_WORLD");
    CHECK(w == MPI_COMM_WORLD, "handle changed by a failed disconnect");
    expect_err(MPI_Comm_disconnect(&s), MPI_ERR_COMM, "MPI_Comm_disconnect", "MPI_COMM_SELF");
    expect_err(MPI_Comm_disconnect(&nul), MPI_ERR_COMM, "MPI_Comm_disconnect", "MPI_COMM_NULL");
    expect_err(MPI_Comm_disconnect(NULL), MPI_ERR_ARG, "MPI_Comm_disconnect", "NULL handle");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char** argv) {
    mt_init(&argc, &argv);
    int me, np;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    attrs();
    disconnect(me, np);
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == 0) printf("attr_deprecated: OK\n");
    MPI_Finalize();
    return 0;
}
