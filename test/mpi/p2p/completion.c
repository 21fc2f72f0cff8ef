/* SPDX-License-Identifier: MIT */
/* The completion family: Waitany, Waitsome, Testany, Testsome, Testall,
 * Request_get_status, Request_free, arrays with MPI_REQUEST_NULL entries,
 * and MPI_PROC_NULL requests. */
#include "mpitest.h"

#define K 16

int main(int argc, char** argv) {
    mt_init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int vals[K], in[K];
    MPI_Request r[K];
    const int peer = rank ^ 1;
    if (peer < size) {
        /* Waitany: K receives, completed in any order */
        for (int i = 0; i < K; ++i) CHECK_MPI(MPI_Irecv(&in[i], 1, MPI_INT, peer, i, MPI_COMM_WORLD, &r[i]));
        for (int i = K - 1; i >= 0; --i) {
            vals[i] = peer * 1000 + i;
            vals[i] = rank * 1000 + i;
            CHECK_MPI(MPI_Send(&vals[i], 1, MPI_INT, peer, i, MPI_COMM_WORLD));
        }
        int seen = 0;
        for (int n = 0; n < K; ++n) {
            int idx = -1;
            MPI_Status st;
            CHECK_MPI(MPI_Waitany(K, r, &idx, &st));
            CHECK(idx >= 0 && idx < K && r[idx] == MPI_REQUEST_NULL, "waitany index %d", idx);
            CHECK(in[idx] == peer * 1000 + idx && st.MPI_TAG == idx, "waitany data");
            seen |= 1 << idx;
        }
        CHECK(seen == (1 << K) - 1, "waitany missed some");
        int idx = 0;
        CHECK_MPI(MPI_Waitany(K, r, &idx, MPI_STATUS_IGNORE));
        CHECK(idx == MPI_UNDEFINED, "waitany on all-null array: %d", idx);

        /* Waitsome / Testsome */
        for (int i = 0; i < K; ++i) CHECK_MPI(MPI_Irecv(&in[i], 1, MPI_INT, peer, 100 + i, MPI_COMM_WORLD, &r[i]));
        for (int i = 0; i < K; ++i) CHECK_MPI(MPI_Send(&vals[i], 1, MPI_INT, peer, 100 + i, MPI_COMM_WORLD));
        int done = 0, out = 0, indices[K];
        MPI_Status sts[K];
        while (done < K) {
            if (done % 2)
                CHECK_MPI(MPI_Testsome(K, r, &out, indices, sts));
            else
                CHECK_MPI(MPI_Waitsome(K, r, &out, indices, sts));
            CHECK(out != MPI_UNDEFINED, "some: undefined with %d left", K - done);
            for (int j = 0; j < out; ++j)
                CHECK(in[indices[j]] == peer * 1000 + indices[j] && sts[j].MPI_TAG == 100 + indices[j], "some data");
            done += out;
        }
        CHECK_MPI(MPI_Waitsome(K, r, &out, indices, sts));
        CHECK(out == MPI_UNDEFINED, "waitsome on all-null array: %d", out);

        /* Testall / Testany */
        for (int i = 0; i < K; ++i) CHECK_MPI(MPI_Irecv(&in[i], 1, MPI_INT, peer, 200 + i, MPI_COMM_WORLD, &r[i]));
        int flag = 1;
        CHECK_MPI(MPI_Testall(K, r, &flag, MPI_STATUSES_IGNORE));
        CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));  /* nobody has sent yet */
        CHECK(!flag || 0, "testall true before any send");
        for (int i = 0; i < K; ++i) CHECK(r[i] != MPI_REQUEST_NULL, "testall freed an incomplete request");
        for (int i = 0; i < K; ++i) CHECK_MPI(MPI_Send(&vals[i], 1, MPI_INT, peer, 200 + i, MPI_COMM_WORLD));
        CHECK_MPI(MPI_Testany(K, r, &idx, &flag, MPI_STATUS_IGNORE));
        while (!flag) CHECK_MPI(MPI_Testany(K, r, &idx, &flag, MPI_STATUS_IGNORE));
        CHECK(idx >= 0 && r[idx] == MPI_REQUEST_NULL, "testany index %d", idx);
        flag = 0;
        while (!flag) CHECK_MPI(MPI_Testall(K, r, &flag, MPI_STATUSES_IGNORE));
        for (int i = 0; i < K; ++i) CHECK(r[i] == MPI_REQUEST_NULL && in[i] == peer * 1000 + i, "testall %d", i);
    } else {
        CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    }
    /* Request_free on an active send; the message still arrives */
    if (peer < size) {
        int x = rank + 5, y = -1;
        MPI_Request s;
        CHECK_MPI(MPI_Isend(&x, 1, MPI_INT, peer, 300, MPI_COMM_WORLD, &s));
        CHECK_MPI(MPI_Request_free(&s));
        CHECK(s == MPI_REQUEST_NULL, "request_free did not reset");
        CHECK_MPI(MPI_Recv(&y, 1, MPI_INT, peer, 300, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK(y == peer + 5, "freed send delivered %d", y);
    }
    /* PROC_NULL requests complete at once with an empty status */
    MPI_Request pn[2];
    MPI_Status pst[2];
    int dummy = 0;
    CHECK_MPI(MPI_Isend(&dummy, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &pn[0]));
    CHECK_MPI(MPI_Irecv(&dummy, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &pn[1]));
    CHECK_MPI(MPI_Waitall(2, pn, pst));
    int c = -1;
    MPI_Get_count(&pst[1], MPI_INT, &c);
    CHECK(pst[1].MPI_SOURCE == MPI_PROC_NULL && pst[1].MPI_TAG == MPI_ANY_TAG && c == 0, "PROC_NULL status");
    /* Wait on MPI_REQUEST_NULL */
    MPI_Request nul = MPI_REQUEST_NULL;
    CHECK_MPI(MPI_Wait(&nul, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0) printf("completion: OK\n");
    MPI_Finalize();
    return 0;
}
