/* SPDX-License-Identifier: MIT */
/* Info objects (MPI-4.1 §10): round trips, order, limits, errors.
 *  - set/get/get_string/get_valuelen/delete/get_nkeys/get_nthkey: values
 *    replaced in place (the key keeps its number), deleted keys gone, keys
 *    numbered in the order first set;
 *  - MPI_Info_get_string: buflen 0 asks the size, a short buffer truncates
 *    with a null, *buflen is the length plus one; MPI_Info_get's valuelen is
 *    one less than the space;
 *  - MPI_Info_dup is a deep copy; MPI_Info_free sets MPI_INFO_NULL;
 *  - keys of MPI_MAX_INFO_KEY-1 and values of MPI_MAX_INFO_VAL-1 characters
 *    fit; one more is MPI_ERR_INFO_KEY / MPI_ERR_INFO_VALUE; empty key;
 *    deleting a missing key is MPI_ERR_INFO_NOKEY; get_nthkey out of range
 *    is MPI_ERR_ARG; a freed or MPI_INFO_NULL info is MPI_ERR_INFO;
 *    MPI_INFO_ENV cannot be changed or freed — each leaves MPI usable;
 *  - MPI_INFO_ENV and MPI_Info_create_env hold the command and the host;
 *  - MPI_Info_create/set/get work before MPI_Init and after MPI_Finalize;
 *  - an info object is accepted where the API takes one (MPI_Comm_dup_with_info). */
#include <unistd.h>

#include "mpitest.h"

static void expect_class(int rc, int cls, const char* what) {
    int c = MPI_SUCCESS;
    MPI_Error_class(rc, &c);
    CHECK(c == cls, "%s: error class %d, expected %d", what, c, cls);
}

static void expect_value(MPI_Info info, const char* key, const char* want) {
    char v[MPI_MAX_INFO_VAL];
    int flag = 0, len = MPI_MAX_INFO_VAL;
    CHECK_MPI(MPI_Info_get_string(info, key, &len, v, &flag));
    if (!want) {
        CHECK(!flag, "key %s present", key);
        return;
    }
    CHECK(flag && strcmp(v, want) == 0 && len == (int)strlen(want) + 1, "key %s: flag %d value '%s' len %d", key,
          flag, flag ? v : "", len);
}

