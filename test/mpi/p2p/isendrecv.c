/* SPDX-License-Identifier: MIT */
/* MPI_Isendrecv, MPI_Isendrecv_replace (MPI-4.1 §3.10) and
 * MPI_Request_get_status_all / _any / _some (MPI-4.1 §3.7.5).
 *  - a ring exchange of 1 .. 100 000 ints (eager and rendezvous): the
 *    request completes when both parts did, and its status is the
 *    receive's (source, tag, count); _replace with a contiguous and a vector
 *    type; MPI_ANY_SOURCE and MPI_PROC_NULL peers;
 *  - MPI_Request_get_status_*: nothing is freed (a completion function
 *    still returns each request afterwards), null and inactive persistent
 *    requests count as inactive, an incomplete receive makes _all say false
 *    and _any / _some leave it out. */
#include "mpitest.h"

int main(int argc, char** argv) {
    mt_init(&argc, &argv);
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int me = mt_rank, right = (me + 1) % size, left = (me + size - 1) % size;
    const int counts[] = {1, 100, 5000, 100000};
    int* sb = malloc(sizeof(int) * 100000);
    int* rb = malloc(sizeof(int) * 100000);

    for (int c = 0; c < 4; ++c) {
        const int n = counts[c];
        for (int i = 0; i < n; ++i) {
            sb[i] = me * 7 + i;
            rb[i] = -1;
        }
        MPI_Request q;
        MPI_Status st;
        CHECK_MPI(MPI_Isendrecv(sb, n, MPI_INT, right, 3, rb, n, MPI_INT, c % 2 ? MPI_ANY_SOURCE : left, 3,
                                MPI_COMM_WORLD, &q));
        CHECK_MPI(MPI_Wait(&q, &st));
        int cnt = -1;
        MPI_Get_count(&st, MPI_INT, &cnt);
        CHECK(q == MPI_REQUEST_NULL && st.MPI_SOURCE == left && st.MPI_TAG == 3 && cnt == n,
              "Isendrecv status: source %d tag %d count %d", st.MPI_SOURCE, st.MPI_TAG, cnt);
        for (int i = 0; i < n; ++i) CHECK(rb[i] == left * 7 + i, "Isendrecv %d element %d: %d", n, i, rb[i]);
        /* in place: contiguous, then every other int */
        for (int i = 0; i < n; ++i) rb[i] = me * 11 + i;
        CHECK_MPI(MPI_Isendrecv_replace(rb, n, MPI_INT, right, 4, left, 4, MPI_COMM_WORLD, &q));
        CHECK_MPI(MPI_Wait(&q, &st));
        for (int i = 0; i < n; ++i)
            CHECK(rb[i] == left * 11 + i, "Isendrecv_replace %d element %d: %d", n, i, rb[i]);
        if (n >= 2) {
            MPI_Datatype vec;
            MPI_Type_vector(n / 2, 1, 2, MPI_INT, &vec);
            MPI_Type_commit(&vec);
            for (int i = 0; i < n; ++i) rb[i] = me * 13 + i;
            CHECK_MPI(MPI_Isendrecv_replace_c(rb, 1, vec, right, 5, left, 5, MPI_COMM_WORLD, &q));
            CHECK_MPI(MPI_Wait(&q, MPI_STATUS_IGNORE));
            for (int i = 0; i < n / 2 * 2; ++i)
                CHECK(rb[i] == (i % 2 ? me * 13 + i : left * 13 + i), "vector replace element %d: %d", i, rb[i]);
            MPI_Type_free(&vec);
        }
    }
    /* MPI_PROC_NULL on both sides */
    {
        MPI_Request q;
        MPI_Status st;
        int x = 1, y = 2;
        CHECK_MPI(MPI_Isendrecv(&x, 1, MPI_INT, MPI_PROC_NULL, 0, &y, 1, MPI_INT, MPI_PROC_NULL, 0,
                                MPI_COMM_WORLD, &q));
        CHECK_MPI(MPI_Wait(&q, &st));
        CHECK(st.MPI_SOURCE == MPI_PROC_NULL && y == 2, "Isendrecv with MPI_PROC_NULL");
    }

    /* Request_get_status_*: a pending receive, a complete one, a null and an
     * inactive persistent one */
    {
        int a = -1, b = -1, c = 0;
        MPI_Request q[4];
        MPI_Request pers;
        CHECK_MPI(MPI_Recv_init(&c, 1, MPI_INT, left, 99, MPI_COMM_WORLD, &pers));
        CHECK_MPI(MPI_Irecv(&a, 1, MPI_INT, left, 10, MPI_COMM_WORLD, &q[0])); /* pending for now */
        CHECK_MPI(MPI_Irecv(&b, 1, MPI_INT, left, 11, MPI_COMM_WORLD, &q[1]));
        q[2] = MPI_REQUEST_NULL;
        q[3] = pers;
        int v = me;
        CHECK_MPI(MPI_Send(&v, 1, MPI_INT, right, 11, MPI_COMM_WORLD));
        MPI_Request keep[4];
        memcpy(keep, q, sizeof q);
        int flag = 1, idx = -5, out = -5, ids[4];
        MPI_Status st, sts[4];
        /* wait until the tag-11 message is in: get_status_any returns index 1 */
        do
            CHECK_MPI(MPI_Request_get_status_any(4, q, &idx, &flag, &st));
        while (!flag);
        CHECK(idx == 1 && st.MPI_SOURCE == left && st.MPI_TAG == 11, "get_status_any: index %d", idx);
        CHECK_MPI(MPI_Request_get_status_all(4, q, &flag, sts));
        CHECK(!flag, "get_status_all true with a receive pending");
        CHECK_MPI(MPI_Request_get_status_some(4, q, &out, ids, sts));
        CHECK(out == 1 && ids[0] == 1 && sts[0].MPI_TAG == 11, "get_status_some: %d, first %d", out, ids[0]);
        CHECK(memcmp(keep, q, sizeof q) == 0, "Request_get_status_* changed a handle");
        MPI_Barrier(MPI_COMM_WORLD); /* everyone checked the pending state */
        CHECK_MPI(MPI_Send(&v, 1, MPI_INT, right, 10, MPI_COMM_WORLD));
        do
            CHECK_MPI(MPI_Request_get_status_all(4, q, &flag, sts));
        while (!flag);
        CHECK(sts[0].MPI_TAG == 10 && sts[1].MPI_TAG == 11 && sts[2].MPI_TAG == MPI_ANY_TAG &&
                  sts[3].MPI_SOURCE == MPI_ANY_SOURCE,
              "get_status_all statuses %d %d %d %d", sts[0].MPI_TAG, sts[1].MPI_TAG, sts[2].MPI_TAG,
              sts[3].MPI_SOURCE);
        CHECK(a == left && b == left, "received %d %d", a, b);
        /* nothing was freed: the completion functions still return them */
        CHECK_MPI(MPI_Waitall(4, q, sts));
        CHECK(q[0] == MPI_REQUEST_NULL && q[1] == MPI_REQUEST_NULL && q[3] == pers, "Waitall after get_status");
        CHECK(sts[0].MPI_TAG == 10 && sts[1].MPI_TAG == 11, "Waitall statuses %d %d", sts[0].MPI_TAG,
              sts[1].MPI_TAG);
        /* only null / inactive ones: _any flag true index undefined; _some undefined */
        CHECK_MPI(MPI_Request_get_status_any(4, q, &idx, &flag, &st));
        CHECK(flag && idx == MPI_UNDEFINED, "get_status_any over inactive requests: %d %d", flag, idx);
        CHECK_MPI(MPI_Request_get_status_some(4, q, &out, ids, MPI_STATUSES_IGNORE));
        CHECK(out == MPI_UNDEFINED, "get_status_some over inactive requests: %d", out);
        CHECK_MPI(MPI_Request_free(&pers));
    }
    free(sb);
    free(rb);
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == 0) printf("isendrecv: OK\n");
    MPI_Finalize();
    return 0;
}
