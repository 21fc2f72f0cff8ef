/* SPDX-License-Identifier: MIT */
/* Persistent point-to-point requests (MPI-4.1 §3.9) and the completion
 * functions on them:
 *  - a ring of MPI_Send_init/MPI_Recv_init started many times with
 *    MPI_Startall, completed with MPI_Waitall / MPI_Testall / MPI_Waitany /
 *    MPI_Waitsome in turn; every byte and status checked each time, the
 *    buffer contents changed between starts (the recipe keeps the address);
 *  - the handle stays valid after completion; an inactive persistent request
 *    in MPI_Wait/MPI_Test/MPI_Request_get_status is complete with an empty
 *    status and keeps its handle; MPI_Waitany/Waitsome skip it;
 *  - Ssend_init (synchronous: does not complete before the receive is
 *    posted), Rsend_init, a noncontiguous datatype freed right after init,
 *    MPI_PROC_NULL, MPI_ANY_SOURCE/MPI_ANY_TAG receives reporting the source;
 *  - ordering: persistent and ordinary sends to one peer arrive in order;
 *  - errors: MPI_Start of an active request and of a non-persistent one
 *    (MPI_ERR_REQUEST, runtime usable after), MPI_Cancel of an inactive one;
 *  - MPI_Request_free of an active send lets it complete (the peer receives).
 * Argument: the number of starts (default 200). */
#include "mpitest.h"

static void expect_class(int rc, int cls, const char* what) {
    int c = MPI_SUCCESS;
    MPI_Error_class(rc, &c);
    CHECK(c == cls, "%s: error class %d, expected %d", what, c, cls);
}