int main(int argc, char** argv) {
    /* before MPI_Init */
    MPI_Info pre;
    CHECK(MPI_Info_create(&pre) == MPI_SUCCESS, "MPI_Info_create before MPI_Init");
    CHECK(MPI_Info_set(pre, "early", "yes") == MPI_SUCCESS, "MPI_Info_set before MPI_Init");
    mt_init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    expect_value(pre, "early", "yes");
    CHECK_MPI(MPI_Info_free(&pre));

    MPI_Info info;
    CHECK_MPI(MPI_Info_create(&info));
    int n = -1;
    CHECK_MPI(MPI_Info_get_nkeys(info, &n));
    CHECK(n == 0, "new info has %d keys", n);
    CHECK_MPI(MPI_Info_set(info, "alpha", "1"));
    CHECK_MPI(MPI_Info_set(info, "beta", "two words"));
    CHECK_MPI(MPI_Info_set(info, "gamma", ""));
    CHECK_MPI(MPI_Info_set(info, "alpha", "one"));  /* replaced, keeps number 0 */
    CHECK_MPI(MPI_Info_get_nkeys(info, &n));
    CHECK(n == 3, "nkeys %d", n);
    const char* order[3] = {"alpha", "beta", "gamma"};
    for (int i = 0; i < 3; ++i) {
        char k[MPI_MAX_INFO_KEY];
        CHECK_MPI(MPI_Info_get_nthkey(info, i, k));
        CHECK(strcmp(k, order[i]) == 0, "key %d is %s", i, k);
    }
    expect_value(info, "alpha", "one");
    expect_value(info, "beta", "two words");
    expect_value(info, "gamma", "");
    expect_value(info, "delta", NULL);
    /* sizes and truncation */
    {
        int len = 0, flag = 0;
        char v[8];
        CHECK_MPI(MPI_Info_get_string(info, "beta", &len, v, &flag));
        CHECK(flag && len == 10, "size query: flag %d len %d", flag, len);
        len = 4;
        memset(v, 'x', sizeof v);
        CHECK_MPI(MPI_Info_get_string(info, "beta", &len, v, &flag));
        CHECK(flag && strcmp(v, "two") == 0 && len == 10, "truncated get_string '%s' len %d", v, len);
        CHECK_MPI(MPI_Info_get(info, "beta", 3, v, &flag));
        CHECK(flag && strcmp(v, "two") == 0, "MPI_Info_get valuelen 3: '%s'", v);
        int vl = -1;
        CHECK_MPI(MPI_Info_get_valuelen(info, "beta", &vl, &flag));
        CHECK(flag && vl == 9, "valuelen %d", vl);
        CHECK_MPI(MPI_Info_get_valuelen(info, "nope", &vl, &flag));
        CHECK(!flag, "valuelen of a missing key");
    }
    /* dup is deep; delete */
    MPI_Info copy;
    CHECK_MPI(MPI_Info_dup(info, &copy));
    CHECK_MPI(MPI_Info_delete(info, "beta"));
    expect_value(info, "beta", NULL);
    expect_value(copy, "beta", "two words");
    CHECK_MPI(MPI_Info_get_nkeys(info, &n));
    CHECK(n == 2, "nkeys after delete %d", n);
    {
        char k[MPI_MAX_INFO_KEY];
        CHECK_MPI(MPI_Info_get_nthkey(info, 1, k));
        CHECK(strcmp(k, "gamma") == 0, "key 1 after delete is %s", k);
    }
    /* limits */
    {
        char key[MPI_MAX_INFO_KEY + 1], val[MPI_MAX_INFO_VAL + 1];
        memset(key, 'k', sizeof key);
        key[MPI_MAX_INFO_KEY - 1] = '\0';
        memset(val, 'v', sizeof val);
        val[MPI_MAX_INFO_VAL - 1] = '\0';
        CHECK_MPI(MPI_Info_set(info, key, val));
        int vl = 0, flag = 0;
        CHECK_MPI(MPI_Info_get_valuelen(info, key, &vl, &flag));
        CHECK(flag && vl == MPI_MAX_INFO_VAL - 1, "longest value: %d", vl);
        key[MPI_MAX_INFO_KEY - 1] = 'k';
        key[MPI_MAX_INFO_KEY] = '\0';
        expect_class(MPI_Info_set(info, key, "x"), MPI_ERR_INFO_KEY, "key of MPI_MAX_INFO_KEY characters");
        val[MPI_MAX_INFO_VAL - 1] = 'v';
        val[MPI_MAX_INFO_VAL] = '\0';
        expect_class(MPI_Info_set(info, "k", val), MPI_ERR_INFO_VALUE, "value of MPI_MAX_INFO_VAL characters");
        expect_class(MPI_Info_set(info, "", "x"), MPI_ERR_INFO_KEY, "empty key");
        expect_class(MPI_Info_delete(info, "missing"), MPI_ERR_INFO_NOKEY, "delete of a missing key");
        char k[MPI_MAX_INFO_KEY];
        expect_class(MPI_Info_get_nthkey(info, 3, k), MPI_ERR_ARG, "get_nthkey past the end");
        expect_class(MPI_Info_get_nthkey(info, -1, k), MPI_ERR_ARG, "get_nthkey -1");
        expect_class(MPI_Info_set(MPI_INFO_NULL, "a", "b"), MPI_ERR_INFO, "set on MPI_INFO_NULL");
        expect_class(MPI_Info_set(MPI_INFO_ENV, "a", "b"), MPI_ERR_INFO, "set on MPI_INFO_ENV");
        MPI_Info env = MPI_INFO_ENV;
        expect_class(MPI_Info_free(&env), MPI_ERR_INFO, "free of MPI_INFO_ENV");
    }
    /* the environment */
    {
        char v[MPI_MAX_INFO_VAL], host[256];
        int flag = 0, len = MPI_MAX_INFO_VAL;
        CHECK_MPI(MPI_Info_get_string(MPI_INFO_ENV, "command", &len, v, &flag));
        CHECK(flag && strstr(v, "info") != NULL, "MPI_INFO_ENV command: %s", flag ? v : "(none)");
        gethostname(host, sizeof host);
        expect_value(MPI_INFO_ENV, "host", host);
        MPI_Info e;
        char* args[] = {"prog", "-x", "3", NULL};
        CHECK_MPI(MPI_Info_create_env(3, args, &e));
        expect_value(e, "command", "prog");
        expect_value(e, "argv", "-x 3");
        CHECK_MPI(MPI_Info_set(e, "mine", "ok"));
        CHECK_MPI(MPI_Info_free(&e));
    }
    /* accepted by the API */
    {
        MPI_Comm dup;
        CHECK_MPI(MPI_Comm_dup_with_info(MPI_COMM_WORLD, copy, &dup));
        MPI_Barrier(dup);
        CHECK_MPI(MPI_Comm_free(&dup));
    }
    CHECK(MPI_Info_fromint(MPI_Info_toint(info)) == info && MPI_Info_fromint(MPI_Info_toint(MPI_INFO_ENV)) == MPI_INFO_ENV,
          "MPI_Info_toint/fromint round trip");
    MPI_Info dead = info;
    CHECK_MPI(MPI_Info_free(&info));
    CHECK(info == MPI_INFO_NULL, "free did not set MPI_INFO_NULL");
    expect_class(MPI_Info_set(dead, "a", "b"), MPI_ERR_INFO, "set on a freed info");
    CHECK_MPI(MPI_Info_free(&copy));
    MPI_Finalize();
    /* after MPI_Finalize */
    MPI_Info post;
    CHECK(MPI_Info_create(&post) == MPI_SUCCESS && MPI_Info_free(&post) == MPI_SUCCESS,
          "info after MPI_Finalize");
    if (mt_rank == 0) printf("info: OK\n");
    return 0;
}
