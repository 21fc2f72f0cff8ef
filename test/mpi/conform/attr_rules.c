/* SPDX-License-Identifier: MIT */
/* The attribute-caching chapter (MPI-4.1 §7.7) rule by rule, on
 * communicators, datatypes and windows. Each rule is checked by the block
 * of main() that carries its tag. Rules marked * failed before issue 48.
 *
 * | tag | rule (MPI-4.1 text, §7.7 unless noted)                                | check                                      |
 * |-----|-----------------------------------------------------------------------|--------------------------------------------|
 * | A1  | keys are locally unique, never MPI_KEYVAL_INVALID                     | 3 keyvals per kind differ, != INVALID      |
 * | A2  | get_attr of a key with no attribute on the object: flag = false       | fresh comm/type/win                        |
 * | A3  | set_attr of a present value: as if delete_attr ran first (callback)   | overwrite runs the old value's callback    |
 * | A4  | copy callback at MPI_Comm_dup / Type_dup (Comm_idup: not in ch4lite   | copied value+1, odd value not copied       |
 * |     | yet); flag 0: not copied                                              |                                            |
 * | A5  | *_DUP_FN copies the value, *_NULL_COPY_FN copies nothing              | comm and type                              |
 * | A6  | attributes are not propagated except by dup (split, create: none)     | Comm_split / Comm_create / Type_contiguous |
 * | A7  | delete callback at *_FREE and *_DELETE_ATTR                           | comm, type, win                            |
 * | A8* | free_keyval sets INVALID; a key in use stays valid: get, set and      | comm, type, win (delete after free,        |
 * |     | delete work, the callbacks run, it goes with its last attribute       | free after free, keyval gone at the end)   |
 * | A9* | Type_dup copies attributes of a freed type keyval                     | copy callback runs, dup has the value      |
 * | A10*| a callback's error fails the call (Comm_dup/free/set/delete_attr,     | the callback's own code is returned,       |
 * |     | Type_dup/free/set/delete_attr, Win_free/set/delete_attr)              | class and message                          |
 * | A11*| a delete callback may delete other attributes of its object          | comm (free, delete_attr), type, win; no    |
 * |     | (not defined by the standard; never corrupts)                        | heap corruption, each callback once        |
 * | A12 | a copy callback may delete attributes of the object being copied      | the deleted one is not copied              |
 * | A13 | MPI_ERR_KEYVAL: invalid key (garbage, INVALID, stale, other kind:     | every call of every kind                   |
 * |     | "advice to implementors: raise an error ... wrong type")              |                                            |
 * | A14 | predefined attributes (§9.1.2; §12.2.6): cannot be set, deleted, or   | MPI_TAG_UB, MPI_WIN_BASE                   |
 * |     | their keys freed                                                      |                                            |
 * | A15 | attributes on predefined datatypes (MPI_INT) are allowed              | set, get, delete on MPI_INT                |
 * | A16 | extra_state is passed to every callback                               | every callback checks it                   |
 * | A17 | MPI_Comm_free of a failed delete: the call fails (erroneous)          | communicator stays valid, freed later      |
 * Attributes of MPI_COMM_SELF at MPI_Finalize (§11.2.4): finalize_self.c. */
#include <stdint.h>

#include "mpitest.h"

#define MY_ERR 0x7f00 /* a code no MPI function returns */
static int copies, deletes, fail_code;
static int xs; /* extra_state target */
static int order[64], norder;
static int k_other = MPI_KEYVAL_INVALID; /* deleted by del_other */

static int cls_of(int rc) {
    int c = -1;
    if (MPI_Error_class(rc, &c) != MPI_SUCCESS) return -1;
    return c;
}
#define EXPECT_CLASS(call, want, what)                                                        \
    do {                                                                                      \
        int rc_ = (call);                                                                     \
        CHECK(cls_of(rc_) == (want), "%s: class %d (code %d), expected %d", what, cls_of(rc_), \
              rc_, (want));                                                                   \
    } while (0)

