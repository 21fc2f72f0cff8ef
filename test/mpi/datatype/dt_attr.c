/* SPDX-License-Identifier: MIT */
/* Attribute caching on datatypes: set/get/delete, the copy callbacks of
 * MPI_Type_dup (user function, MPI_TYPE_DUP_FN, MPI_TYPE_NULL_COPY_FN), the
 * delete callbacks of MPI_Type_free (last set first, with the type still
 * usable inside them), a freed keyval whose attributes outlive it, failing
 * callbacks, predefined types, and bad arguments. Plain C. Where MPI leaves
 * the behaviour open it checks what ch4lite does, as for communicators:
 * deletion order, a failing callback fails the call (MPI 7.7.4: such a call
 * is erroneous; MPICH and Open MPI free the type anyway), a freed keyval
 * handle and deleting an attribute that is not set are MPI_ERR_KEYVAL. */
#include <stdint.h>
#include <string.h>

#include "dtcheck.h"

static int copies = 0, deletes = 0, fail_copy = 0, fail_delete = 0;
static intptr_t deleted[16];
static int size_seen = -1;

static int copy_fn(MPI_Datatype old, int keyval, void* extra, void* in, void* out, int* flag) {
    (void)old, (void)keyval;
    ++copies;
    if (fail_copy) return MPI_ERR_OTHER;
    *(void**)out = (void*)((intptr_t)in + (intptr_t)extra);
    *flag = 1;
    return MPI_SUCCESS;
}

static int delete_fn(MPI_Datatype t, int keyval, void* value, void* extra) {
    (void)keyval, (void)extra;
    if (fail_delete) return MPI_ERR_OTHER;
    if (deletes < 16) deleted[deletes] = (intptr_t)value;
    ++deletes;
    MPI_Type_size(t, &size_seen); /* the type is still usable here */
    return MPI_SUCCESS;
}

