/* SPDX-License-Identifier: MIT */
/* Bad input with MPI_ERRORS_RETURN on the window: every case returns the
 * right class, names the function, and leaves the window usable and the
 * memory untouched. With CH4LITE_RMA_CHECK_ORIGIN=0 (argument "target") the
 * origin skips its range check and the target must refuse the access. */
#include <stdint.h>

#include "mpitest.h"

static int rank, size;

static void expect(int rc, int cls, const char* func, const char* what) {
    int c = -1;
    char s[MPI_MAX_ERROR_STRING];
    int len = 0;
    CHECK(rc != MPI_SUCCESS, "%s: succeeded", what);
    MPI_Error_class(rc, &c);
    MPI_Error_string(rc, s, &len);
    CHECK(c == cls, "%s: class %d, want %d (%s)", what, c, cls, s);
    CHECK(strstr(s, func) != NULL, "%s: message does not name %s: %s", what, func, s);
}

static int handler_calls = 0, handler_class = 0;
static void on_error(MPI_Win* win, int* code, ...) {
    ++handler_calls;
    MPI_Error_class(*code, &handler_class);
    (void)win;
}

static int deletes = 0;
static int on_delete(MPI_Win w, int keyval, void* value, void* extra) {
    (void)w; (void)keyval; (void)extra;
    deletes += (int)(intptr_t)value;
    return MPI_SUCCESS;
}

/* The value MPI_Win_get_info reports for key is want. */
static void info_is(MPI_Win win, const char* key, const char* want, const char* what) {
    MPI_Info used;
    char v[MPI_MAX_INFO_VAL + 1];
    int flag = 0;
    CHECK_MPI(MPI_Win_get_info(win, &used));
    CHECK_MPI(MPI_Info_get(used, key, MPI_MAX_INFO_VAL, v, &flag));
    CHECK(flag && strcmp(v, want) == 0, "%s %s: %s", what, key, flag ? v : "(not set)");
    MPI_Info_free(&used);
}

