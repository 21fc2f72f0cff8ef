/* SPDX-License-Identifier: MIT */
/* Generalized requests (MPI-4.1 §13.2): the callbacks run as the standard
 * says.
 *  - MPI_Wait: query_fn (its status reaches the caller: source, tag, count,
 *    cancelled) then free_fn, once each, in that order, and only after
 *    MPI_Grequest_complete; MPI_Test before completion returns flag 0 and
 *    calls nothing;
 *  - MPI_Request_get_status of a complete one calls query_fn only;
 *  - MPI_Cancel calls cancel_fn with complete = whether it was completed;
 *  - MPI_Request_free before completion: free_fn runs at
 *    MPI_Grequest_complete, query_fn never;
 *  - a query_fn that returns an error: MPI_Wait returns that code (under
 *    MPI_ERRORS_RETURN), MPI_Waitall returns MPI_ERR_IN_STATUS with the code
 *    in the status; free_fn still runs;
 *  - mixed with point-to-point requests in MPI_Waitall / MPI_Waitany;
 *  - bad input: MPI_Grequest_complete of an ordinary request or twice, a NULL
 *    callback (MPI_ERR_REQUEST / MPI_ERR_ARG, runtime usable). */
#include "mpitest.h"

struct state {
    int id;
    int calls[3];   /* query, free, cancel */
    char log[16];   /* order of calls: q f c */
    int nlog;
    int cancel_complete;
    int query_error;
};

static int query_fn(void* extra, MPI_Status* status) {
    struct state* s = extra;
    s->calls[0]++;
    s->log[s->nlog++] = 'q';
    MPI_Status_set_elements(status, MPI_INT, 5);
    MPI_Status_set_cancelled(status, 0);
    status->MPI_SOURCE = 100 + s->id;
    status->MPI_TAG = 200 + s->id;
    return s->query_error;
}
static int free_fn(void* extra) {
    struct state* s = extra;
    s->calls[1]++;
    s->log[s->nlog++] = 'f';
    return MPI_SUCCESS;
}
static int cancel_fn(void* extra, int complete) {
    struct state* s = extra;
    s->calls[2]++;
    s->log[s->nlog++] = 'c';
    s->cancel_complete = complete;
    return MPI_SUCCESS;
}

static void expect_class(int rc, int cls, const char* what) {
    int c = MPI_SUCCESS;
    MPI_Error_class(rc, &c);
    CHECK(c == cls, "%s: error class %d, expected %d", what, c, cls);
}

