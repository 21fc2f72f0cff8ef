/* SPDX-License-Identifier: MIT */
/* Derived datatypes in every collective: a strided vector type (3 ints in
 * a 5-int extent) on one side and plain MPI_INT on the other (same type
 * signature), reductions on the vector type, MINLOC on the padded
 * MPI_DOUBLE_INT, a struct type in Bcast. The holes of every receive
 * buffer must stay untouched. */
#include <stddef.h>

#include "mpitest.h"

static int me, np;
static MPI_Datatype vec; /* ints at 0, 2, 4 of a 5-int extent */
enum { EXT = 5, PER = 3 };

static int v(int rank, int i) { return rank * 1000 + i * 7 + 1; }
/* Sets the data ints of k vec instances from f(j), j = data index; holes -1. */
static void fill_vec(int* b, int k, int rank) {
    for (int j = 0; j < k * EXT; ++j) b[j] = -1;
    for (int j = 0; j < k * PER; ++j) b[(j / PER) * EXT + (j % PER) * 2] = v(rank, j);
}
static void check_vec(const int* b, int k, int rank, int base, const char* what) {
    for (int j = 0; j < k * EXT; ++j) {
        const int pos = j % EXT;
        if (pos % 2) {
            CHECK(b[j] == -1, "%s: hole %d overwritten (%d)", what, j, b[j]);
        } else {
            const int d = (j / EXT) * PER + pos / 2;
            CHECK(b[j] == v(rank, base + d), "%s: [%d] = %d, want %d", what, j, b[j], v(rank, base + d));
        }
    }
}

