/* SPDX-License-Identifier: MIT */
/* Bad arguments of the collectives under MPI_ERRORS_RETURN: the right
 * class, a message naming the function, and a runtime that keeps working
 * (every rank makes the same mistakes, so nobody is left waiting). */
#include "errcheck.h"

int main(int argc, char** argv) {
    mt_init(&argc, &argv);
    int me, p;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    int a[64] = {0}, b[64] = {0}, counts[16], displs[16];
    for (int i = 0; i < 16; ++i) counts[i] = 1, displs[i] = i;

    /* MPI_ERR_COMM */
    EXPECT(MPI_Bcast(a, 1, MPI_INT, 0, MPI_COMM_NULL), MPI_ERR_COMM, "MPI_Bcast");
    EXPECT(MPI_Allreduce(a, b, 1, MPI_INT, MPI_SUM, (MPI_Comm)0x7777), MPI_ERR_COMM, "MPI_Allreduce");
    EXPECT(MPI_Barrier(MPI_COMM_NULL), MPI_ERR_COMM, "MPI_Barrier");
    /* MPI_ERR_ROOT */
    EXPECT(MPI_Bcast(a, 1, MPI_INT, p, MPI_COMM_WORLD), MPI_ERR_ROOT, "MPI_Bcast");
    EXPECT(MPI_Reduce(a, b, 1, MPI_INT, MPI_SUM, -1, MPI_COMM_WORLD), MPI_ERR_ROOT, "MPI_Reduce");
    EXPECT(MPI_Gather(a, 1, MPI_INT, b, 1, MPI_INT, MPI_ROOT, MPI_COMM_WORLD), MPI_ERR_ROOT, "MPI_Gather");
    EXPECT(MPI_Scatterv(a, counts, displs, MPI_INT, b, 1, MPI_INT, p + 3, MPI_COMM_WORLD), MPI_ERR_ROOT,
           "MPI_Scatterv");
    /* MPI_ERR_COUNT */
    EXPECT(MPI_Bcast(a, -1, MPI_INT, 0, MPI_COMM_WORLD), MPI_ERR_COUNT, "MPI_Bcast");
    EXPECT(MPI_Allgather(a, -2, MPI_INT, b, 1, MPI_INT, MPI_COMM_WORLD), MPI_ERR_COUNT, "MPI_Allgather");
    counts[0] = -1;
    EXPECT(MPI_Allgatherv(a, 1, MPI_INT, b, counts, displs, MPI_INT, MPI_COMM_WORLD), MPI_ERR_COUNT,
           "MPI_Allgatherv");
    EXPECT(MPI_Reduce_scatter(a, b, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_COUNT,
           "MPI_Reduce_scatter");
    counts[0] = 1;
    EXPECT(MPI_Reduce_scatter_block(a, b, -4, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_COUNT,
           "MPI_Reduce_scatter_block");
    /* MPI_ERR_TYPE */
    EXPECT(MPI_Bcast(a, 1, MPI_DATATYPE_NULL, 0, MPI_COMM_WORLD), MPI_ERR_TYPE, "MPI_Bcast");
    EXPECT(MPI_Alltoall(a, 1, MPI_INT, b, 1, (MPI_Datatype)0x2ff, MPI_COMM_WORLD), MPI_ERR_TYPE,
           "MPI_Alltoall");
    {
        MPI_Datatype t;
        CHECK_MPI(MPI_Type_contiguous(2, MPI_INT, &t)); /* not committed */
        EXPECT(MPI_Allreduce(a, b, 1, t, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_TYPE, "MPI_Allreduce");
        MPI_Type_free(&t);
    }
    /* MPI_ERR_OP */
    EXPECT(MPI_Allreduce(a, b, 1, MPI_INT, MPI_OP_NULL, MPI_COMM_WORLD), MPI_ERR_OP, "MPI_Allreduce");
    EXPECT(MPI_Reduce(a, b, 1, MPI_FLOAT, MPI_BOR, 0, MPI_COMM_WORLD), MPI_ERR_OP, "MPI_Reduce");
    EXPECT(MPI_Scan(a, b, 1, MPI_INT, MPI_MAXLOC, MPI_COMM_WORLD), MPI_ERR_OP, "MPI_Scan");
    /* MPI_ERR_BUFFER: MPI_IN_PLACE where MPI does not allow it, NULL buffers */
    EXPECT(MPI_Bcast(MPI_IN_PLACE, 1, MPI_INT, 0, MPI_COMM_WORLD), MPI_ERR_BUFFER, "MPI_Bcast");
    EXPECT(MPI_Allreduce(a, MPI_IN_PLACE, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_BUFFER,
           "MPI_Allreduce");
    EXPECT(MPI_Allgather(a, 1, MPI_INT, MPI_IN_PLACE, 1, MPI_INT, MPI_COMM_WORLD), MPI_ERR_BUFFER,
           "MPI_Allgather");
    if (p > 1) {
        /* In-place forms that are valid only at the root, used at a non-root:
         * every rank names another rank as the root, so each fails locally. */
        const int root = (me + 1) % p;
        EXPECT(MPI_Reduce(MPI_IN_PLACE, b, 1, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD), MPI_ERR_BUFFER,
               "MPI_Reduce");
        EXPECT(MPI_Gather(MPI_IN_PLACE, 1, MPI_INT, b, 1, MPI_INT, root, MPI_COMM_WORLD), MPI_ERR_BUFFER,
               "MPI_Gather");
        EXPECT(MPI_Scatter(a, 1, MPI_INT, MPI_IN_PLACE, 1, MPI_INT, root, MPI_COMM_WORLD), MPI_ERR_BUFFER,
               "MPI_Scatter");
    }
    EXPECT(MPI_Allreduce(NULL, b, 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_BUFFER, "MPI_Allreduce");
    /* Locally detectable count mismatches: MPI_ERR_TRUNCATE */
    EXPECT(MPI_Allgather(a, 2, MPI_INT, b, 1, MPI_INT, MPI_COMM_WORLD), MPI_ERR_TRUNCATE, "MPI_Allgather");
    EXPECT(MPI_Alltoall(a, 1, MPI_DOUBLE, b, 1, MPI_INT, MPI_COMM_WORLD), MPI_ERR_TRUNCATE, "MPI_Alltoall");
    EXPECT(MPI_Gather(a, 2, MPI_INT, b, 3, MPI_INT, 0, MPI_COMM_SELF), MPI_ERR_TRUNCATE, "MPI_Gather");
    EXPECT(MPI_Scatter(a, 1, MPI_INT, b, 2, MPI_INT, 0, MPI_COMM_SELF), MPI_ERR_TRUNCATE, "MPI_Scatter");
    {
        int sc[16], rc[16], sd[16], rd[16];
        for (int i = 0; i < p; ++i) sc[i] = rc[i] = 1, sd[i] = rd[i] = i;
        sc[me] = 2;
        EXPECT(MPI_Alltoallv(a, sc, sd, MPI_INT, b, rc, rd, MPI_INT, MPI_COMM_WORLD), MPI_ERR_TRUNCATE,
               "MPI_Alltoallv");
    }
    /* Mismatched counts between processes: whoever receives the wrong size
     * reports MPI_ERR_TRUNCATE, and the algorithm still runs to its end on
     * every process (nobody is left waiting). Rank 0 broadcasts 2 ints,
     * everyone else expects 1: rank 0's children notice (theirs then forward
     * the 1 int everyone expects). */
    if (p > 1) {
        int rc = MPI_Bcast(a, me == 0 ? 2 : 1, MPI_INT, 0, MPI_COMM_WORLD), cls;
        MPI_Error_class(rc, &cls);
        if (me == 1) CHECK(cls == MPI_ERR_TRUNCATE, "short Bcast receive: class %d", cls);
        /* The last rank reduces 3 ints, the others 2: at least one notices. */
        rc = MPI_Allreduce(a, b, me == p - 1 ? 3 : 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        MPI_Error_class(rc, &cls);
        CHECK(cls == MPI_SUCCESS || cls == MPI_ERR_TRUNCATE, "mismatched Allreduce: class %d", cls);
        int saw = cls == MPI_ERR_TRUNCATE, any = 0;
        CHECK_MPI(MPI_Allreduce(&saw, &any, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD));
        CHECK(any, "nobody noticed the mismatched Allreduce counts");
        rc = MPI_Gather(a, me == 1 ? 2 : 1, MPI_INT, b, 1, MPI_INT, 0, MPI_COMM_WORLD);
        MPI_Error_class(rc, &cls);
        if (me == 0) CHECK(cls == MPI_ERR_TRUNCATE, "long Gather contribution: class %d", cls);
    }
    /* Still working afterwards. */
    for (int i = 0; i < p; ++i) a[i] = me + i;
    CHECK_MPI(MPI_Allreduce(a, b, p, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    for (int i = 0; i < p; ++i) CHECK(b[i] == p * (p - 1) / 2 + p * i, "allreduce after errors [%d]", i);
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    CHECK(mt_nerr == 0, "%d wrong error classes", mt_nerr);
    MPI_Finalize();
    return 0;
}