static intptr_t get(MPI_Datatype t, int k, int* flag) {
    void* v = NULL;
    OK(MPI_Type_get_attr(t, k, &v, flag));
    return (intptr_t)v;
}

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int k_user, k_dup, k_null, flag = -1;
    OK(MPI_Type_create_keyval(copy_fn, delete_fn, &k_user, (void*)(intptr_t)100));
    OK(MPI_Type_create_keyval(MPI_TYPE_DUP_FN, delete_fn, &k_dup, NULL));
    OK(MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, MPI_TYPE_NULL_DELETE_FN, &k_null, NULL));
    EXPECT(k_user != k_dup && k_dup != k_null && k_user != MPI_KEYVAL_INVALID, "keyvals not distinct");

    MPI_Datatype v, d;
    OK(MPI_Type_vector(3, 2, 4, MPI_INT, &v));
    EXPECT(get(v, k_user, &flag) == 0 && flag == 0, "a new type has no attribute");
    OK(MPI_Type_set_attr(v, k_user, (void*)(intptr_t)1));
    OK(MPI_Type_set_attr(v, k_dup, (void*)(intptr_t)2));
    OK(MPI_Type_set_attr(v, k_null, (void*)(intptr_t)3));
    EXPECT(get(v, k_user, &flag) == 1 && flag == 1, "k_user: %d", flag);
    EXPECT(get(v, k_dup, &flag) == 2 && flag == 1, "k_dup");
    EXPECT(get(v, k_null, &flag) == 3 && flag == 1, "k_null");
    /* setting again deletes the old value first */
    OK(MPI_Type_set_attr(v, k_user, (void*)(intptr_t)5));
    EXPECT(deletes == 1 && deleted[0] == 1, "replacing: %d deletes, value %ld", deletes, (long)deleted[0]);
    EXPECT(get(v, k_user, &flag) == 5 && flag == 1, "replaced value");

    /* dup: user copy (value + extra_state), DUP_FN (same value), NULL_COPY_FN (none) */
    OK(MPI_Type_commit(&v));
    OK(MPI_Type_dup(v, &d));
    EXPECT(copies == 1, "dup made %d user copies", copies);
    EXPECT(get(d, k_user, &flag) == 105 && flag == 1, "dup k_user");
    EXPECT(get(d, k_dup, &flag) == 2 && flag == 1, "dup k_dup");
    get(d, k_null, &flag);
    EXPECT(flag == 0, "NULL_COPY_FN copied");
    EXPECT(get(v, k_user, &flag) == 5, "the original changed");

    /* delete_attr */
    deletes = 0;
    OK(MPI_Type_delete_attr(d, k_dup));
    EXPECT(deletes == 1 && deleted[0] == 2, "delete_attr: %d deletes", deletes);
    get(d, k_dup, &flag);
    EXPECT(flag == 0, "deleted attribute still there");
    EXPECT_CLASS(MPI_Type_delete_attr(d, k_dup), MPI_ERR_KEYVAL);

    /* free: the delete callbacks, last set first, with the type usable */
    OK(MPI_Type_set_attr(d, k_dup, (void*)(intptr_t)7));
    deletes = 0;
    size_seen = -1;
    OK(MPI_Type_free(&d));
    EXPECT(deletes == 2 && deleted[0] == 7 && deleted[1] == 105, "free: %d deletes (%ld, %ld)", deletes,
           (long)deleted[0], (long)deleted[1]);
    EXPECT(size_seen == 24, "MPI_Type_size inside the callback: %d", size_seen);

    /* a freed keyval stays valid while attributes use it (MPI-4.1 §7.7.2:
     * "the actual free does not transpire until after all references ...
     * have been freed"; issue 48): v's attribute can be read, and goes
     * with v below; the keyval goes with it. */
    int k_old = k_dup;
    OK(MPI_Type_free_keyval(&k_dup));
    EXPECT(k_dup == MPI_KEYVAL_INVALID, "free_keyval did not reset the handle");
    void* val = NULL;
    OK(MPI_Type_get_attr(v, k_old, &val, &flag));
    EXPECT(flag == 1 && (intptr_t)val == 2, "attribute of a freed keyval: flag %d", flag);

    /* a failing copy callback: no new type, the copies already made deleted */
    MPI_Datatype w, x = MPI_INT;
    int k_first;
    OK(MPI_Type_create_keyval(MPI_TYPE_DUP_FN, delete_fn, &k_first, NULL));
    OK(MPI_Type_contiguous(2, MPI_INT, &w));
    OK(MPI_Type_set_attr(w, k_first, (void*)(intptr_t)9));
    OK(MPI_Type_set_attr(w, k_user, (void*)(intptr_t)10));
    fail_copy = 1;
    deletes = 0;
    EXPECT(dt_class(MPI_Type_dup(w, &x)) == MPI_ERR_OTHER, "a failing copy callback did not fail MPI_Type_dup");
    EXPECT(x == MPI_DATATYPE_NULL, "MPI_Type_dup set newtype after a failure");
    EXPECT(deletes == 1 && deleted[0] == 9, "the copy made before the failure was not deleted (%d)", deletes);
    fail_copy = 0;

    /* a failing delete callback: MPI_Type_free fails and the type stays */
    fail_delete = 1;
    MPI_Datatype w2 = w;
    EXPECT(dt_class(MPI_Type_free(&w)) == MPI_ERR_OTHER, "a failing delete callback did not fail MPI_Type_free");
    EXPECT(w == w2, "a failed MPI_Type_free changed the handle");
    int sz = 0;
    OK(MPI_Type_size(w, &sz));
    EXPECT(sz == 8, "the type is gone after a failed free");
    fail_delete = 0;
    deletes = 0;
    OK(MPI_Type_free(&w));
    EXPECT(deletes == 2, "free after the failure: %d deletes", deletes);

    /* the attribute of the freed keyval k_old on v is deleted with v */
    deletes = 0;
    OK(MPI_Type_free(&v));
    EXPECT(deletes == 2, "v: %d deletes (k_user and the freed keyval's)", deletes);
    EXPECT_CLASS(MPI_Type_get_attr(MPI_INT, k_old, &val, &flag), MPI_ERR_KEYVAL); /* gone now */

    /* predefined types carry attributes too */
    OK(MPI_Type_set_attr(MPI_DOUBLE, k_null, (void*)(intptr_t)42));
    EXPECT(get(MPI_DOUBLE, k_null, &flag) == 42 && flag == 1, "attribute on MPI_DOUBLE");
    OK(MPI_Type_delete_attr(MPI_DOUBLE, k_null));

    /* errors */
    int kc;
    OK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &kc, NULL));
    EXPECT_CLASS(MPI_Type_set_attr(MPI_INT, kc, NULL), MPI_ERR_KEYVAL); /* a communicator keyval */
    EXPECT_CLASS(MPI_Comm_set_attr(MPI_COMM_SELF, k_user, NULL), MPI_ERR_KEYVAL);
    EXPECT_CLASS(MPI_Type_free_keyval(&kc), MPI_ERR_KEYVAL);
    OK(MPI_Comm_free_keyval(&kc));
    EXPECT_CLASS(MPI_Type_set_attr(MPI_INT, 12345, NULL), MPI_ERR_KEYVAL);
    EXPECT_CLASS(MPI_Type_get_attr(MPI_INT, k_user, &val, NULL), MPI_ERR_ARG);
    EXPECT_CLASS(MPI_Type_get_attr(MPI_INT, k_user, NULL, &flag), MPI_ERR_ARG);
    EXPECT_CLASS(MPI_Type_set_attr(MPI_DATATYPE_NULL, k_user, NULL), MPI_ERR_TYPE);
    EXPECT_CLASS(MPI_Type_create_keyval(copy_fn, delete_fn, NULL, NULL), MPI_ERR_ARG);
    EXPECT_CLASS(MPI_Type_free_keyval(NULL), MPI_ERR_ARG);
    OK(MPI_Type_free_keyval(&k_user));
    OK(MPI_Type_free_keyval(&k_null));
    OK(MPI_Type_free_keyval(&k_first));
    EXPECT_CLASS(MPI_Type_free_keyval(&k_first), MPI_ERR_KEYVAL); /* now MPI_KEYVAL_INVALID */
    return dt_finish("dt_attr");
}