int main(int argc, char** argv) {
    mt_init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    /* Wait: query then free, after completion only */
    {
        struct state s = {.id = 1};
        MPI_Request r;
        int flag = 1;
        CHECK_MPI(MPI_Grequest_start(query_fn, free_fn, cancel_fn, &s, &r));
        CHECK_MPI(MPI_Test(&r, &flag, MPI_STATUS_IGNORE));
        CHECK(!flag && s.nlog == 0, "Test before completion: flag %d, %d calls", flag, s.nlog);
        CHECK_MPI(MPI_Grequest_complete(r));
        MPI_Status st;
        CHECK_MPI(MPI_Wait(&r, &st));
        int cnt = -1, canc = 1;
        MPI_Get_count(&st, MPI_INT, &cnt);
        MPI_Test_cancelled(&st, &canc);
        CHECK(r == MPI_REQUEST_NULL, "handle not freed");
        CHECK(s.nlog == 2 && s.log[0] == 'q' && s.log[1] == 'f', "calls %.*s", s.nlog, s.log);
        CHECK(cnt == 5 && !canc && st.MPI_SOURCE == 101 && st.MPI_TAG == 201,
              "status from query_fn: count %d source %d tag %d", cnt, st.MPI_SOURCE, st.MPI_TAG);
    }
    /* get_status: query only; cancel: complete flag; then Wait */
    {
        struct state s = {.id = 2};
        MPI_Request r;
        int flag = 1;
        MPI_Status st;
        CHECK_MPI(MPI_Grequest_start(query_fn, free_fn, cancel_fn, &s, &r));
        CHECK_MPI(MPI_Request_get_status(r, &flag, &st));
        CHECK(!flag && s.nlog == 0, "get_status before completion");
        CHECK_MPI(MPI_Cancel(&r));
        CHECK(s.calls[2] == 1 && s.cancel_complete == 0, "cancel_fn before completion: %d calls, complete %d",
              s.calls[2], s.cancel_complete);
        CHECK_MPI(MPI_Grequest_complete(r));
        CHECK_MPI(MPI_Cancel(&r));
        CHECK(s.calls[2] == 2 && s.cancel_complete == 1, "cancel_fn after completion: complete %d",
              s.cancel_complete);
        CHECK_MPI(MPI_Request_get_status(r, &flag, &st));
        CHECK(flag && s.calls[0] == 1 && s.calls[1] == 0 && st.MPI_TAG == 202, "get_status after completion");
        CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
        CHECK(s.calls[0] == 2 && s.calls[1] == 1, "Wait after get_status: %d queries %d frees",
              s.calls[0], s.calls[1]);
    }
    /* Request_free before completion: free_fn at completion, no query */
    {
        struct state s = {.id = 3};
        MPI_Request r, h;
        CHECK_MPI(MPI_Grequest_start(query_fn, free_fn, cancel_fn, &s, &r));
        h = r;
        CHECK_MPI(MPI_Request_free(&r));
        CHECK(r == MPI_REQUEST_NULL && s.nlog == 0, "Request_free before completion called %d callbacks", s.nlog);
        CHECK_MPI(MPI_Grequest_complete(h));
        CHECK(s.calls[1] == 1 && s.calls[0] == 0, "free_fn at completion: %d frees %d queries", s.calls[1],
              s.calls[0]);
    }
    /* a failing query_fn: its code comes back; free_fn still runs */
    {
        struct state s = {.id = 4, .query_error = MPI_ERR_OTHER};
        MPI_Request r;
        CHECK_MPI(MPI_Grequest_start(query_fn, free_fn, cancel_fn, &s, &r));
        CHECK_MPI(MPI_Grequest_complete(r));
        expect_class(MPI_Wait(&r, MPI_STATUS_IGNORE), MPI_ERR_OTHER, "Wait with a failing query_fn");
        CHECK(s.calls[1] == 1 && r == MPI_REQUEST_NULL, "free after a failing query");
        struct state t = {.id = 5, .query_error = MPI_ERR_ACCESS};
        MPI_Request rs[2];
        MPI_Status sts[2];
        int x = 0;
        CHECK_MPI(MPI_Grequest_start(query_fn, free_fn, cancel_fn, &t, &rs[0]));
        CHECK_MPI(MPI_Irecv(&x, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &rs[1]));
        CHECK_MPI(MPI_Grequest_complete(rs[0]));
        expect_class(MPI_Waitall(2, rs, sts), MPI_ERR_IN_STATUS, "Waitall with a failing query_fn");
        expect_class(sts[0].MPI_ERROR, MPI_ERR_ACCESS, "status of the failing generalized request");
        CHECK(sts[1].MPI_ERROR == MPI_SUCCESS && sts[1].MPI_SOURCE == MPI_PROC_NULL, "status of the receive");
    }
    /* mixed with a real message in Waitany */
    if (size >= 2) {
        struct state s = {.id = 6};
        MPI_Request rs[2];
        int v = mt_rank, w = -1;
        const int peer = mt_rank ^ 1;
        CHECK_MPI(MPI_Grequest_start(query_fn, free_fn, cancel_fn, &s, &rs[0]));
        if (peer < size) {
            CHECK_MPI(MPI_Irecv(&w, 1, MPI_INT, peer, 3, MPI_COMM_WORLD, &rs[1]));
            CHECK_MPI(MPI_Send(&v, 1, MPI_INT, peer, 3, MPI_COMM_WORLD));
        } else {
            rs[1] = MPI_REQUEST_NULL;
        }
        int idx = -1;
        if (peer < size) {
            CHECK_MPI(MPI_Waitany(2, rs, &idx, MPI_STATUS_IGNORE));
            CHECK(idx == 1 && w == peer, "Waitany: index %d value %d", idx, w);
        }
        CHECK_MPI(MPI_Grequest_complete(rs[0]));
        CHECK_MPI(MPI_Waitany(2, rs, &idx, MPI_STATUS_IGNORE));
        CHECK(idx == 0 && s.calls[1] == 1, "Waitany of the generalized request: index %d", idx);
    }
    /* bad input */
    {
        struct state s = {.id = 7};
        MPI_Request r, o;
        int x = 0;
        CHECK_MPI(MPI_Irecv(&x, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &o));
        expect_class(MPI_Grequest_complete(o), MPI_ERR_REQUEST, "Grequest_complete of an ordinary request");
        CHECK_MPI(MPI_Wait(&o, MPI_STATUS_IGNORE));
        expect_class(MPI_Grequest_start(NULL, free_fn, cancel_fn, &s, &r), MPI_ERR_ARG, "NULL query_fn");
        CHECK_MPI(MPI_Grequest_start(query_fn, free_fn, cancel_fn, &s, &r));
        CHECK_MPI(MPI_Grequest_complete(r));
        expect_class(MPI_Grequest_complete(r), MPI_ERR_REQUEST, "Grequest_complete twice");
        CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
        CHECK(s.calls[0] == 1 && s.calls[1] == 1, "after bad input");
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (mt_rank == 0) printf("grequest: OK\n");
    MPI_Finalize();
    return 0;
}
