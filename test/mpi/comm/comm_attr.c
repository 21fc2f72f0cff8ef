/* SPDX-License-Identifier: MIT */
/* Attribute caching: keyvals with copy / delete callbacks, the ABI's
 * MPI_COMM_DUP_FN / MPI_COMM_NULL_COPY_FN / MPI_COMM_NULL_DELETE_FN
 * sentinels, overwrite and delete semantics, callbacks that fail, keyvals
 * freed while attributes remain, and the predefined attributes. */
#include <stdint.h>

#include "mpitest.h"

static int copies = 0, deletes = 0;
static intptr_t last_deleted = -1;
static int fail_copy = 0, fail_delete = 0;
static int order[16], norder = 0;

static int copy_fn(MPI_Comm c, int k, void* extra, void* in, void* out, int* flag) {
    (void)c, (void)k;
    ++copies;
    CHECK(extra == (void*)&copies, "extra_state not passed to the copy callback");
    if (fail_copy) return MPI_ERR_OTHER;
    *(void**)out = (void*)((intptr_t)in + 1);
    *flag = ((intptr_t)in % 2) == 0; /* odd values are not copied */
    return MPI_SUCCESS;
}
static int delete_fn(MPI_Comm c, int k, void* v, void* extra) {
    (void)c, (void)k, (void)extra;
    ++deletes;
    last_deleted = (intptr_t)v;
    if (norder < 16) order[norder++] = (int)(intptr_t)v;
    return fail_delete ? MPI_ERR_OTHER : MPI_SUCCESS;
}

static intptr_t get(MPI_Comm c, int k, int* flag) {
    void* v = NULL;
    CHECK_MPI(MPI_Comm_get_attr(c, k, &v, flag));
    return (intptr_t)v;
}

