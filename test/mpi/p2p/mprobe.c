/* SPDX-License-Identifier: MIT */
/* Matched probe (MPI-4.1 §3.8.2): MPI_Mprobe, MPI_Improbe, MPI_Mrecv,
 * MPI_Imrecv, MPI_MESSAGE_NO_PROC, MPI_Message_toint/fromint.
 *  - no stealing: every rank but 0 sends rank 0 a first and a second
 *    message; rank 0 matches the first of one sender with MPI_Mprobe
 *    (MPI_ANY_SOURCE, MPI_ANY_TAG), then posts receives with MPI_ANY_SOURCE
 *    and MPI_ANY_TAG (nonblocking and blocking) that must take every other
 *    message, never the probed one, which MPI_Mrecv then gets intact. Under
 *    -ppn the senders are shm peers and netmod peers at once;
 *  - sizes 0 B .. 200 KiB (eager, rendezvous; above CH4LITE_TAGGED_RNDV_MIN
 *    on the native path when the test sets it low), MPI_Ssend messages
 *    matched while a probed message waits, and one that is probed itself,
 *    a noncontiguous receive type, MPI_Imrecv, MPI_Improbe polling;
 *  - errors: MPI_Mrecv of a message twice (and of MPI_MESSAGE_NULL):
 *    MPI_ERR_REQUEST; a too small buffer: MPI_ERR_TRUNCATE; MPI_PROC_NULL
 *    gives MPI_MESSAGE_NO_PROC, whose receive is empty.
 * Argument: rounds (default 10). */
#include "mpitest.h"

static void expect_class(int rc, int cls, const char* what) {
    int c = MPI_SUCCESS;
    MPI_Error_class(rc, &c);
    CHECK(c == cls, "%s: error class %d, expected %d", what, c, cls);
}

enum { NSIZE = 5 };
static const int sizes[NSIZE] = {0, 8, 1000, 40000, 200000};