/* User keyvals and info hints on a window. */
static void attrs_and_info(void) {
    long mem[4];
    MPI_Win win;
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "accumulate_ordering", "none");
    MPI_Info_set(info, "no_locks", "true");
    CHECK_MPI(MPI_Win_create(mem, sizeof mem, 8, info, MPI_COMM_WORLD, &win));
    MPI_Info_free(&info);
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    int flag = 0;
    info_is(win, "accumulate_ordering", "none", "get_info");
    info_is(win, "no_locks", "true", "get_info");
    info_is(win, "accumulate_ops", "same_op_no_op", "get_info default");
    MPI_Info_create(&info);
    MPI_Info_set(info, "accumulate_ops", "same_op");
    CHECK_MPI(MPI_Win_set_info(win, info));
    MPI_Info_free(&info);
    info_is(win, "accumulate_ops", "same_op", "set_info");
    /* MPI-4.1 window hints reported as given: a partial ordering (kept
     * stronger inside), same_size, same_disp_unit; a malformed ordering is
     * ignored, leaving the last valid one */
    MPI_Info_create(&info);
    MPI_Info_set(info, "accumulate_ordering", "rar,waw");
    MPI_Info_set(info, "same_size", "true");
    MPI_Info_set(info, "same_disp_unit", "false");
    CHECK_MPI(MPI_Win_set_info(win, info));
    MPI_Info_set(info, "accumulate_ordering", "rar,bogus");
    CHECK_MPI(MPI_Win_set_info(win, info));
    MPI_Info_free(&info);
    info_is(win, "accumulate_ordering", "rar,waw", "set_info");
    info_is(win, "same_size", "true", "set_info");
    info_is(win, "same_disp_unit", "false", "set_info");
    expect(MPI_Win_set_info(win, (MPI_Info)(intptr_t)0x4242), MPI_ERR_INFO, "MPI_Win_set_info", "garbage info");
    /* keyvals: set, replace (delete callback), delete, set, free the window */
    int kv = MPI_KEYVAL_INVALID;
    CHECK_MPI(MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, on_delete, &kv, NULL));
    void* got = NULL;
    CHECK_MPI(MPI_Win_get_attr(win, kv, &got, &flag));
    CHECK(!flag, "attribute before set");
    CHECK_MPI(MPI_Win_set_attr(win, kv, (void*)(intptr_t)1));
    CHECK_MPI(MPI_Win_set_attr(win, kv, (void*)(intptr_t)10));
    CHECK(deletes == 1, "replacing an attribute deletes the old value (%d)", deletes);
    CHECK_MPI(MPI_Win_get_attr(win, kv, &got, &flag));
    CHECK(flag && got == (void*)(intptr_t)10, "get_attr after set");
    CHECK_MPI(MPI_Win_delete_attr(win, kv));
    CHECK(deletes == 11, "delete_attr (%d)", deletes);
    expect(MPI_Win_delete_attr(win, kv), MPI_ERR_KEYVAL, "MPI_Win_delete_attr", "delete twice");
    CHECK_MPI(MPI_Win_set_attr(win, kv, (void*)(intptr_t)100));
    expect(MPI_Win_set_attr(win, MPI_WIN_BASE, NULL), MPI_ERR_KEYVAL, "MPI_Win_set_attr", "predefined keyval");
    expect(MPI_Win_get_attr(win, 12345, &got, &flag), MPI_ERR_KEYVAL, "MPI_Win_get_attr", "garbage keyval");
    int* model = NULL;
    CHECK_MPI(MPI_Win_get_attr(win, MPI_WIN_MODEL, &model, &flag));
    CHECK(flag && *model == MPI_WIN_UNIFIED, "model");
    const int kv_keep = kv;
    CHECK_MPI(MPI_Win_free_keyval(&kv));
    CHECK(kv == MPI_KEYVAL_INVALID, "free_keyval resets the handle");
    CHECK_MPI(MPI_Win_free(&win));  /* runs the delete callback of the live attribute */
    CHECK(deletes == 111, "Win_free deletes attributes (%d)", deletes);
    (void)kv_keep;
    /* an accumulate of nothing with a type of size 0 is no error */
    CHECK_MPI(MPI_Win_create(mem, sizeof mem, 8, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    MPI_Datatype empty;
    CHECK_MPI(MPI_Type_contiguous(0, MPI_INT, &empty));
    CHECK_MPI(MPI_Type_commit(&empty));
    CHECK_MPI(MPI_Win_fence(0, win));
    CHECK_MPI(MPI_Accumulate(mem, 0, MPI_LONG, (rank + 1) % size, 0, 0, empty, MPI_SUM, win));
    CHECK_MPI(MPI_Accumulate(mem, 0, MPI_LONG, (rank + 1) % size, 0, 1, empty, MPI_SUM, win));
    CHECK_MPI(MPI_Win_fence(0, win));
    MPI_Type_free(&empty);
    CHECK_MPI(MPI_Win_free(&win));
}

/* Passive-target and PSCW bad input (docs/rma-passive.md, "Bad input"). */
static void sync_errors(void) {
    long* mem;
    MPI_Win win;
    const int right = (rank + 1) % size;
    long v[4] = {1, 2, 3, 4};
    CHECK_MPI(MPI_Win_allocate(8 * sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    for (int i = 0; i < 8; ++i) mem[i] = 7;
    MPI_Barrier(MPI_COMM_WORLD);
    /* outside any epoch */
    expect(MPI_Put(v, 1, MPI_LONG, right, 0, 1, MPI_LONG, win), MPI_ERR_RMA_SYNC, "MPI_Put", "put, no epoch");
    expect(MPI_Put(v, 1, MPI_LONG, -5, 0, 1, MPI_LONG, win), MPI_ERR_RANK, "MPI_Put", "rank -5, no epoch");
    expect(MPI_Put(v, 1, MPI_LONG, size, 0, 1, MPI_LONG, win), MPI_ERR_RANK, "MPI_Put", "rank size, no epoch");
    expect(MPI_Win_unlock(right, win), MPI_ERR_RMA_SYNC, "MPI_Win_unlock", "unlock without lock");
    expect(MPI_Win_unlock_all(win), MPI_ERR_RMA_SYNC, "MPI_Win_unlock_all", "unlock_all without lock_all");
    expect(MPI_Win_flush(right, win), MPI_ERR_RMA_SYNC, "MPI_Win_flush", "flush outside an epoch");
    expect(MPI_Win_flush_local(right, win), MPI_ERR_RMA_SYNC, "MPI_Win_flush_local", "flush_local outside");
    expect(MPI_Win_flush_all(win), MPI_ERR_RMA_SYNC, "MPI_Win_flush_all", "flush_all outside an epoch");
    expect(MPI_Win_flush_local_all(win), MPI_ERR_RMA_SYNC, "MPI_Win_flush_local_all", "flush_local_all outside");
    expect(MPI_Win_lock(MPI_LOCK_SHARED, size, 0, win), MPI_ERR_RANK, "MPI_Win_lock", "lock of rank size");
    expect(MPI_Win_lock(MPI_LOCK_SHARED, -7, 0, win), MPI_ERR_RANK, "MPI_Win_lock", "lock of rank -7");
    expect(MPI_Win_lock(12345, right, 0, win), MPI_ERR_LOCKTYPE, "MPI_Win_lock", "bad lock type");
    expect(MPI_Win_lock(MPI_LOCK_SHARED, right, MPI_MODE_NOPUT, win), MPI_ERR_ASSERT, "MPI_Win_lock", "bad assert");
    expect(MPI_Rput(v, 1, MPI_LONG, right, 0, 1, MPI_LONG, win, NULL), MPI_ERR_ARG, "MPI_Rput", "NULL request");
    MPI_Request req = MPI_REQUEST_NULL;
    expect(MPI_Rget(v, 1, MPI_LONG, right, 0, 1, MPI_LONG, win, &req), MPI_ERR_RMA_SYNC, "MPI_Rget", "Rget, no epoch");
    expect(MPI_Win_complete(win), MPI_ERR_RMA_SYNC, "MPI_Win_complete", "complete without start");
    expect(MPI_Win_wait(win), MPI_ERR_RMA_SYNC, "MPI_Win_wait", "wait without post");
    int flag = 0;
    expect(MPI_Win_test(win, &flag), MPI_ERR_RMA_SYNC, "MPI_Win_test", "test without post");
    expect(MPI_Win_post(MPI_GROUP_NULL, 0, win), MPI_ERR_GROUP, "MPI_Win_post", "MPI_GROUP_NULL");
    expect(MPI_Win_start(MPI_GROUP_NULL, 0, win), MPI_ERR_GROUP, "MPI_Win_start", "MPI_GROUP_NULL");
    expect(MPI_Win_post(MPI_GROUP_EMPTY, MPI_MODE_NOPRECEDE, win), MPI_ERR_ASSERT, "MPI_Win_post", "bad assert");
    /* a lock epoch */
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win));
    expect(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, win), MPI_ERR_RMA_SYNC, "MPI_Win_lock", "nested lock");
    expect(MPI_Win_lock_all(0, win), MPI_ERR_RMA_SYNC, "MPI_Win_lock_all", "lock_all inside lock");
    expect(MPI_Win_fence(0, win), MPI_ERR_RMA_SYNC, "MPI_Win_fence", "fence inside a lock epoch");
    expect(MPI_Win_start(MPI_GROUP_EMPTY, 0, win), MPI_ERR_RMA_SYNC, "MPI_Win_start", "start inside a lock epoch");
    if (size > 2) {
        const int other = (rank + 2) % size;
        expect(MPI_Put(v, 1, MPI_LONG, other, 0, 1, MPI_LONG, win), MPI_ERR_RMA_SYNC, "MPI_Put", "put to an unlocked rank");
        expect(MPI_Win_flush(other, win), MPI_ERR_RMA_SYNC, "MPI_Win_flush", "flush of an unlocked rank");
    }
    expect(MPI_Put(v, 1, MPI_LONG, right, 8, 1, MPI_LONG, win), MPI_ERR_RMA_RANGE, "MPI_Put", "past the window, locked");
    MPI_Win keep = win;
    expect(MPI_Win_free(&win), MPI_ERR_RMA_SYNC, "MPI_Win_free", "free with a lock held");
    CHECK(win == keep, "a failed Win_free changed the handle");
    CHECK_MPI(MPI_Win_unlock(right, win));
    /* lock_all */
    CHECK_MPI(MPI_Win_lock_all(0, win));
    expect(MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win), MPI_ERR_RMA_SYNC, "MPI_Win_lock", "lock inside lock_all");
    expect(MPI_Win_unlock(right, win), MPI_ERR_RMA_SYNC, "MPI_Win_unlock", "unlock inside lock_all");
    CHECK_MPI(MPI_Rput(v, 1, MPI_LONG, MPI_PROC_NULL, 0, 1, MPI_LONG, win, &req));
    CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_Win_unlock_all(win));
    /* PSCW */
    MPI_Group world, none;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    CHECK_MPI(MPI_Win_post(MPI_GROUP_EMPTY, 0, win));
    expect(MPI_Win_post(MPI_GROUP_EMPTY, 0, win), MPI_ERR_RMA_SYNC, "MPI_Win_post", "second post");
    expect(MPI_Win_fence(0, win), MPI_ERR_RMA_SYNC, "MPI_Win_fence", "fence in an exposure epoch");
    CHECK_MPI(MPI_Win_wait(win));
    CHECK_MPI(MPI_Win_start(MPI_GROUP_EMPTY, 0, win));
    expect(MPI_Win_start(MPI_GROUP_EMPTY, 0, win), MPI_ERR_RMA_SYNC, "MPI_Win_start", "second start");
    expect(MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win), MPI_ERR_RMA_SYNC, "MPI_Win_lock", "lock inside start");
    expect(MPI_Put(v, 1, MPI_LONG, right, 0, 1, MPI_LONG, win), MPI_ERR_RMA_SYNC, "MPI_Put", "put outside the start group");
    expect(MPI_Rput(v, 1, MPI_LONG, right, 0, 1, MPI_LONG, win, &req), MPI_ERR_RMA_SYNC, "MPI_Rput", "Rput in PSCW");
    CHECK_MPI(MPI_Win_complete(win));
    /* a group member outside the window's group: a window on half of WORLD */
    if (size > 1) {
        MPI_Comm half;
        MPI_Comm_split(MPI_COMM_WORLD, rank == 0, rank, &half);
        MPI_Win hw;
        long* hm;
        CHECK_MPI(MPI_Win_allocate(64, 8, MPI_INFO_NULL, half, &hm, &hw));
        MPI_Win_set_errhandler(hw, MPI_ERRORS_RETURN);
        expect(MPI_Win_post(world, 0, hw), MPI_ERR_GROUP, "MPI_Win_post", "a member outside the window");
        expect(MPI_Win_start(world, 0, hw), MPI_ERR_GROUP, "MPI_Win_start", "a member outside the window");
        CHECK_MPI(MPI_Win_free(&hw));
        MPI_Comm_free(&half);
    }
    /* an origin that completes an access epoch to a target that did not
     * name it (MPI_MODE_NOCHECK on both sides, so nobody waits for a post):
     * the target's wait or test reports MPI_ERR_RMA_SYNC */
    MPI_Barrier(MPI_COMM_WORLD);
    if (size > 1 && rank == 1) {
        MPI_Group g0;
        const int zero = 0;
        MPI_Group_incl(world, 1, &zero, &g0);
        CHECK_MPI(MPI_Win_start(g0, MPI_MODE_NOCHECK, win));
        CHECK_MPI(MPI_Win_complete(win));
        MPI_Group_free(&g0);
    }
    if (size > 1 && rank == 0) {
        const double t0 = MPI_Wtime();
        int rc = MPI_SUCCESS;
        do {  /* the stray completion shows at the first wait that sees it */
            CHECK_MPI(MPI_Win_post(MPI_GROUP_EMPTY, MPI_MODE_NOCHECK, win));
            rc = MPI_Win_test(win, &flag);
        } while (rc == MPI_SUCCESS && MPI_Wtime() - t0 < 30);
        expect(rc, MPI_ERR_RMA_SYNC, "MPI_Win_test", "completion from outside the post group");
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Group_free(&world);
    (void)none;
    for (int i = 0; i < 8; ++i) CHECK(mem[i] == 7, "a refused call wrote mem[%d] = %ld", i, mem[i]);
    CHECK_MPI(MPI_Win_free(&win));
}

