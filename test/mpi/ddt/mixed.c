/* SPDX-License-Identifier: MIT */
/* Type signatures on the wire: a message sent with one datatype is received
 * with a different one of the same signature (contiguous doubles <-> a vector
 * of doubles <-> an indexed type <-> a struct of doubles); a receive type of
 * a larger size gives a partial receive with the right MPI_Get_count
 * (MPI_UNDEFINED) and MPI_Get_elements (contiguous and noncontiguous receive
 * types); a smaller one gives MPI_ERR_TRUNCATE with the buffer holding the
 * message's first bytes, as MPICH does; MPI_Probe reports the packed size of
 * a noncontiguous message; MPI_Ssend of a derived type. Sizes from 0 bytes
 * to beyond the pipeline chunk. */
#include "mpitest.h"

#define N (1 << 18) /* 256 Ki doubles = 2 MiB packed */

int main(int argc, char** argv) {
    mt_init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    double* a = malloc(sizeof(double) * 2 * N);
    double* b = malloc(sizeof(double) * (2 * N + 8)); /* + room for one more struct element */
    MPI_Datatype vec, idx, st, pair;
    CHECK_MPI(MPI_Type_vector(N, 1, 2, MPI_DOUBLE, &vec));          /* every other double */
    CHECK_MPI(MPI_Type_commit(&vec));
    int bl[3] = {1, 2, 1}, dp[3] = {0, 2, 5};
    MPI_Datatype idx1;
    CHECK_MPI(MPI_Type_indexed(3, bl, dp, MPI_DOUBLE, &idx1));       /* 4 doubles, extent 6 */
    CHECK_MPI(MPI_Type_create_resized(idx1, 0, 6 * sizeof(double), &idx));
    CHECK_MPI(MPI_Type_commit(&idx));
    int sbl[2] = {1, 1};
    MPI_Aint sdp[2] = {0, 3 * sizeof(double)};
    MPI_Datatype sty[2] = {MPI_DOUBLE, MPI_DOUBLE};
    CHECK_MPI(MPI_Type_create_struct(2, sbl, sdp, sty, &st));         /* 2 doubles, gap of 2 */
    CHECK_MPI(MPI_Type_commit(&st));
    CHECK_MPI(MPI_Type_contiguous(2, MPI_DOUBLE, &pair));
    CHECK_MPI(MPI_Type_commit(&pair));
    const int counts[] = {0, 1, 7, 1000, N};
    for (int k = 0; k < 5; ++k) {
        const int n = counts[k];  /* doubles in the message */
        if (rank == 0) {
            for (int i = 0; i < 2 * N; ++i) a[i] = i + 0.25;
            /* contiguous -> vector; vector -> contiguous; idx -> struct */
            CHECK_MPI(MPI_Send(a, n, MPI_DOUBLE, 1, 1, MPI_COMM_WORLD));
            CHECK_MPI(MPI_Send(a, n, MPI_DOUBLE, 1, 2, MPI_COMM_WORLD));
            MPI_Datatype v1;
            CHECK_MPI(MPI_Type_vector(n, 1, 2, MPI_DOUBLE, &v1));
            CHECK_MPI(MPI_Type_commit(&v1));
            CHECK_MPI(MPI_Send(a, 1, v1, 1, 3, MPI_COMM_WORLD));
            CHECK_MPI(MPI_Type_free(&v1));
            CHECK_MPI(MPI_Send(a, n / 4, idx, 1, 4, MPI_COMM_WORLD));
            CHECK_MPI(MPI_Send(a, n / 2, st, 1, 5, MPI_COMM_WORLD));
            CHECK_MPI(MPI_Ssend(a, n / 4, idx, 1, 6, MPI_COMM_WORLD));
        } else if (rank == 1) {
            MPI_Status s;
            int c = -1;
            /* 1: contiguous doubles received as a vector of n */
            for (int i = 0; i < 2 * N; ++i) b[i] = -1;
            MPI_Datatype v1;
            CHECK_MPI(MPI_Type_vector(n, 1, 2, MPI_DOUBLE, &v1));
            CHECK_MPI(MPI_Type_commit(&v1));
            CHECK_MPI(MPI_Recv(b, 1, v1, 0, 1, MPI_COMM_WORLD, &s));
            for (int i = 0; i < n; ++i) CHECK(b[2 * i] == i + 0.25 && b[2 * i + 1] == -1, "vec recv %d", i);
            CHECK_MPI(MPI_Get_count(&s, v1, &c));
            CHECK(c == (n ? 1 : 0), "count of vector %d (a zero-size type counts 0)", c);
            CHECK_MPI(MPI_Get_elements(&s, v1, &c));
            CHECK(c == n, "elements %d", c);
            /* 2: a receive type larger than the message: partial receive */
            for (int i = 0; i < 2 * N; ++i) b[i] = -1;
            CHECK_MPI(MPI_Recv(b, (n + 3) / 2 + 1, pair, 0, 2, MPI_COMM_WORLD, &s));
            CHECK_MPI(MPI_Get_count(&s, pair, &c));
            CHECK(c == (n % 2 ? MPI_UNDEFINED : n / 2), "pair count %d for %d doubles", c, n);
            CHECK_MPI(MPI_Get_elements(&s, pair, &c));
            CHECK(c == n, "pair elements %d for %d doubles", c, n);
            for (int i = 0; i < n; ++i) CHECK(b[i] == i + 0.25, "pair data %d", i);
            CHECK(b[n] == -1, "wrote past the message");
            /* 3: a vector received as contiguous doubles */
            CHECK_MPI(MPI_Recv(b, n, MPI_DOUBLE, 0, 3, MPI_COMM_WORLD, &s));
            for (int i = 0; i < n; ++i) CHECK(b[i] == 2 * i + 0.25, "vec->contig %d", i);
            /* 4: an indexed type received as a struct with the same signature
             * (4 doubles per idx element = 2 struct elements) but smaller
             * capacity: truncation */
            const int m = n / 4;
            for (int i = 0; i < 2 * N; ++i) b[i] = -1;
            int rc = MPI_Recv(b, m > 0 ? 2 * m - 1 : 0, st, 0, 4, MPI_COMM_WORLD, &s);
            int cls = MPI_SUCCESS;
            MPI_Error_class(rc, &cls);
            if (m > 0) CHECK(cls == MPI_ERR_TRUNCATE, "n=%d: class %d, expected TRUNCATE", n, cls);
            else CHECK(rc == MPI_SUCCESS, "empty message: rc %d", rc);
            /* what arrived is the message's first bytes: 2m-1 struct
             * elements of the idx stream, nothing past them */
            const int keeps = mt_truncation_keeps_data();
            for (int f = 0; f < 2 * m - 1; ++f) {
                const int e = f / 2, q0 = 2 * (f % 2);
                const double w0 = 6 * e + (q0 == 0 ? 0.25 : 3.25), w1 = 6 * e + (q0 == 0 ? 2.25 : 5.25);
                if (keeps)
                    CHECK(b[4 * f] == w0 && b[4 * f + 3] == w1, "truncated data, struct element %d", f);
                CHECK(b[4 * f + 1] == -1 && b[4 * f + 2] == -1, "truncated: gap written, element %d", f);
            }
            if (m > 0) CHECK(b[4 * (2 * m - 1)] == -1, "truncated: wrote past the buffer");
            /* 5: a partial receive into a noncontiguous type (struct of 2
             * doubles with a gap), announced by MPI_Probe with its packed size */
            for (int i = 0; i < 2 * N + 8; ++i) b[i] = -1;
            CHECK_MPI(MPI_Probe(0, 5, MPI_COMM_WORLD, &s));
            CHECK_MPI(MPI_Get_count(&s, MPI_BYTE, &c));
            CHECK(c == (n / 2) * 16, "probe: %d bytes, want %d", c, (n / 2) * 16);
            CHECK_MPI(MPI_Recv(b, n / 2 + 1, st, 0, 5, MPI_COMM_WORLD, &s));
            CHECK_MPI(MPI_Get_count(&s, st, &c));
            CHECK(c == n / 2, "struct count %d, want %d", c, n / 2);
            CHECK_MPI(MPI_Get_count(&s, MPI_DOUBLE, &c));
            CHECK(c == 2 * (n / 2), "as doubles %d", c);
            CHECK_MPI(MPI_Get_elements(&s, st, &c));
            CHECK(c == 2 * (n / 2), "struct elements %d", c);
            for (int f = 0; f < n / 2; ++f)
                CHECK(b[4 * f] == 4 * f + 0.25 && b[4 * f + 3] == 4 * f + 3.25 &&
                      b[4 * f + 1] == -1 && b[4 * f + 2] == -1, "struct data %d", f);
            CHECK(b[4 * (n / 2)] == -1, "n=%d: struct: wrote past the message (%g)", n, b[4 * (n / 2)]);
            /* 6: Ssend of idx received as doubles with room for one more
             * double than a whole number of struct elements: MPI_UNDEFINED */
            CHECK_MPI(MPI_Recv(b, 4 * m + 1, MPI_DOUBLE, 0, 6, MPI_COMM_WORLD, &s));
            CHECK_MPI(MPI_Get_count(&s, MPI_DOUBLE, &c));
            CHECK(c == 4 * m, "ssend doubles %d", c);
            CHECK_MPI(MPI_Get_elements(&s, MPI_DOUBLE, &c));
            CHECK(c == 4 * m, "ssend elements %d", c);
            for (int i = 0; i < m; ++i)
                CHECK(b[4 * i] == 6 * i + 0.25 && b[4 * i + 3] == 6 * i + 5.25, "ssend data %d", i);
            if (m > 0) {
                MPI_Status s2 = s;
                int odd = 0;
                /* 4m doubles seen as (2-double pairs) is whole; as idx of 4 doubles whole;
                 * as a 3-double contiguous type not whole */
                MPI_Datatype tri;
                CHECK_MPI(MPI_Type_contiguous(3, MPI_DOUBLE, &tri));
                CHECK_MPI(MPI_Type_commit(&tri));
                CHECK_MPI(MPI_Get_count(&s2, tri, &odd));
                CHECK(odd == ((4 * m) % 3 ? MPI_UNDEFINED : (4 * m) / 3), "tri count %d", odd);
                CHECK_MPI(MPI_Type_free(&tri));
            }
            CHECK_MPI(MPI_Type_free(&v1));
        }
        CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    }
    /* same signature, full size: idx -> struct, eager and beyond the chunk */
    const int E = N / 4; /* 2 MiB */
    for (int rep = 0; rep < 2; ++rep) {
    const int ne = rep == 0 ? 100 : E;
    if (rank == 0) {
        CHECK_MPI(MPI_Send(a, ne, idx, 1, 9, MPI_COMM_WORLD));
    } else if (rank == 1) {
        for (int i = 0; i < 2 * N; ++i) b[i] = -1;
        CHECK_MPI(MPI_Recv(b, 2 * ne, st, 0, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        /* idx element e: a[6e+0], a[6e+2], a[6e+3], a[6e+5]; struct element f: b[4f], b[4f+3] */
        for (int e = 0; e < ne; ++e) {
            const double want[4] = {6 * e + 0.25, 6 * e + 2.25, 6 * e + 3.25, 6 * e + 5.25};
            for (int q = 0; q < 4; ++q) {
                const int f = 2 * e + q / 2, off = q % 2 ? 3 : 0;
                CHECK(b[4 * f + off] == want[q], "idx->struct element %d.%d", e, q);
                CHECK(b[4 * f + 1] == -1 && b[4 * f + 2] == -1, "idx->struct gap %d", f);
            }
        }
    }
    }
    MPI_Type_free(&vec);
    MPI_Type_free(&idx);
    MPI_Type_free(&idx1);
    MPI_Type_free(&st);
    MPI_Type_free(&pair);
    free(a);
    free(b);
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0) printf("mixed: OK\n");
    MPI_Finalize();
    return 0;
}