int main(int argc, char** argv) {
    mt_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    CHECK_MPI(MPI_Type_vector(PER, 1, 2, MPI_INT, &vec));
    CHECK_MPI(MPI_Type_commit(&vec));
    MPI_Aint lb, ext;
    MPI_Type_get_extent(vec, &lb, &ext);
    CHECK(ext == (EXT) * (MPI_Aint)sizeof(int), "vector extent %ld", (long)ext);
    const int K = 4; /* vec instances per rank */
    int* a = (int*)malloc(sizeof(int) * EXT * K * np * 2);
    int* b = (int*)malloc(sizeof(int) * EXT * K * np * 2);
    int* flat = (int*)malloc(sizeof(int) * PER * K * np * 2);

    for (int root = 0; root < np; ++root) {
        /* Bcast of vec */
        if (me == root) fill_vec(a, K, root);
        else for (int j = 0; j < K * EXT; ++j) a[j] = -1;
        CHECK_MPI(MPI_Bcast(a, K, vec, root, MPI_COMM_WORLD));
        check_vec(a, K, root, 0, "Bcast");
        /* Gather: MPI_INT in, vec out */
        for (int j = 0; j < K * PER; ++j) flat[j] = v(me, j);
        for (int j = 0; j < K * EXT * np; ++j) b[j] = -1;
        CHECK_MPI(MPI_Gather(flat, K * PER, MPI_INT, b, K, vec, root, MPI_COMM_WORLD));
        if (me == root)
            for (int q = 0; q < np; ++q) check_vec(b + q * K * EXT, K, q, 0, "Gather");
        /* Scatter: vec in, MPI_INT out */
        if (me == root)
            for (int q = 0; q < np; ++q) fill_vec(a + q * K * EXT, K, q);
        for (int j = 0; j < K * PER; ++j) flat[j] = -5;
        CHECK_MPI(MPI_Scatter(a, K, vec, flat, K * PER, MPI_INT, root, MPI_COMM_WORLD));
        for (int j = 0; j < K * PER; ++j) CHECK(flat[j] == v(me, j), "Scatter [%d]", j);
        /* Gatherv / Scatterv: rank q contributes q % 3 + 1 instances, placed in reverse. */
        int counts[16], displs[16], off = 0;
        for (int q = np - 1; q >= 0; --q) counts[q] = q % 3 + 1, displs[q] = off, off += counts[q] + 1;
        for (int j = 0; j < counts[me] * PER; ++j) flat[j] = v(me, j);
        for (int j = 0; j < off * EXT; ++j) b[j] = -1;
        CHECK_MPI(MPI_Gatherv(flat, counts[me] * PER, MPI_INT, b, counts, displs, vec, root, MPI_COMM_WORLD));
        if (me == root)
            for (int q = 0; q < np; ++q) {
                check_vec(b + displs[q] * EXT, counts[q], q, 0, "Gatherv");
                for (int j = 0; j < EXT; ++j) CHECK(b[(displs[q] + counts[q]) * EXT + j] == -1, "Gatherv gap");
            }
        if (me == root)
            for (int q = 0; q < np; ++q) fill_vec(b + displs[q] * EXT, counts[q], q);
        for (int j = 0; j < counts[me] * PER; ++j) flat[j] = -5;
        CHECK_MPI(MPI_Scatterv(b, counts, displs, vec, flat, counts[me] * PER, MPI_INT, root, MPI_COMM_WORLD));
        for (int j = 0; j < counts[me] * PER; ++j) CHECK(flat[j] == v(me, j), "Scatterv [%d]", j);
        /* Reduce SUM on vec */
        fill_vec(a, K, me);
        for (int j = 0; j < K * EXT; ++j) b[j] = -1;
        CHECK_MPI(MPI_Reduce(a, b, K, vec, MPI_SUM, root, MPI_COMM_WORLD));
        if (me == root)
            for (int j = 0; j < K * EXT; ++j) {
                long want = -1;
                if ((j % EXT) % 2 == 0) {
                    const int d = (j / EXT) * PER + (j % EXT) / 2;
                    want = 0;
                    for (int q = 0; q < np; ++q) want += v(q, d);
                }
                CHECK(b[j] == want, "Reduce vec [%d] = %d want %ld", j, b[j], want);
            }
    }
    /* Allgather: vec in, MPI_INT out; Allgatherv: MPI_INT in, vec out */
    fill_vec(a, K, me);
    CHECK_MPI(MPI_Allgather(a, K, vec, flat, K * PER, MPI_INT, MPI_COMM_WORLD));
    for (int q = 0; q < np; ++q)
        for (int j = 0; j < K * PER; ++j) CHECK(flat[q * K * PER + j] == v(q, j), "Allgather from %d [%d]", q, j);
    {
        int counts[16], displs[16], off = 0;
        for (int q = 0; q < np; ++q) counts[q] = (q + 1) % 3 + 1, displs[q] = off, off += counts[q] + 2;
        for (int j = 0; j < counts[me] * PER; ++j) flat[j] = v(me, j);
        for (int j = 0; j < off * EXT; ++j) b[j] = -1;
        CHECK_MPI(MPI_Allgatherv(flat, counts[me] * PER, MPI_INT, b, counts, displs, vec, MPI_COMM_WORLD));
        for (int q = 0; q < np; ++q) check_vec(b + displs[q] * EXT, counts[q], q, 0, "Allgatherv");
        /* Allgatherv in place on vec */
        for (int j = 0; j < off * EXT; ++j) b[j] = -1;
        fill_vec(b + displs[me] * EXT, counts[me], me);
        CHECK_MPI(MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, b, counts, displs, vec, MPI_COMM_WORLD));
        for (int q = 0; q < np; ++q) check_vec(b + displs[q] * EXT, counts[q], q, 0, "Allgatherv in place");
    }
    /* Alltoall: vec blocks out, MPI_INT in; block for q carries data base q*K*PER */
    for (int j = 0; j < np * K * EXT; ++j) a[j] = -1;
    for (int j = 0; j < np * K * PER; ++j) a[(j / PER) * EXT + (j % PER) * 2] = v(me, j);
    CHECK_MPI(MPI_Alltoall(a, K, vec, flat, K * PER, MPI_INT, MPI_COMM_WORLD));
    for (int q = 0; q < np; ++q)
        for (int j = 0; j < K * PER; ++j)
            CHECK(flat[q * K * PER + j] == v(q, me * K * PER + j), "Alltoall from %d [%d]", q, j);
    /* Alltoall in place on vec */
    for (int j = 0; j < np * K * EXT; ++j) b[j] = a[j];
    CHECK_MPI(MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, b, K, vec, MPI_COMM_WORLD));
    for (int q = 0; q < np; ++q) check_vec(b + q * K * EXT, K, q, me * K * PER, "Alltoall in place");
    /* Alltoallv: MPI_INT out, vec in, 1 instance per pair at reversed displacements */
    {
        int sc[16], sd[16], rc[16], rd[16];
        for (int q = 0; q < np; ++q) sc[q] = PER, sd[q] = q * PER, rc[q] = 1, rd[q] = np - 1 - q;
        for (int j = 0; j < np * PER; ++j) flat[j] = v(me, j);
        for (int j = 0; j < np * EXT; ++j) b[j] = -1;
        CHECK_MPI(MPI_Alltoallv(flat, sc, sd, MPI_INT, b, rc, rd, vec, MPI_COMM_WORLD));
        for (int q = 0; q < np; ++q) check_vec(b + (np - 1 - q) * EXT, 1, q, me * PER, "Alltoallv");
    }
    /* Allreduce in place, Scan, Reduce_scatter_block on vec */
    fill_vec(b, K, me);
    CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, b, K, vec, MPI_MAX, MPI_COMM_WORLD));
    check_vec(b, K, np - 1, 0, "Allreduce MAX in place");
    fill_vec(a, K, me);
    for (int j = 0; j < K * EXT; ++j) b[j] = -1;
    CHECK_MPI(MPI_Scan(a, b, K, vec, MPI_SUM, MPI_COMM_WORLD));
    for (int j = 0; j < K * EXT; ++j) {
        const int d = (j / EXT) * PER + (j % EXT) / 2;
        long want = 0;
        for (int q = 0; q <= me; ++q) want += v(q, d);
        CHECK(b[j] == ((j % EXT) % 2 == 0 ? want : -1), "Scan vec [%d]", j);
    }
    fill_vec(a, np, me);
    for (int j = 0; j < EXT; ++j) b[j] = -1;
    CHECK_MPI(MPI_Reduce_scatter_block(a, b, 1, vec, MPI_SUM, MPI_COMM_WORLD));
    for (int j = 0; j < EXT; ++j) {
        long want = -1;
        if (j % 2 == 0) {
            want = 0;
            for (int q = 0; q < np; ++q) want += v(q, me * PER + j / 2);
        }
        CHECK(b[j] == want, "Reduce_scatter_block vec [%d] = %d want %ld", j, b[j], want);
    }
    /* MINLOC on MPI_DOUBLE_INT (padded pair) and on a vector of pairs */
    {
        struct { double v; int i; } in[6], out[6];
        for (int k = 0; k < 6; ++k) in[k].v = (double)((me * 5 + k * 3) % 7), in[k].i = me;
        CHECK_MPI(MPI_Allreduce(in, out, 6, MPI_DOUBLE_INT, MPI_MINLOC, MPI_COMM_WORLD));
        for (int k = 0; k < 6; ++k) {
            double bv = 1e9;
            int bi = -1;
            for (int q = 0; q < np; ++q)
                if ((double)((q * 5 + k * 3) % 7) < bv) bv = (q * 5 + k * 3) % 7, bi = q;
            CHECK(out[k].v == bv && out[k].i == bi, "MINLOC DOUBLE_INT [%d]", k);
        }
        MPI_Datatype pv;
        CHECK_MPI(MPI_Type_vector(3, 1, 2, MPI_DOUBLE_INT, &pv));
        CHECK_MPI(MPI_Type_commit(&pv));
        for (int k = 0; k < 6; ++k) out[k].v = -1, out[k].i = -1;
        CHECK_MPI(MPI_Allreduce(in, out, 1, pv, MPI_MAXLOC, MPI_COMM_WORLD));
        for (int k = 0; k < 6; ++k) {
            if (k % 2) {
                CHECK(out[k].v == -1 && out[k].i == -1, "MAXLOC vector hole [%d]", k);
                continue;
            }
            double bv = -1;
            int bi = -1;
            for (int q = 0; q < np; ++q)
                if ((double)((q * 5 + k * 3) % 7) > bv) bv = (q * 5 + k * 3) % 7, bi = q;
            CHECK(out[k].v == bv && out[k].i == bi, "MAXLOC vector of DOUBLE_INT [%d]", k);
        }
        CHECK_MPI(MPI_Type_free(&pv));
    }
    /* A struct type {int, double} in Bcast; SUM on it is MPI_ERR_OP (mixed). */
    {
        struct s { int i; double d; } x[3];
        int bl[2] = {1, 1};
        MPI_Aint dp[2] = {offsetof(struct s, i), offsetof(struct s, d)};
        MPI_Datatype ty[2] = {MPI_INT, MPI_DOUBLE}, st;
        CHECK_MPI(MPI_Type_create_struct(2, bl, dp, ty, &st));
        CHECK_MPI(MPI_Type_commit(&st));
        for (int k = 0; k < 3; ++k) x[k].i = me == 0 ? k + 10 : -1, x[k].d = me == 0 ? k * 0.5 : -1;
        CHECK_MPI(MPI_Bcast(x, 3, st, 0, MPI_COMM_WORLD));
        for (int k = 0; k < 3; ++k) CHECK(x[k].i == k + 10 && x[k].d == k * 0.5, "struct Bcast [%d]", k);
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
        int cls, rc = MPI_Allreduce(MPI_IN_PLACE, x, 3, st, MPI_SUM, MPI_COMM_WORLD);
        MPI_Error_class(rc, &cls);
        CHECK(cls == MPI_ERR_OP, "SUM on a mixed struct: class %d", cls);
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
        CHECK_MPI(MPI_Type_free(&st));
    }
    CHECK_MPI(MPI_Type_free(&vec));
    free(a), free(b), free(flat);
    MPI_Finalize();
    return 0;
}