int main(int argc, char** argv) {
    mt_init(&argc, &argv);
    int me, np, flag;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);

    /* predefined attributes, on any communicator */
    int* pv = NULL;
    CHECK_MPI(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &pv, &flag));
    CHECK(flag && *pv == (1 << 24) - 1, "MPI_TAG_UB = %d", flag ? *pv : -1);
    CHECK_MPI(MPI_Comm_get_attr(MPI_COMM_SELF, MPI_TAG_UB, &pv, &flag));
    CHECK(flag && *pv >= 32767, "MPI_TAG_UB on MPI_COMM_SELF");
    CHECK_MPI(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, &pv, &flag));
    CHECK(flag && *pv == np, "MPI_UNIVERSE_SIZE = %d", *pv);
    CHECK_MPI(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &pv, &flag));
    CHECK(flag && *pv == 0, "MPI_APPNUM = %d", *pv);
    CHECK_MPI(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_HOST, &pv, &flag));
    CHECK(flag && (*pv == MPI_PROC_NULL || (*pv >= 0 && *pv < np)), "MPI_HOST = %d", *pv);
    CHECK_MPI(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_WTIME_IS_GLOBAL, &pv, &flag));
    CHECK(flag && (*pv == 0 || *pv == 1), "MPI_WTIME_IS_GLOBAL = %d", *pv);
    CHECK_MPI(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_IO, &pv, &flag));
    CHECK(flag, "MPI_IO");

    int kv, kdup, knull;
    CHECK_MPI(MPI_Comm_create_keyval(copy_fn, delete_fn, &kv, &copies));
    CHECK_MPI(MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, &kdup, NULL));
    CHECK_MPI(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_fn, &knull, NULL));
    CHECK(kv != kdup && kv != MPI_KEYVAL_INVALID && kv != MPI_TAG_UB, "keyval values");

    MPI_Comm c1, c2, c3;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &c1));
    get(c1, kv, &flag);
    CHECK(!flag, "a fresh communicator has no attribute");
    CHECK_MPI(MPI_Comm_set_attr(c1, kv, (void*)100));
    CHECK_MPI(MPI_Comm_set_attr(c1, kdup, (void*)7));
    CHECK_MPI(MPI_Comm_set_attr(c1, knull, (void*)9));
    CHECK(get(c1, kv, &flag) == 100 && flag, "get after set");
    /* overwrite: the old value's delete callback runs */
    CHECK_MPI(MPI_Comm_set_attr(c1, kv, (void*)200));
    CHECK(deletes == 1 && last_deleted == 100, "overwrite deletes the old value (%d, %ld)", deletes, (long)last_deleted);
    /* dup: kv copied as value+1, kdup copied as is, knull not copied */
    CHECK_MPI(MPI_Comm_dup(c1, &c2));
    CHECK(copies == 1, "copy callback calls: %d", copies);
    CHECK(get(c2, kv, &flag) == 201 && flag, "copied value");
    CHECK(get(c2, kdup, &flag) == 7 && flag, "MPI_COMM_DUP_FN copies the value");
    get(c2, knull, &flag);
    CHECK(!flag, "MPI_COMM_NULL_COPY_FN does not copy");
    /* an odd value: the callback says flag = 0 */
    CHECK_MPI(MPI_Comm_set_attr(c2, kv, (void*)301));
    CHECK_MPI(MPI_Comm_dup(c2, &c3));
    get(c3, kv, &flag);
    CHECK(!flag, "copy callback returned flag = 0");
    CHECK_MPI(MPI_Comm_free(&c3));
    /* delete_attr */
    deletes = 0;
    CHECK_MPI(MPI_Comm_delete_attr(c2, kv));
    CHECK(deletes == 1 && last_deleted == 301, "delete_attr runs the callback");
    get(c2, kv, &flag);
    CHECK(!flag, "deleted attribute still there");
    /* free the keyval while c1 still has an attribute under it */
    const int kv_saved = kv;
    CHECK_MPI(MPI_Comm_free_keyval(&kv));
    CHECK(kv == MPI_KEYVAL_INVALID, "free_keyval did not reset the handle");
    /* Comm_free runs the remaining delete callbacks, last set first */
    deletes = 0, norder = 0;
    CHECK_MPI(MPI_Comm_free(&c1));
    CHECK(deletes == 2, "free ran %d delete callbacks", deletes);
    CHECK(order[0] == 9 && order[1] == 200, "delete order %d %d", order[0], order[1]);
    (void)kv_saved;

    /* a failing delete callback fails Comm_free, which leaves the communicator */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(c2, MPI_ERRORS_RETURN);
    CHECK_MPI(MPI_Comm_set_attr(c2, knull, (void*)11));
    fail_delete = 1;
    int rc = MPI_Comm_free(&c2), cls;
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_OTHER && c2 != MPI_COMM_NULL, "failing delete callback: class %d", cls);
    fail_delete = 0;
    CHECK_MPI(MPI_Comm_free(&c2));
    /* a failing copy callback fails Comm_dup */
    int kf;
    CHECK_MPI(MPI_Comm_create_keyval(copy_fn, MPI_COMM_NULL_DELETE_FN, &kf, &copies));
    MPI_Comm_set_attr(MPI_COMM_WORLD, kf, (void*)2);
    fail_copy = 1;
    rc = MPI_Comm_dup(MPI_COMM_WORLD, &c3);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_OTHER && c3 == MPI_COMM_NULL, "failing copy callback: class %d", cls);
    fail_copy = 0;
    CHECK_MPI(MPI_Comm_delete_attr(MPI_COMM_WORLD, kf));
    CHECK_MPI(MPI_Comm_free_keyval(&kf));

    /* errors */
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    rc = MPI_Comm_set_attr(MPI_COMM_WORLD, MPI_TAG_UB, (void*)1);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_KEYVAL, "setting MPI_TAG_UB: class %d", cls);
    int bad = MPI_TAG_UB;
    rc = MPI_Comm_free_keyval(&bad);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_KEYVAL, "freeing MPI_TAG_UB: class %d", cls);
    rc = MPI_Comm_get_attr(MPI_COMM_WORLD, 0x12345, &pv, &flag);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_KEYVAL, "garbage keyval: class %d", cls);
    rc = MPI_Comm_set_attr(MPI_COMM_WORLD, kv_saved, (void*)1);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_KEYVAL, "freed keyval: class %d", cls);
    rc = MPI_Comm_delete_attr(MPI_COMM_WORLD, kdup);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_KEYVAL, "deleting an attribute that is not set: class %d", cls);
    rc = MPI_Comm_set_attr(MPI_COMM_NULL, kdup, (void*)1);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_COMM, "MPI_COMM_NULL: class %d", cls);
    CHECK_MPI(MPI_Comm_free_keyval(&kdup));
    CHECK_MPI(MPI_Comm_free_keyval(&knull));
    MPI_Finalize();
    return 0;
}