/* Communicator callbacks. */
static int ccopy(MPI_Comm c, int k, void* extra, void* in, void* out, int* flag) {
    (void)c, (void)k;
    CHECK(extra == &xs, "A16 comm copy: extra_state");
    ++copies;
    if (fail_code) return fail_code;
    *(void**)out = (void*)((intptr_t)in + 1);
    *flag = ((intptr_t)in % 2) == 0;
    return MPI_SUCCESS;
}
static int cdel(MPI_Comm c, int k, void* v, void* extra) {
    (void)c, (void)k;
    CHECK(extra == &xs, "A16 comm delete: extra_state");
    ++deletes;
    if (norder < 64) order[norder++] = (int)(intptr_t)v;
    return fail_code;
}
/* Deletes the attribute of k_other on the same communicator (A11). */
static int cdel_other(MPI_Comm c, int k, void* v, void* extra) {
    (void)k, (void)v, (void)extra;
    ++deletes;
    if (k_other != MPI_KEYVAL_INVALID) {
        int flag = 0;
        void* x;
        CHECK_MPI(MPI_Comm_get_attr(c, k_other, &x, &flag));
        if (flag) CHECK_MPI(MPI_Comm_delete_attr(c, k_other));
    }
    return MPI_SUCCESS;
}
/* Copy callback that deletes the attribute of k_other on the old communicator (A12). */
static int ccopy_del(MPI_Comm c, int k, void* extra, void* in, void* out, int* flag) {
    (void)k, (void)extra;
    int f = 0;
    void* x;
    CHECK_MPI(MPI_Comm_get_attr(c, k_other, &x, &f));
    if (f) CHECK_MPI(MPI_Comm_delete_attr(c, k_other));
    *(void**)out = in;
    *flag = 1;
    return MPI_SUCCESS;
}

/* Datatype callbacks. */
static int tcopy(MPI_Datatype t, int k, void* extra, void* in, void* out, int* flag) {
    (void)t, (void)k;
    CHECK(extra == &xs, "A16 type copy: extra_state");
    ++copies;
    if (fail_code) return fail_code;
    *(void**)out = (void*)((intptr_t)in + 1);
    *flag = 1;
    return MPI_SUCCESS;
}
static int tdel(MPI_Datatype t, int k, void* v, void* extra) {
    (void)t, (void)k;
    CHECK(extra == &xs, "A16 type delete: extra_state");
    ++deletes;
    if (norder < 64) order[norder++] = (int)(intptr_t)v;
    return fail_code;
}
static int tdel_other(MPI_Datatype t, int k, void* v, void* extra) {
    (void)k, (void)v, (void)extra;
    ++deletes;
    int flag = 0;
    void* x;
    CHECK_MPI(MPI_Type_get_attr(t, k_other, &x, &flag));
    if (flag) CHECK_MPI(MPI_Type_delete_attr(t, k_other));
    return MPI_SUCCESS;
}

/* Window callbacks. */
static int wdel(MPI_Win w, int k, void* v, void* extra) {
    (void)w, (void)k;
    CHECK(extra == &xs, "A16 win delete: extra_state");
    ++deletes;
    if (norder < 64) order[norder++] = (int)(intptr_t)v;
    return fail_code;
}
static int wdel_other(MPI_Win w, int k, void* v, void* extra) {
    (void)k, (void)v, (void)extra;
    ++deletes;
    int flag = 0;
    void* x;
    CHECK_MPI(MPI_Win_get_attr(w, k_other, &x, &flag));
    if (flag) CHECK_MPI(MPI_Win_delete_attr(w, k_other));
    return MPI_SUCCESS;
}