int main(int argc, char** argv) {
    mt_init(&argc, &argv);
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int me = mt_rank;
    const int rounds = argc > 1 ? atoi(argv[1]) : 10;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    char* buf = malloc(200000);
    char* other = malloc(200000);

    for (int it = 0; it < rounds; ++it) {
        const int sz = sizes[it % NSIZE];
        const int sync = it % 3 == 1;
        if (me != 0) {
            /* first message (tag 1), then second (tag 2); nonblocking: a
             * large first one completes only when rank 0 receives it, after
             * the second */
            MPI_Request q[2];
            mt_fill(buf, (size_t)sz, me * 1000 + it);
            CHECK_MPI(MPI_Isend(buf, sz, MPI_CHAR, 0, 1, MPI_COMM_WORLD, &q[0]));
            mt_fill(other, (size_t)sz, me * 1000 + it + 500);
            if (sync) /* matched by a wildcard receive while rank 0 holds a probed message */
                CHECK_MPI(MPI_Issend(other, sz, MPI_CHAR, 0, 2, MPI_COMM_WORLD, &q[1]));
            else
                CHECK_MPI(MPI_Isend(other, sz, MPI_CHAR, 0, 2, MPI_COMM_WORLD, &q[1]));
            CHECK_MPI(MPI_Waitall(2, q, MPI_STATUSES_IGNORE));
        } else {
            MPI_Message msg;
            MPI_Status st;
            if (it % 2) {
                CHECK_MPI(MPI_Mprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &msg, &st));
            } else {
                int flag = 0;
                while (!flag)
                    CHECK_MPI(MPI_Improbe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &msg, &st));
            }
            CHECK(st.MPI_TAG == 1, "round %d: the first message matched has tag %d", it, st.MPI_TAG);
            const int src = st.MPI_SOURCE;
            int cnt = -1;
            MPI_Get_count(&st, MPI_CHAR, &cnt);
            CHECK(cnt == sz, "probe count %d, sent %d", cnt, sz);
            CHECK(MPI_Message_fromint(MPI_Message_toint(msg)) == msg, "message handle conversion");
            /* every other message (2 * (size - 1) - 1 of them) through wildcard receives */
            int left = 2 * (size - 1) - 1;
            int seen_second_of_src = 0;
            while (left > 0) {
                MPI_Status rs;
                if (left % 2) {
                    MPI_Request r;
                    CHECK_MPI(MPI_Irecv(other, 200000, MPI_CHAR, MPI_ANY_SOURCE, MPI_ANY_TAG,
                                        MPI_COMM_WORLD, &r));
                    CHECK_MPI(MPI_Wait(&r, &rs));
                } else {
                    CHECK_MPI(MPI_Recv(other, 200000, MPI_CHAR, MPI_ANY_SOURCE, MPI_ANY_TAG,
                                       MPI_COMM_WORLD, &rs));
                }
                const int seed = rs.MPI_SOURCE * 1000 + it + (rs.MPI_TAG == 2 ? 500 : 0);
                CHECK(!(rs.MPI_SOURCE == src && rs.MPI_TAG == 1),
                      "round %d: a wildcard receive stole the probed message of rank %d", it, src);
                CHECK(mt_verify(other, (size_t)sz, seed) == 0, "round %d: message %d/%d corrupt", it,
                      rs.MPI_SOURCE, rs.MPI_TAG);
                if (rs.MPI_SOURCE == src) seen_second_of_src = 1;
                --left;
            }
            CHECK(seen_second_of_src, "the second message of rank %d never came", src);
            memset(buf, 0, 200000);
            if (it % 4 == 2) { /* noncontiguous: the bytes land every other char */
                MPI_Datatype pair;
                MPI_Type_create_resized(MPI_CHAR, 0, 2, &pair);
                MPI_Type_commit(&pair);
                CHECK_MPI(MPI_Mrecv(other, sz, pair, &msg, &st));
                for (int i = 0; i < sz; ++i) buf[i] = other[2 * i];
                MPI_Type_free(&pair);
            } else if (it % 4 == 3) {
                MPI_Request r;
                CHECK_MPI(MPI_Imrecv(buf, sz, MPI_CHAR, &msg, &r));
                CHECK_MPI(MPI_Wait(&r, &st));
            } else {
                CHECK_MPI(MPI_Mrecv(buf, sz, MPI_CHAR, &msg, &st));
            }
            CHECK(msg == MPI_MESSAGE_NULL, "the message handle was not reset");
            CHECK(st.MPI_SOURCE == src && st.MPI_TAG == 1, "Mrecv status %d/%d", st.MPI_SOURCE, st.MPI_TAG);
            MPI_Get_count(&st, MPI_CHAR, &cnt);
            CHECK(cnt == sz, "Mrecv count %d, sent %d", cnt, sz);
            const size_t bad = mt_verify(buf, (size_t)sz, src * 1000 + it);
            CHECK(bad == 0, "round %d: probed message of rank %d (%d B) corrupt at %zu", it, src, sz, bad - 1);
        }
        MPI_Barrier(MPI_COMM_WORLD);
    }

    /* errors, MPI_MESSAGE_NO_PROC, truncation */
    if (me == 0) {
        MPI_Message msg;
        MPI_Status st;
        int x = 5;
        CHECK_MPI(MPI_Mprobe(MPI_PROC_NULL, 3, MPI_COMM_WORLD, &msg, &st));
        CHECK(msg == MPI_MESSAGE_NO_PROC && st.MPI_SOURCE == MPI_PROC_NULL, "probe of MPI_PROC_NULL");
        CHECK_MPI(MPI_Mrecv(&x, 1, MPI_INT, &msg, &st));
        int cnt = -1;
        MPI_Get_count(&st, MPI_INT, &cnt);
        CHECK(msg == MPI_MESSAGE_NULL && st.MPI_SOURCE == MPI_PROC_NULL && cnt == 0 && x == 5,
              "receive of MPI_MESSAGE_NO_PROC");
        expect_class(MPI_Mrecv(&x, 1, MPI_INT, &msg, &st), MPI_ERR_REQUEST, "Mrecv of MPI_MESSAGE_NULL");
        /* Calls that return one status leave its MPI_ERROR alone (MPI-4.1
         * 3.2.5), also for MPI_PROC_NULL (MPICH's threads/pt2pt/mt_mprobe_*
         * check it; MPICH and Open MPI do not touch it). */
        {
            MPI_Status s;
            int fl = 0;
            s.MPI_ERROR = 12345;
            CHECK_MPI(MPI_Mprobe(MPI_PROC_NULL, 3, MPI_COMM_WORLD, &msg, &s));
            CHECK(s.MPI_ERROR == 12345, "MPI_Mprobe(MPI_PROC_NULL) wrote MPI_ERROR %d", s.MPI_ERROR);
            CHECK_MPI(MPI_Mrecv(&x, 1, MPI_INT, &msg, &s));
            CHECK(s.MPI_ERROR == 12345, "MPI_Mrecv(MPI_MESSAGE_NO_PROC) wrote MPI_ERROR %d", s.MPI_ERROR);
            CHECK_MPI(MPI_Improbe(MPI_PROC_NULL, 3, MPI_COMM_WORLD, &fl, &msg, &s));
            CHECK(fl && s.MPI_ERROR == 12345, "MPI_Improbe(MPI_PROC_NULL) wrote MPI_ERROR %d", s.MPI_ERROR);
            CHECK_MPI(MPI_Mrecv(&x, 1, MPI_INT, &msg, &s));
            CHECK_MPI(MPI_Probe(MPI_PROC_NULL, 3, MPI_COMM_WORLD, &s));
            CHECK(s.MPI_ERROR == 12345, "MPI_Probe(MPI_PROC_NULL) wrote MPI_ERROR %d", s.MPI_ERROR);
            CHECK_MPI(MPI_Iprobe(MPI_PROC_NULL, 3, MPI_COMM_WORLD, &fl, &s));
            CHECK(s.MPI_ERROR == 12345, "MPI_Iprobe(MPI_PROC_NULL) wrote MPI_ERROR %d", s.MPI_ERROR);
            CHECK_MPI(MPI_Recv(&x, 1, MPI_INT, MPI_PROC_NULL, 3, MPI_COMM_WORLD, &s));
            CHECK(s.MPI_ERROR == 12345, "MPI_Recv(MPI_PROC_NULL) wrote MPI_ERROR %d", s.MPI_ERROR);
            MPI_Request q = MPI_REQUEST_NULL;
            int idx = -1;
            CHECK_MPI(MPI_Irecv(&x, 1, MPI_INT, MPI_PROC_NULL, 3, MPI_COMM_WORLD, &q));
            CHECK_MPI(MPI_Request_get_status_any(1, &q, &idx, &fl, &s));
            CHECK(fl && idx == 0 && s.MPI_ERROR == 12345, "MPI_Request_get_status_any wrote MPI_ERROR %d",
                  s.MPI_ERROR);
            CHECK_MPI(MPI_Wait(&q, &s));
            CHECK(q == MPI_REQUEST_NULL && s.MPI_ERROR == 12345, "MPI_Wait of a PROC_NULL receive wrote MPI_ERROR");
            CHECK_MPI(MPI_Wait(&q, &s));
            CHECK(s.MPI_ERROR == 12345 && s.MPI_SOURCE == MPI_ANY_SOURCE, "MPI_Wait(MPI_REQUEST_NULL) status");
            MPI_Status ss[2];
            MPI_Request qs[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
            ss[0].MPI_ERROR = ss[1].MPI_ERROR = 12345;
            CHECK_MPI(MPI_Waitall(2, qs, ss));
            CHECK(ss[0].MPI_SOURCE == MPI_ANY_SOURCE && ss[1].MPI_TAG == MPI_ANY_TAG, "MPI_Waitall of null requests");
        }
        if (size > 1) {
            int y[4] = {0, 0, 0, 0};
            CHECK_MPI(MPI_Mprobe(1, 4, MPI_COMM_WORLD, &msg, &st));
            const MPI_Message copy = msg;
            expect_class(MPI_Mrecv(y, 2, MPI_INT, &msg, &st), MPI_ERR_TRUNCATE, "Mrecv into 2 of 4 ints");
            CHECK(y[0] == 11 && y[1] == 12, "truncated receive got %d %d", y[0], y[1]);
            msg = copy;
            expect_class(MPI_Mrecv(y, 4, MPI_INT, &msg, &st), MPI_ERR_REQUEST, "Mrecv of a message twice");
            int flag = 1;
            CHECK_MPI(MPI_Improbe(1, 4, MPI_COMM_WORLD, &flag, &msg, &st));
            CHECK(!flag, "Improbe found a message that was already received");
            /* a synchronous send completes once its probed message is received */
            CHECK_MPI(MPI_Mprobe(1, 5, MPI_COMM_WORLD, &msg, &st));
            CHECK_MPI(MPI_Mrecv(y, 4, MPI_INT, &msg, &st));
            CHECK(y[3] == 24, "synchronous message %d", y[3]);
        }
    } else if (me == 1) {
        int y[4] = {11, 12, 13, 14};
        CHECK_MPI(MPI_Send(y, 4, MPI_INT, 0, 4, MPI_COMM_WORLD));
        int z[4] = {21, 22, 23, 24};
        CHECK_MPI(MPI_Ssend(z, 4, MPI_INT, 0, 5, MPI_COMM_WORLD));
    }
    free(buf);
    free(other);
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == 0) printf("mprobe: OK\n");
    MPI_Finalize();
    return 0;
}