int main(int argc, char** argv) {
    mt_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);  /* errors without a window */
    const int target_mode = argc > 1 && strcmp(argv[1], "target") == 0;
    long mem[16], v[32];
    for (int i = 0; i < 16; ++i) mem[i] = 1000 + i;
    for (int i = 0; i < 32; ++i) v[i] = -i;
    MPI_Win win;

    /* creation arguments: raised on the communicator (there is no window
     * yet); every rank fails alike, so nothing collective starts */
    {
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
        void* base = NULL;
        const MPI_Info bad_info = (MPI_Info)(intptr_t)0x4242;
        expect(MPI_Win_create(mem, -8, 8, MPI_INFO_NULL, MPI_COMM_WORLD, &win), MPI_ERR_SIZE,
               "MPI_Win_create", "negative size");
        expect(MPI_Win_create(mem, sizeof mem, 0, MPI_INFO_NULL, MPI_COMM_WORLD, &win), MPI_ERR_DISP,
               "MPI_Win_create", "disp_unit 0");
        expect(MPI_Win_create(NULL, sizeof mem, 8, MPI_INFO_NULL, MPI_COMM_WORLD, &win), MPI_ERR_BASE,
               "MPI_Win_create", "NULL base");
        expect(MPI_Win_create(mem, sizeof mem, 8, bad_info, MPI_COMM_WORLD, &win), MPI_ERR_INFO,
               "MPI_Win_create", "garbage info");
        expect(MPI_Win_create(mem, sizeof mem, 8, MPI_INFO_NULL, MPI_COMM_NULL, &win), MPI_ERR_COMM,
               "MPI_Win_create", "MPI_COMM_NULL");
        expect(MPI_Win_allocate(64, 8, bad_info, MPI_COMM_WORLD, &base, &win), MPI_ERR_INFO,
               "MPI_Win_allocate", "garbage info");
        expect(MPI_Win_allocate(64, 8, MPI_INFO_NULL, MPI_COMM_WORLD, NULL, &win), MPI_ERR_ARG,
               "MPI_Win_allocate", "NULL baseptr");
        expect(MPI_Win_allocate_c(64, -1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win), MPI_ERR_DISP,
               "MPI_Win_allocate_c", "negative disp_unit");
        /* MPI_INFO_ENV is an info object like any other */
        CHECK_MPI(MPI_Win_allocate(64, 8, MPI_INFO_ENV, MPI_COMM_WORLD, &base, &win));
        CHECK_MPI(MPI_Win_free(&win));
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    }
    CHECK_MPI(MPI_Win_create(mem, sizeof mem, sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    int right = (rank + 1) % size;

    if (target_mode) {
        /* the origin does not check: the target refuses and reports at its
         * fence; on a Win_create window (messages, or CMA with
         * CH4LITE_RMA_CMA_MIN=1) and on a Win_allocate one (direct access) */
        CHECK_MPI(MPI_Win_free(&win));
        for (int flavor = 0; flavor < 2; ++flavor) {
            long* m = mem;
            if (flavor == 0)
                CHECK_MPI(MPI_Win_create(mem, sizeof mem, sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
            else
                CHECK_MPI(MPI_Win_allocate(sizeof mem, sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &m, &win));
            MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
            for (int i = 0; i < 16; ++i) m[i] = 1000 + i;
            CHECK_MPI(MPI_Win_fence(0, win));
            CHECK_MPI(MPI_Put(v, 4, MPI_LONG, right, 14, 4, MPI_LONG, win));
            long g[4] = {9, 9, 9, 9};
            CHECK_MPI(MPI_Get(g, 4, MPI_LONG, right, 1L << 40, 4, MPI_LONG, win));
            int rc = MPI_Win_fence(0, win);
            expect(rc, MPI_ERR_RMA_RANGE, "MPI_Win_fence", "refused accesses");
            for (int i = 0; i < 16; ++i) CHECK(m[i] == 1000 + i, "refused put wrote mem[%d]", i);
            for (int i = 0; i < 4; ++i) CHECK(g[i] == 9, "a refused get wrote %ld into the origin buffer", g[i]);
            /* the window still works (next epoch: the loads above must not race it) */
            CHECK_MPI(MPI_Win_fence(0, win));
            CHECK_MPI(MPI_Put(v, 4, MPI_LONG, right, 0, 4, MPI_LONG, win));
            CHECK_MPI(MPI_Win_fence(0, win));
            CHECK(m[3] == -3, "window unusable after a refused access");
            CHECK_MPI(MPI_Win_free(&win));
        }
        if (rank == 0) printf("rma_errors (target checks): OK\n");
        MPI_Finalize();
        return 0;
    }

    /* outside an epoch */
    expect(MPI_Put(v, 1, MPI_LONG, right, 0, 1, MPI_LONG, win), MPI_ERR_RMA_SYNC, "MPI_Put", "put before the first fence");
    CHECK_MPI(MPI_Win_fence(0, win));
    /* rank, displacement, range, counts, types, ops */
    expect(MPI_Put(v, 1, MPI_LONG, size, 0, 1, MPI_LONG, win), MPI_ERR_RANK, "MPI_Put", "rank == size");
    expect(MPI_Get(v, 1, MPI_LONG, -5, 0, 1, MPI_LONG, win), MPI_ERR_RANK, "MPI_Get", "rank < 0");
    expect(MPI_Put(v, 1, MPI_LONG, right, -1, 1, MPI_LONG, win), MPI_ERR_DISP, "MPI_Put", "negative disp");
    expect(MPI_Put(v, 4, MPI_LONG, right, 13, 4, MPI_LONG, win), MPI_ERR_RMA_RANGE, "MPI_Put", "past the end");
    expect(MPI_Get(v, 17, MPI_LONG, right, 0, 17, MPI_LONG, win), MPI_ERR_RMA_RANGE, "MPI_Get", "too long");
    MPI_Datatype vec;
    CHECK_MPI(MPI_Type_vector(4, 1, 6, MPI_LONG, &vec));
    CHECK_MPI(MPI_Type_commit(&vec));
    expect(MPI_Put(v, 4, MPI_LONG, right, 0, 1, vec, win), MPI_ERR_RMA_RANGE, "MPI_Put", "derived type past the end");
    expect(MPI_Put(v, -1, MPI_LONG, right, 0, 1, MPI_LONG, win), MPI_ERR_COUNT, "MPI_Put", "negative count");
    expect(MPI_Put(v, 1, MPI_DATATYPE_NULL, right, 0, 1, MPI_LONG, win), MPI_ERR_TYPE, "MPI_Put", "null type");
    expect(MPI_Put(v, 2, MPI_LONG, right, 0, 1, MPI_LONG, win), MPI_ERR_TYPE, "MPI_Put", "size mismatch");
    /* the edges of the API's fast path (src/api/rma_ops.cpp, xfer_ok) */
    expect(MPI_Put(v, 1, MPI_LONG, right, 16, 1, MPI_LONG, win), MPI_ERR_RMA_RANGE, "MPI_Put", "one past the end");
    expect(MPI_Get(v, 1, MPI_LONG, right, (MPI_Aint)1 << 61, 1, MPI_LONG, win), MPI_ERR_RMA_RANGE, "MPI_Get",
           "disp x disp_unit overflows 64 bits");
    expect(MPI_Put(v, 1, MPI_LONG, right, 0, -1, MPI_LONG, win), MPI_ERR_COUNT, "MPI_Put", "negative target count");
    expect(MPI_Put(NULL, 1, MPI_LONG, right, 0, 1, MPI_LONG, win), MPI_ERR_BUFFER, "MPI_Put", "NULL origin buffer");
    MPI_Datatype vec2;
    CHECK_MPI(MPI_Type_vector(2, 1, 2, MPI_LONG, &vec2));
    CHECK_MPI(MPI_Type_commit(&vec2));
    expect(MPI_Get(v, 3, MPI_LONG, right, 0, 1, vec2, win), MPI_ERR_TYPE, "MPI_Get", "size mismatch, derived target");
    MPI_Type_free(&vec2);
    MPI_Datatype uncommitted;
    CHECK_MPI(MPI_Type_contiguous(2, MPI_LONG, &uncommitted));
    expect(MPI_Get(v, 1, uncommitted, right, 0, 2, MPI_LONG, win), MPI_ERR_TYPE, "MPI_Get", "uncommitted origin type");
    MPI_Type_free(&uncommitted);
    CHECK_MPI(MPI_Put(v, 0, MPI_LONG, right, 1000, 0, MPI_LONG, win)); /* nothing to move: no range */
    long last = 0;
    CHECK_MPI(MPI_Get(&last, 1, MPI_LONG, right, 15, 1, MPI_LONG, win)); /* exactly the last element */
    expect(MPI_Accumulate(v, 1, MPI_LONG, right, 0, 1, MPI_LONG, MPI_OP_NULL, win), MPI_ERR_OP, "MPI_Accumulate", "null op");
    expect(MPI_Accumulate(v, 1, MPI_DOUBLE, right, 0, 1, MPI_DOUBLE, MPI_BAND, win), MPI_ERR_OP, "MPI_Accumulate", "BAND on double");
    expect(MPI_Accumulate(v, 1, MPI_LONG, right, 0, 1, MPI_LONG, MPI_MINLOC, win), MPI_ERR_OP, "MPI_Accumulate", "MINLOC on long");
    expect(MPI_Accumulate(v, 2, MPI_INT, right, 0, 1, MPI_LONG, MPI_SUM, win), MPI_ERR_TYPE, "MPI_Accumulate", "int onto long");
    expect(MPI_Compare_and_swap(v, v + 1, v + 2, MPI_DOUBLE, right, 0, win), MPI_ERR_TYPE, "MPI_Compare_and_swap", "CAS on double");
    expect(MPI_Win_fence(0x7, win), MPI_ERR_ASSERT, "MPI_Win_fence", "bad assert");
    expect(MPI_Put(v, 1, MPI_LONG, right, 0, 1, MPI_LONG, MPI_WIN_NULL), MPI_ERR_WIN, "MPI_Put", "null window");
    /* MPI_PROC_NULL is a no-op */
    CHECK_MPI(MPI_Put(v, 1, MPI_LONG, MPI_PROC_NULL, 0, 1, MPI_LONG, win));
    /* no other epoch inside a fence epoch with operations */
    expect(MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win), MPI_ERR_RMA_SYNC, "MPI_Win_lock", "lock in a fence epoch");
    expect(MPI_Win_lock_all(0, win), MPI_ERR_RMA_SYNC, "MPI_Win_lock_all", "lock_all in a fence epoch");
    expect(MPI_Win_post(MPI_GROUP_EMPTY, 0, win), MPI_ERR_RMA_SYNC, "MPI_Win_post", "post in a fence epoch");
    expect(MPI_Win_flush(right, win), MPI_ERR_RMA_SYNC, "MPI_Win_flush", "flush in a fence epoch");
    /* argument checks come before epoch checks */
    expect(MPI_Put(v, 1, MPI_LONG, -5, 0, 1, MPI_LONG, win), MPI_ERR_RANK, "MPI_Put", "rank -5");
    /* nothing above touched anything */
    CHECK_MPI(MPI_Win_fence(0, win));
    for (int i = 0; i < 16; ++i) CHECK(mem[i] == 1000 + i, "a failed call wrote mem[%d]", i);
    CHECK(last == 1015, "get of the last element: %ld", last);
    CHECK_MPI(MPI_Win_fence(0, win));
    /* NOPRECEDE over an epoch with operations; Win_free with operations pending */
    CHECK_MPI(MPI_Put(v, 1, MPI_LONG, right, 0, 1, MPI_LONG, win));
    expect(MPI_Win_fence(MPI_MODE_NOPRECEDE, win), MPI_ERR_RMA_SYNC, "MPI_Win_fence", "NOPRECEDE with operations");
    MPI_Win keep = win;
    expect(MPI_Win_free(&win), MPI_ERR_RMA_SYNC, "MPI_Win_free", "free with operations pending");
    CHECK(win == keep, "a failed Win_free changed the handle");
    CHECK_MPI(MPI_Win_fence(0, win));
    CHECK(mem[0] == 0, "the pending put was lost");
    /* after NOSUCCEED there is no epoch */
    CHECK_MPI(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
    expect(MPI_Get(v, 1, MPI_LONG, right, 0, 1, MPI_LONG, win), MPI_ERR_RMA_SYNC, "MPI_Get", "get after NOSUCCEED");
    /* a user error handler sees the error */
    MPI_Errhandler eh, got;
    CHECK_MPI(MPI_Win_create_errhandler(on_error, &eh));
    CHECK_MPI(MPI_Win_set_errhandler(win, eh));
    CHECK_MPI(MPI_Win_get_errhandler(win, &got));
    CHECK(got == eh, "Win_get_errhandler");
    MPI_Errhandler_free(&got);
    MPI_Put(v, 1, MPI_LONG, right, 0, 1, MPI_LONG, win);
    CHECK(handler_calls == 1 && handler_class == MPI_ERR_RMA_SYNC, "user handler: %d calls, class %d",
          handler_calls, handler_class);
    CHECK_MPI(MPI_Win_call_errhandler(win, MPI_ERR_OTHER));
    CHECK(handler_calls == 2 && handler_class == MPI_ERR_OTHER, "Win_call_errhandler");
    MPI_Errhandler_free(&eh);
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    MPI_Type_free(&vec);
    CHECK_MPI(MPI_Win_free(&win));
    expect(MPI_Win_free(&win), MPI_ERR_WIN, "MPI_Win_free", "double free");
    sync_errors();
    attrs_and_info();
    if (rank == 0) printf("rma_errors: OK\n");
    MPI_Finalize();
    return 0;
}