static intptr_t cget(MPI_Comm c, int k, int* flag) {
    void* v = NULL;
    CHECK_MPI(MPI_Comm_get_attr(c, k, &v, flag));
    return (intptr_t)v;
}
static intptr_t tget(MPI_Datatype t, int k, int* flag) {
    void* v = NULL;
    CHECK_MPI(MPI_Type_get_attr(t, k, &v, flag));
    return (intptr_t)v;
}
static intptr_t wget(MPI_Win w, int k, int* flag) {
    void* v = NULL;
    CHECK_MPI(MPI_Win_get_attr(w, k, &v, flag));
    return (intptr_t)v;
}

/* A10: the callback's code comes back from the call, with its message. */
static void expect_code(int rc, const char* what) {
    CHECK(rc == fail_code, "A10 %s: returned %d, the callback returned %d", what, rc, fail_code);
}

static void comm_rules(void) {
    int flag, k1, k2, k3, kdup, knull;
    /* A1 */
    CHECK_MPI(MPI_Comm_create_keyval(ccopy, cdel, &k1, &xs));
    CHECK_MPI(MPI_Comm_create_keyval(ccopy, cdel, &k2, &xs));
    CHECK_MPI(MPI_Comm_create_keyval(ccopy, cdel, &k3, &xs));
    CHECK(k1 != k2 && k2 != k3 && k1 != k3 && k1 != MPI_KEYVAL_INVALID && k2 != MPI_KEYVAL_INVALID &&
              k3 != MPI_KEYVAL_INVALID, "A1 comm keyvals");
    CHECK_MPI(MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, &kdup, NULL));
    CHECK_MPI(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &knull, NULL));
    MPI_Comm a, b;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &a));
    MPI_Comm_set_errhandler(a, MPI_ERRORS_RETURN);
    /* A2 */
    cget(a, k1, &flag);
    CHECK(!flag, "A2 comm");
    /* A3 */
    CHECK_MPI(MPI_Comm_set_attr(a, k1, (void*)10));
    deletes = norder = 0;
    CHECK_MPI(MPI_Comm_set_attr(a, k1, (void*)20));
    CHECK(deletes == 1 && order[0] == 10 && cget(a, k1, &flag) == 20 && flag, "A3 comm");
    /* A4, A5 */
    CHECK_MPI(MPI_Comm_set_attr(a, k2, (void*)31)); /* odd: not copied */
    CHECK_MPI(MPI_Comm_set_attr(a, kdup, (void*)7));
    CHECK_MPI(MPI_Comm_set_attr(a, knull, (void*)9));
    copies = 0;
    CHECK_MPI(MPI_Comm_dup(a, &b));
    CHECK(copies == 2 && cget(b, k1, &flag) == 21 && flag, "A4 comm dup");
    cget(b, k2, &flag);
    CHECK(!flag, "A4 flag = 0");
    CHECK(cget(b, kdup, &flag) == 7 && flag, "A5 MPI_COMM_DUP_FN");
    cget(b, knull, &flag);
    CHECK(!flag, "A5 MPI_COMM_NULL_COPY_FN");
    MPI_Comm c2;
    /* A6 */
    CHECK_MPI(MPI_Comm_split(a, 0, 0, &c2));
    cget(c2, k1, &flag);
    CHECK(!flag, "A6 split copies no attribute");
    CHECK_MPI(MPI_Comm_free(&c2));
    MPI_Group g;
    CHECK_MPI(MPI_Comm_group(a, &g));
    CHECK_MPI(MPI_Comm_create(a, g, &c2));
    MPI_Group_free(&g);
    cget(c2, kdup, &flag);
    CHECK(!flag, "A6 create copies no attribute");
    CHECK_MPI(MPI_Comm_free(&c2));
    /* A7 */
    deletes = norder = 0;
    CHECK_MPI(MPI_Comm_delete_attr(a, k2));
    CHECK(deletes == 1 && order[0] == 31, "A7 comm delete_attr");
    /* A8: k1 freed while a and b use it */
    const int k1_saved = k1;
    CHECK_MPI(MPI_Comm_free_keyval(&k1));
    CHECK(k1 == MPI_KEYVAL_INVALID, "A8 free_keyval sets MPI_KEYVAL_INVALID");
    k1 = k1_saved;
    CHECK(cget(a, k1, &flag) == 20 && flag, "A8 get after free_keyval");
    CHECK_MPI(MPI_Comm_set_attr(a, k1, (void*)40)); /* overwrite: the old one's callback */
    deletes = norder = 0;
    CHECK_MPI(MPI_Comm_delete_attr(a, k1));
    CHECK(deletes == 1 && order[0] == 40, "A8 delete after free_keyval ran %d callbacks", deletes);
    int again = k1;
    EXPECT_CLASS(MPI_Comm_free_keyval(&again), MPI_ERR_KEYVAL, "A8 freeing a freed keyval");
    deletes = norder = 0;
    CHECK_MPI(MPI_Comm_free(&b)); /* the last attribute under k1: the keyval goes */
    CHECK(deletes == 1 && order[0] == 21, "A8 comm free after free_keyval: %d callbacks", deletes);
    EXPECT_CLASS(MPI_Comm_set_attr(a, k1, (void*)1), MPI_ERR_KEYVAL, "A8 keyval gone with its last attribute");
    /* A10: copy and delete errors, with the callback's own code */
    fail_code = MPI_ERR_ARG; /* a class */
    CHECK_MPI(MPI_Comm_set_attr(a, k3, (void*)2));
    MPI_Comm bad = MPI_COMM_NULL;
    expect_code(MPI_Comm_dup(a, &bad), "Comm_dup copy callback");
    CHECK(bad == MPI_COMM_NULL, "A10 failed dup handed out a communicator");
    expect_code(MPI_Comm_set_attr(a, k3, (void*)4), "Comm_set_attr delete callback");
    expect_code(MPI_Comm_delete_attr(a, k3), "Comm_delete_attr delete callback");
    /* a code MPI returned (with its message) */
    const int code = MPI_Comm_rank(MPI_COMM_NULL, &flag);
    CHECK(cls_of(code) == MPI_ERR_COMM, "MPI_Comm_rank(MPI_COMM_NULL): class %d", cls_of(code));
    fail_code = code;
    expect_code(MPI_Comm_delete_attr(a, k3), "Comm_delete_attr, detailed code");
    /* A17 + A10: Comm_free fails, the communicator stays */
    MPI_Comm keep = a;
    expect_code(MPI_Comm_free(&a), "Comm_free delete callback");
    CHECK(a == keep, "A17 a failed Comm_free freed the handle");
    CHECK(cget(a, k3, &flag) == 2 && flag, "A10 attribute stays after its delete callback failed");
    /* a return value that is no MPI code: class MPI_ERR_OTHER, saying so */
    fail_code = MY_ERR;
    {
        int rc = MPI_Comm_delete_attr(a, k3), len = 0;
        char s[MPI_MAX_ERROR_STRING];
        CHECK(cls_of(rc) == MPI_ERR_OTHER, "A10 non-MPI code: class %d", cls_of(rc));
        MPI_Error_string(rc, s, &len);
        CHECK(strstr(s, "MPI_Comm_delete_attr") && strstr(s, "32512"), "A10 message: %s", s);
    }
    fail_code = 0;
    CHECK_MPI(MPI_Comm_delete_attr(a, k3));
    /* A11: a delete callback deleting the other attributes of its communicator */
    int kd;
    CHECK_MPI(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, cdel_other, &kd, NULL));
    CHECK_MPI(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, cdel, &k_other, &xs));
    for (int round = 0; round < 3; ++round) {
        MPI_Comm c;
        CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &c));
        int kk[8];
        for (int i = 0; i < 8; ++i) {
            CHECK_MPI(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, cdel, &kk[i], &xs));
            CHECK_MPI(MPI_Comm_set_attr(c, kk[i], (void*)(intptr_t)(100 + i)));
        }
        CHECK_MPI(MPI_Comm_set_attr(c, k_other, (void*)77)); /* below kd: deleted by kd's callback */
        CHECK_MPI(MPI_Comm_set_attr(c, kd, (void*)1));
        deletes = norder = 0;
        if (round == 0) {
            CHECK_MPI(MPI_Comm_free(&c)); /* kd's callback deletes k_other's attribute */
            CHECK(deletes == 10, "A11 comm free: %d callbacks", deletes);
        } else {
            CHECK_MPI(MPI_Comm_delete_attr(c, kd));
            cget(c, k_other, &flag);
            CHECK(!flag && deletes == 2, "A11 comm delete_attr: %d callbacks", deletes);
            CHECK_MPI(MPI_Comm_free(&c));
        }
        for (int i = 0; i < 8; ++i) CHECK_MPI(MPI_Comm_free_keyval(&kk[i]));
    }
    /* A12: a copy callback deleting an attribute of the communicator being copied */
    int kc;
    CHECK_MPI(MPI_Comm_create_keyval(ccopy_del, MPI_COMM_NULL_DELETE_FN, &kc, NULL));
    CHECK_MPI(MPI_Comm_set_attr(a, kc, (void*)5));
    CHECK_MPI(MPI_Comm_set_attr(a, k_other, (void*)6)); /* set after kc: copied after it, if at all */
    CHECK_MPI(MPI_Comm_dup(a, &b));
    cget(b, k_other, &flag);
    CHECK(!flag && cget(b, kc, &flag) == 5 && flag, "A12 deleted during the copy: not copied");
    CHECK_MPI(MPI_Comm_free(&b));
    /* A13 */
    int tk;
    CHECK_MPI(MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, MPI_TYPE_NULL_DELETE_FN, &tk, NULL));
    EXPECT_CLASS(MPI_Comm_set_attr(a, tk, (void*)1), MPI_ERR_KEYVAL, "A13 type keyval on a comm");
    EXPECT_CLASS(MPI_Comm_get_attr(a, tk, &flag, &flag), MPI_ERR_KEYVAL, "A13 get, type keyval");
    EXPECT_CLASS(MPI_Comm_free_keyval(&tk), MPI_ERR_KEYVAL, "A13 free_keyval, type keyval");
    CHECK_MPI(MPI_Type_free_keyval(&tk));
    EXPECT_CLASS(MPI_Comm_get_attr(a, 0x12345, &flag, &flag), MPI_ERR_KEYVAL, "A13 garbage");
    EXPECT_CLASS(MPI_Comm_set_attr(a, MPI_KEYVAL_INVALID, NULL), MPI_ERR_KEYVAL, "A13 MPI_KEYVAL_INVALID");
    EXPECT_CLASS(MPI_Comm_delete_attr(a, k2), MPI_ERR_KEYVAL, "A13 delete of an unset attribute");
    /* A14 */
    EXPECT_CLASS(MPI_Comm_set_attr(a, MPI_TAG_UB, NULL), MPI_ERR_KEYVAL, "A14 set MPI_TAG_UB");
    EXPECT_CLASS(MPI_Comm_delete_attr(a, MPI_TAG_UB), MPI_ERR_KEYVAL, "A14 delete MPI_TAG_UB");
    int tagub = MPI_TAG_UB;
    EXPECT_CLASS(MPI_Comm_free_keyval(&tagub), MPI_ERR_KEYVAL, "A14 free MPI_TAG_UB");
    CHECK_MPI(MPI_Comm_free(&a));
    CHECK_MPI(MPI_Comm_free_keyval(&k3));
    CHECK_MPI(MPI_Comm_free_keyval(&k2));
    CHECK_MPI(MPI_Comm_free_keyval(&kdup));
    CHECK_MPI(MPI_Comm_free_keyval(&knull));
    CHECK_MPI(MPI_Comm_free_keyval(&kd));
    CHECK_MPI(MPI_Comm_free_keyval(&kc));
    CHECK_MPI(MPI_Comm_free_keyval(&k_other));
}