int main(int argc, char** argv) {
    mt_init(&argc, &argv);
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int me = mt_rank;
    const int iters = argc > 1 ? atoi(argv[1]) : 200;
    const int right = (me + 1) % size, left = (me + size - 1) % size;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);

    /* ring: sizes from a few bytes to a rendezvous one */
    enum { N = 3 };
    const int counts[N] = {3, 1000, 40000};
    int* sbuf[N];
    int* rbuf[N];
    MPI_Request req[2 * N];
    for (int k = 0; k < N; ++k) {
        sbuf[k] = malloc(sizeof(int) * (size_t)counts[k]);
        rbuf[k] = malloc(sizeof(int) * (size_t)counts[k]);
        CHECK_MPI(MPI_Send_init(sbuf[k], counts[k], MPI_INT, right, 10 + k, MPI_COMM_WORLD, &req[k]));
        CHECK_MPI(MPI_Recv_init(rbuf[k], counts[k], MPI_INT, left, 10 + k, MPI_COMM_WORLD, &req[N + k]));
    }
    for (int it = 0; it < iters; ++it) {
        for (int k = 0; k < N; ++k) {
            for (int i = 0; i < counts[k]; ++i) sbuf[k][i] = me * 1000003 + it * 7 + i;
            memset(rbuf[k], 0xff, sizeof(int) * (size_t)counts[k]);
        }
        MPI_Request keep[2 * N];
        memcpy(keep, req, sizeof req);
        CHECK_MPI(MPI_Startall(2 * N, req));
        MPI_Status st[2 * N];
        switch (it % 4) {
            case 0: CHECK_MPI(MPI_Waitall(2 * N, req, st)); break;
            case 1: {
                int flag = 0;
                while (!flag) CHECK_MPI(MPI_Testall(2 * N, req, &flag, st));
                break;
            }
            case 2:
                for (int d = 0; d < 2 * N; ++d) {
                    int idx = -1;
                    MPI_Status s;
                    CHECK_MPI(MPI_Waitany(2 * N, req, &idx, &s));
                    CHECK(idx >= 0 && idx < 2 * N, "Waitany index %d", idx);
                    st[idx] = s;
                }
                { /* every request is now inactive: Waitany reports none active */
                    int idx = 0;
                    CHECK_MPI(MPI_Waitany(2 * N, req, &idx, MPI_STATUS_IGNORE));
                    CHECK(idx == MPI_UNDEFINED, "Waitany over inactive requests gave index %d", idx);
                }
                break;
            default: {
                int done = 0;
                while (done < 2 * N) {
                    int out = 0, idx[2 * N];
                    MPI_Status s[2 * N];
                    CHECK_MPI(MPI_Waitsome(2 * N, req, &out, idx, s));
                    CHECK(out != MPI_UNDEFINED && out > 0, "Waitsome outcount %d with %d pending", out,
                          2 * N - done);
                    for (int j = 0; j < out; ++j) st[idx[j]] = s[j];
                    done += out;
                }
                int out = 0, idx[2 * N];
                CHECK_MPI(MPI_Waitsome(2 * N, req, &out, idx, MPI_STATUSES_IGNORE));
                CHECK(out == MPI_UNDEFINED, "Waitsome over inactive requests gave %d", out);
            }
        }
        for (int k = 0; k < 2 * N; ++k)
            CHECK(req[k] == keep[k], "persistent handle %d changed by completion (iteration %d)", k, it);
        for (int k = 0; k < N; ++k) {
            for (int i = 0; i < counts[k]; ++i)
                CHECK(rbuf[k][i] == left * 1000003 + it * 7 + i, "iteration %d message %d element %d: %d",
                      it, k, i, rbuf[k][i]);
            int cnt = -1;
            MPI_Get_count(&st[N + k], MPI_INT, &cnt);
            CHECK(cnt == counts[k] && st[N + k].MPI_SOURCE == left && st[N + k].MPI_TAG == 10 + k,
                  "status of receive %d: count %d source %d tag %d", k, cnt, st[N + k].MPI_SOURCE,
                  st[N + k].MPI_TAG);
        }
    }
    /* inactive requests: complete at once, empty status, handle kept */
    {
        MPI_Request h = req[N];
        MPI_Status s;
        int flag = 0;
        s.MPI_SOURCE = 77;
        CHECK_MPI(MPI_Wait(&req[N], &s));
        CHECK(req[N] == h && s.MPI_SOURCE == MPI_ANY_SOURCE && s.MPI_TAG == MPI_ANY_TAG,
              "Wait on an inactive persistent request: handle %s, source %d", req[N] == h ? "kept" : "changed",
              s.MPI_SOURCE);
        CHECK_MPI(MPI_Test(&req[N], &flag, &s));
        CHECK(flag && req[N] == h, "Test on an inactive persistent request");
        flag = 0;
        CHECK_MPI(MPI_Request_get_status(req[N], &flag, &s));
        CHECK(flag, "Request_get_status on an inactive persistent request");
        int cnt = -1;
        MPI_Get_count(&s, MPI_INT, &cnt);
        CHECK(cnt == 0, "empty status count %d", cnt);
    }
    /* errors: Start of an active request, of an ordinary one; Cancel of an inactive one */
    {
        CHECK_MPI(MPI_Start(&req[N]));
        expect_class(MPI_Start(&req[N]), MPI_ERR_REQUEST, "MPI_Start of an active request");
        CHECK_MPI(MPI_Start(&req[0]));
        CHECK_MPI(MPI_Wait(&req[0], MPI_STATUS_IGNORE));
        CHECK_MPI(MPI_Wait(&req[N], MPI_STATUS_IGNORE));
        CHECK(rbuf[0][0] == left * 1000003 + (iters - 1) * 7, "restart after the error: %d", rbuf[0][0]);
        MPI_Request ord;
        int x = 0;
        CHECK_MPI(MPI_Irecv(&x, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &ord));
        expect_class(MPI_Start(&ord), MPI_ERR_REQUEST, "MPI_Start of a nonpersistent request");
        CHECK_MPI(MPI_Wait(&ord, MPI_STATUS_IGNORE));
        expect_class(MPI_Cancel(&req[0]), MPI_ERR_REQUEST, "MPI_Cancel of an inactive request");
        MPI_Request bad[2] = {req[0], MPI_REQUEST_NULL};
        expect_class(MPI_Startall(2, bad), MPI_ERR_REQUEST, "MPI_Startall with MPI_REQUEST_NULL");
        int flag = 0;
        CHECK_MPI(MPI_Test(&req[0], &flag, MPI_STATUS_IGNORE));
        CHECK(flag, "MPI_Startall with a bad entry started the good one");
    }
    for (int k = 0; k < 2 * N; ++k) {
        CHECK_MPI(MPI_Request_free(&req[k]));
        CHECK(req[k] == MPI_REQUEST_NULL, "Request_free left the handle");
    }
    /* noncontiguous type freed after init; synchronous and ready modes;
     * wildcards; ordering with ordinary sends; PROC_NULL */
    {
        MPI_Datatype vec;
        MPI_Type_vector(4, 1, 3, MPI_INT, &vec);
        MPI_Type_commit(&vec);
        int vs[12], vr[12], a = 0, b = 0, c = 0;
        MPI_Request s4[4], r4[4];
        CHECK_MPI(MPI_Ssend_init(vs, 1, vec, right, 5, MPI_COMM_WORLD, &s4[0]));
        CHECK_MPI(MPI_Recv_init(vr, 1, vec, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &r4[0]));
        MPI_Type_free(&vec);
        CHECK_MPI(MPI_Rsend_init(&a, 1, MPI_INT, right, 6, MPI_COMM_WORLD, &s4[1]));
        CHECK_MPI(MPI_Recv_init(&b, 1, MPI_INT, left, 6, MPI_COMM_WORLD, &r4[1]));
        CHECK_MPI(MPI_Send_init(&c, 1, MPI_INT, MPI_PROC_NULL, 7, MPI_COMM_WORLD, &s4[2]));
        CHECK_MPI(MPI_Recv_init(&c, 1, MPI_INT, MPI_PROC_NULL, 7, MPI_COMM_WORLD, &r4[2]));
        for (int it = 0; it < 20; ++it) {
            for (int i = 0; i < 12; ++i) {
                vs[i] = me * 100 + it + i;
                vr[i] = -1;
            }
            a = me + it;
            CHECK_MPI(MPI_Startall(2, &r4[0]));  /* receives first: Rsend needs them posted */
            MPI_Barrier(MPI_COMM_WORLD);
            CHECK_MPI(MPI_Startall(2, &s4[0]));
            CHECK_MPI(MPI_Start(&s4[2]));
            CHECK_MPI(MPI_Start(&r4[2]));
            MPI_Status st[3];
            CHECK_MPI(MPI_Waitall(3, s4, MPI_STATUSES_IGNORE));
            CHECK_MPI(MPI_Waitall(3, r4, st));
            for (int i = 0; i < 12; ++i)
                CHECK(vr[i] == (i % 3 == 0 ? left * 100 + it + i : -1), "vector element %d: %d", i, vr[i]);
            CHECK(st[0].MPI_SOURCE == left && st[0].MPI_TAG == 5, "wildcard status %d/%d",
                  st[0].MPI_SOURCE, st[0].MPI_TAG);
            CHECK(b == left + it, "ready-mode value %d", b);
            CHECK(st[2].MPI_SOURCE == MPI_PROC_NULL, "PROC_NULL receive source %d", st[2].MPI_SOURCE);
        }
        /* order: persistent, ordinary, persistent to the same peer and tag */
        int o1 = 1, o2 = 2, o3 = 3, got[3];
        MPI_Request ps, o;
        CHECK_MPI(MPI_Send_init(&o1, 1, MPI_INT, right, 8, MPI_COMM_WORLD, &ps));
        CHECK_MPI(MPI_Start(&ps));
        CHECK_MPI(MPI_Isend(&o2, 1, MPI_INT, right, 8, MPI_COMM_WORLD, &o));
        for (int i = 0; i < 3; ++i) {
            if (i == 2) {
                CHECK_MPI(MPI_Wait(&ps, MPI_STATUS_IGNORE));
                o1 = o3;
                CHECK_MPI(MPI_Start(&ps));
            }
            CHECK_MPI(MPI_Recv(&got[i], 1, MPI_INT, left, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        }
        CHECK(got[0] == 1 && got[1] == 2 && got[2] == 3, "order %d %d %d", got[0], got[1], got[2]);
        CHECK_MPI(MPI_Wait(&o, MPI_STATUS_IGNORE));
        /* Request_free of an active send: it still arrives */
        CHECK_MPI(MPI_Request_free(&ps));
        for (int k = 0; k < 3; ++k) {
            CHECK_MPI(MPI_Request_free(&s4[k]));
            CHECK_MPI(MPI_Request_free(&r4[k]));
        }
    }
    /* Ssend_init: the send does not complete before the receive starts */
    if (size >= 2 && me < 2) {
        int v = 42, w = 0, flag = 1;
        MPI_Request s;
        if (me == 0) {
            CHECK_MPI(MPI_Ssend_init(&v, 1, MPI_INT, 1, 9, MPI_COMM_WORLD, &s));
            CHECK_MPI(MPI_Start(&s));
            for (int i = 0; i < 50; ++i) CHECK_MPI(MPI_Test(&s, &flag, MPI_STATUS_IGNORE));
            CHECK(!flag, "synchronous persistent send completed before the receive was posted");
            MPI_Send(&v, 0, MPI_INT, 1, 99, MPI_COMM_WORLD);
            CHECK_MPI(MPI_Wait(&s, MPI_STATUS_IGNORE));
            CHECK_MPI(MPI_Request_free(&s));
        } else {
            MPI_Recv(&w, 0, MPI_INT, 0, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            CHECK_MPI(MPI_Recv(&w, 1, MPI_INT, 0, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            CHECK(w == 42, "synchronous value %d", w);
        }
    }
    for (int k = 0; k < N; ++k) {
        free(sbuf[k]);
        free(rbuf[k]);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == 0) printf("persistent: OK\n");
    MPI_Finalize();
    return 0;
}