static void type_rules(void) {
    int flag, k1, k2, kdup, knull;
    CHECK_MPI(MPI_Type_create_keyval(tcopy, tdel, &k1, &xs));
    CHECK_MPI(MPI_Type_create_keyval(tcopy, tdel, &k2, &xs));
    CHECK_MPI(MPI_Type_create_keyval(MPI_TYPE_DUP_FN, MPI_TYPE_NULL_DELETE_FN, &kdup, NULL));
    CHECK_MPI(MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, MPI_TYPE_NULL_DELETE_FN, &knull, NULL));
    CHECK(k1 != k2 && k1 != MPI_KEYVAL_INVALID, "A1 type keyvals");
    MPI_Datatype t, d;
    CHECK_MPI(MPI_Type_contiguous(2, MPI_INT, &t));
    tget(t, k1, &flag);
    CHECK(!flag, "A2 type");
    CHECK_MPI(MPI_Type_set_attr(t, k1, (void*)10));
    deletes = norder = 0;
    CHECK_MPI(MPI_Type_set_attr(t, k1, (void*)20));
    CHECK(deletes == 1 && order[0] == 10, "A3 type");
    CHECK_MPI(MPI_Type_set_attr(t, kdup, (void*)7));
    CHECK_MPI(MPI_Type_set_attr(t, knull, (void*)9));
    copies = 0;
    CHECK_MPI(MPI_Type_dup(t, &d));
    CHECK(copies == 1 && tget(d, k1, &flag) == 21 && flag, "A4 type dup");
    CHECK(tget(d, kdup, &flag) == 7 && flag, "A5 MPI_TYPE_DUP_FN");
    tget(d, knull, &flag);
    CHECK(!flag, "A5 MPI_TYPE_NULL_COPY_FN");
    /* A6: a type built from t has none of t's attributes */
    MPI_Datatype c;
    CHECK_MPI(MPI_Type_contiguous(3, t, &c));
    tget(c, k1, &flag);
    CHECK(!flag, "A6 type constructor");
    CHECK_MPI(MPI_Type_free(&c));
    /* A8, A9: freed keyval; Type_dup copies its attribute */
    const int k1_saved = k1;
    CHECK_MPI(MPI_Type_free_keyval(&k1));
    CHECK(k1 == MPI_KEYVAL_INVALID, "A8 type free_keyval");
    k1 = k1_saved;
    MPI_Datatype d2;
    copies = 0;
    CHECK_MPI(MPI_Type_dup(d, &d2));
    CHECK(copies == 1 && tget(d2, k1, &flag) == 22 && flag, "A9 Type_dup after free_keyval");
    deletes = norder = 0;
    CHECK_MPI(MPI_Type_delete_attr(d2, k1));
    CHECK(deletes == 1 && order[0] == 22, "A8 type delete_attr after free_keyval");
    CHECK_MPI(MPI_Type_free(&d2));
    deletes = norder = 0;
    CHECK_MPI(MPI_Type_free(&d));
    CHECK(deletes == 1 && order[0] == 21, "A7/A8 type free after free_keyval: %d", deletes);
    /* A10 */
    fail_code = MPI_ERR_TYPE;
    d = MPI_DATATYPE_NULL;
    expect_code(MPI_Type_dup(t, &d), "Type_dup copy callback");
    CHECK(d == MPI_DATATYPE_NULL, "A10 failed Type_dup handed out a type");
    expect_code(MPI_Type_set_attr(t, k1, (void*)30), "Type_set_attr delete callback");
    expect_code(MPI_Type_delete_attr(t, k1), "Type_delete_attr delete callback");
    MPI_Datatype keep = t;
    expect_code(MPI_Type_free(&t), "Type_free delete callback");
    t = keep;
    fail_code = 0;
    deletes = 0;
    CHECK_MPI(MPI_Type_free(&t));
    CHECK(deletes == 1, "A8 type free: keyval still live");
    EXPECT_CLASS(MPI_Type_set_attr(MPI_INT, k1, NULL), MPI_ERR_KEYVAL, "A8 type keyval gone");
    /* A11 */
    int kd;
    CHECK_MPI(MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, tdel_other, &kd, NULL));
    CHECK_MPI(MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, tdel, &k_other, &xs));
    CHECK_MPI(MPI_Type_contiguous(2, MPI_INT, &t));
    CHECK_MPI(MPI_Type_set_attr(t, k2, (void*)1));
    CHECK_MPI(MPI_Type_set_attr(t, k_other, (void*)2));
    CHECK_MPI(MPI_Type_set_attr(t, kd, (void*)3));
    deletes = 0;
    CHECK_MPI(MPI_Type_free(&t));
    CHECK(deletes == 3, "A11 type free: %d callbacks", deletes);
    /* A13 */
    int ck;
    CHECK_MPI(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &ck, NULL));
    EXPECT_CLASS(MPI_Type_set_attr(MPI_INT, ck, NULL), MPI_ERR_KEYVAL, "A13 comm keyval on a type");
    EXPECT_CLASS(MPI_Type_free_keyval(&ck), MPI_ERR_KEYVAL, "A13 Type_free_keyval of a comm keyval");
    CHECK_MPI(MPI_Comm_free_keyval(&ck));
    /* A15 */
    CHECK_MPI(MPI_Type_set_attr(MPI_INT, kdup, (void*)5));
    CHECK(tget(MPI_INT, kdup, &flag) == 5 && flag, "A15 attribute on MPI_INT");
    CHECK_MPI(MPI_Type_delete_attr(MPI_INT, kdup));
    CHECK_MPI(MPI_Type_free_keyval(&k2));
    CHECK_MPI(MPI_Type_free_keyval(&kdup));
    CHECK_MPI(MPI_Type_free_keyval(&knull));
    CHECK_MPI(MPI_Type_free_keyval(&kd));
    CHECK_MPI(MPI_Type_free_keyval(&k_other));
}

static void win_rules(void) {
    int flag, k1, k2, kd;
    static int mem[4];
    MPI_Win w;
    CHECK_MPI(MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, wdel, &k1, &xs));
    CHECK_MPI(MPI_Win_create_keyval(MPI_WIN_DUP_FN, wdel, &k2, &xs));
    CHECK(k1 != k2 && k1 != MPI_KEYVAL_INVALID, "A1 win keyvals");
    CHECK_MPI(MPI_Win_create(mem, sizeof mem, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &w));
    MPI_Win_set_errhandler(w, MPI_ERRORS_RETURN);
    wget(w, k1, &flag);
    CHECK(!flag, "A2 win");
    CHECK_MPI(MPI_Win_set_attr(w, k1, (void*)10));
    CHECK(wget(w, k1, &flag) == 10 && flag, "win get after set");
    deletes = norder = 0;
    CHECK_MPI(MPI_Win_set_attr(w, k1, (void*)20));
    CHECK(deletes == 1 && order[0] == 10, "A3 win");
    void* base = NULL;
    CHECK_MPI(MPI_Win_get_attr(w, MPI_WIN_BASE, &base, &flag));
    CHECK(flag && base == mem, "predefined MPI_WIN_BASE beside user attributes");
    /* A14 */
    EXPECT_CLASS(MPI_Win_set_attr(w, MPI_WIN_BASE, NULL), MPI_ERR_KEYVAL, "A14 set MPI_WIN_BASE");
    EXPECT_CLASS(MPI_Win_delete_attr(w, MPI_WIN_SIZE), MPI_ERR_KEYVAL, "A14 delete MPI_WIN_SIZE");
    int wb = MPI_WIN_BASE;
    EXPECT_CLASS(MPI_Win_free_keyval(&wb), MPI_ERR_KEYVAL, "A14 free MPI_WIN_BASE");
    /* A8 */
    const int k1_saved = k1;
    CHECK_MPI(MPI_Win_free_keyval(&k1));
    CHECK(k1 == MPI_KEYVAL_INVALID, "A8 win free_keyval");
    k1 = k1_saved;
    CHECK(wget(w, k1, &flag) == 20 && flag, "A8 win get after free_keyval");
    /* A10 */
    fail_code = MPI_ERR_WIN;
    expect_code(MPI_Win_delete_attr(w, k1), "Win_delete_attr delete callback");
    expect_code(MPI_Win_set_attr(w, k1, (void*)30), "Win_set_attr delete callback");
    fail_code = 0;
    deletes = norder = 0;
    CHECK_MPI(MPI_Win_delete_attr(w, k1));
    CHECK(deletes == 1 && order[0] == 20, "A8 win delete after free_keyval");
    EXPECT_CLASS(MPI_Win_set_attr(w, k1, NULL), MPI_ERR_KEYVAL, "A8 win keyval gone with its attribute");
    /* A11 + A7: Win_free runs the callbacks; one deletes another */
    CHECK_MPI(MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, wdel_other, &kd, NULL));
    CHECK_MPI(MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, wdel, &k_other, &xs));
    CHECK_MPI(MPI_Win_set_attr(w, k2, (void*)1));
    CHECK_MPI(MPI_Win_set_attr(w, k_other, (void*)2));
    CHECK_MPI(MPI_Win_set_attr(w, kd, (void*)3));
    deletes = 0;
    CHECK_MPI(MPI_Win_free(&w));
    CHECK(deletes == 3 && w == MPI_WIN_NULL, "A7/A11 win free: %d callbacks", deletes);
    /* A10: a failed delete at Win_free (collective: the window goes anyway) */
    CHECK_MPI(MPI_Win_create(mem, sizeof mem, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &w));
    MPI_Win_set_errhandler(w, MPI_ERRORS_RETURN);
    CHECK_MPI(MPI_Win_set_attr(w, k2, (void*)4));
    fail_code = MPI_ERR_WIN;
    expect_code(MPI_Win_free(&w), "Win_free delete callback");
    fail_code = 0;
    CHECK(w == MPI_WIN_NULL, "Win_free is collective: the window is freed after a failed callback");
    /* A13 */
    int ck;
    CHECK_MPI(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &ck, NULL));
    CHECK_MPI(MPI_Win_create(mem, sizeof mem, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &w));
    MPI_Win_set_errhandler(w, MPI_ERRORS_RETURN);
    EXPECT_CLASS(MPI_Win_set_attr(w, ck, NULL), MPI_ERR_KEYVAL, "A13 comm keyval on a window");
    EXPECT_CLASS(MPI_Win_get_attr(w, ck, &base, &flag), MPI_ERR_KEYVAL, "A13 get, comm keyval");
    EXPECT_CLASS(MPI_Win_get_attr(w, 0x4242, &base, &flag), MPI_ERR_KEYVAL, "A13 garbage win keyval");
    EXPECT_CLASS(MPI_Win_free_keyval(&ck), MPI_ERR_KEYVAL, "A13 Win_free_keyval of a comm keyval");
    CHECK_MPI(MPI_Win_free(&w));
    CHECK_MPI(MPI_Comm_free_keyval(&ck));
    CHECK_MPI(MPI_Win_free_keyval(&k2));
    CHECK_MPI(MPI_Win_free_keyval(&kd));
    CHECK_MPI(MPI_Win_free_keyval(&k_other));
}

int main(int argc, char** argv) {
    mt_init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    comm_rules();
    type_rules();
    win_rules();
    MPI_Barrier(MPI_COMM_WORLD);
    if (mt_rank == 0) printf("attr_rules: OK\n");
    MPI_Finalize();
    return 0;
}
