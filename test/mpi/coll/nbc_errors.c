/* SPDX-License-Identifier: MIT */
/* Bad arguments of the nonblocking and persistent collectives under
 * MPI_ERRORS_RETURN: the blocking forms' checks (one per error class and
 * family), what only these forms have (request NULL, an invalid info,
 * MPI_Start of an active request, MPI_Request_free of an active one),
 * mismatched counts between processes reported by the completion call,
 * and a runtime that keeps working. Every rank makes the same mistakes. */
#include <unistd.h>

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
    MPI_Request r = MPI_REQUEST_NULL;
    MPI_Info bad_info = (MPI_Info)0x7777;

    /* What the blocking forms check, in both other forms. */
    EXPECT(MPI_Ibcast(a, 1, MPI_INT, 0, MPI_COMM_NULL, &r), MPI_ERR_COMM, "MPI_Ibcast");
    EXPECT(MPI_Barrier_init(MPI_COMM_NULL, MPI_INFO_NULL, &r), MPI_ERR_COMM, "MPI_Barrier_init");
    EXPECT(MPI_Ireduce(a, b, 1, MPI_INT, MPI_SUM, p, MPI_COMM_WORLD, &r), MPI_ERR_ROOT, "MPI_Ireduce");
    EXPECT(MPI_Gatherv_init(a, 1, MPI_INT, b, counts, displs, MPI_INT, -2, MPI_COMM_WORLD, MPI_INFO_NULL, &r),
           MPI_ERR_ROOT, "MPI_Gatherv_init");
    EXPECT(MPI_Iallgather(a, -2, MPI_INT, b, 1, MPI_INT, MPI_COMM_WORLD, &r), MPI_ERR_COUNT, "MPI_Iallgather");
    EXPECT(MPI_Reduce_scatter_block_init(a, b, -4, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &r),
           MPI_ERR_COUNT, "MPI_Reduce_scatter_block_init");
    counts[0] = -1;
    EXPECT(MPI_Iallgatherv(a, 1, MPI_INT, b, counts, displs, MPI_INT, MPI_COMM_WORLD, &r), MPI_ERR_COUNT,
           "MPI_Iallgatherv");
    EXPECT(MPI_Ialltoallv(a, counts, displs, MPI_INT, b, counts, displs, MPI_INT, MPI_COMM_WORLD, &r),
           MPI_ERR_COUNT, "MPI_Ialltoallv");
    counts[0] = 1;
    EXPECT(MPI_Iscatter(a, 1, MPI_INT, b, 1, MPI_DATATYPE_NULL, 0, MPI_COMM_WORLD, &r), MPI_ERR_TYPE,
           "MPI_Iscatter");
    {
        MPI_Datatype t;
        CHECK_MPI(MPI_Type_contiguous(2, MPI_INT, &t)); /* not committed */
        EXPECT(MPI_Allreduce_init(a, b, 1, t, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &r), MPI_ERR_TYPE,
               "MPI_Allreduce_init");
        MPI_Datatype ts[16], tr[16];
        int sd[16], rd[16];
        for (int i = 0; i < 16; ++i) ts[i] = tr[i] = MPI_INT, sd[i] = rd[i] = i * (int)sizeof(int);
        tr[p - 1] = t;
        EXPECT(MPI_Alltoallw(a, counts, sd, ts, b, counts, rd, tr, MPI_COMM_WORLD), MPI_ERR_TYPE, "MPI_Alltoallw");
        EXPECT(MPI_Ialltoallw(a, counts, sd, NULL, b, counts, rd, ts, MPI_COMM_WORLD, &r), MPI_ERR_ARG,
               "MPI_Ialltoallw");
        tr[p - 1] = MPI_DOUBLE; /* 8 bytes from myself (p == 1) or from p - 1, 4 sent */
        if (p == 1)
            EXPECT(MPI_Alltoallw_init(a, counts, sd, ts, b, counts, rd, tr, MPI_COMM_WORLD, MPI_INFO_NULL, &r),
                   MPI_ERR_TRUNCATE, "MPI_Alltoallw_init");
        MPI_Type_free(&t);
    }
    EXPECT(MPI_Iscan(a, b, 1, MPI_INT, MPI_OP_NULL, MPI_COMM_WORLD, &r), MPI_ERR_OP, "MPI_Iscan");
    EXPECT(MPI_Exscan_init(a, b, 1, MPI_FLOAT, MPI_BXOR, MPI_COMM_WORLD, MPI_INFO_NULL, &r), MPI_ERR_OP,
           "MPI_Exscan_init");
    EXPECT(MPI_Ibcast(MPI_IN_PLACE, 1, MPI_INT, 0, MPI_COMM_WORLD, &r), MPI_ERR_BUFFER, "MPI_Ibcast");
    EXPECT(MPI_Iallreduce(NULL, b, 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r), MPI_ERR_BUFFER, "MPI_Iallreduce");
    if (p > 1)
        EXPECT(MPI_Igather(MPI_IN_PLACE, 1, MPI_INT, b, 1, MPI_INT, (me + 1) % p, MPI_COMM_WORLD, &r),
               MPI_ERR_BUFFER, "MPI_Igather");
    EXPECT(MPI_Ialltoall(a, 1, MPI_DOUBLE, b, 1, MPI_INT, MPI_COMM_WORLD, &r), MPI_ERR_TRUNCATE, "MPI_Ialltoall");
    EXPECT(MPI_Scatter_init(a, 1, MPI_INT, b, 2, MPI_INT, 0, MPI_COMM_SELF, MPI_INFO_NULL, &r), MPI_ERR_TRUNCATE,
           "MPI_Scatter_init");
    CHECK(r == MPI_REQUEST_NULL, "a failed call left a request handle");

    /* Only these forms: the request (output) and the info. */
    EXPECT(MPI_Ibarrier(MPI_COMM_WORLD, NULL), MPI_ERR_ARG, "MPI_Ibarrier");
    EXPECT(MPI_Allgather_init(a, 1, MPI_INT, b, 1, MPI_INT, MPI_COMM_WORLD, MPI_INFO_NULL, NULL), MPI_ERR_ARG,
           "MPI_Allgather_init");
    EXPECT(MPI_Bcast_init(a, 1, MPI_INT, 0, MPI_COMM_WORLD, bad_info, &r), MPI_ERR_INFO, "MPI_Bcast_init");

    /* MPI_Start of an active persistent collective, MPI_Request_free of an
     * active one (MPI-4.1 6.13) and of an active nonblocking one (6.12):
     * MPI_ERR_REQUEST, the request unchanged. Rank 0 enters late, so the
     * others find their barriers active. */
    MPI_Request pr;
    CHECK_MPI(MPI_Barrier_init(MPI_COMM_WORLD, MPI_INFO_NULL, &pr));
    CHECK_MPI(MPI_Start(&pr));
    if (me == 0 && p > 1) usleep(30000);
    int flag = 0;
    CHECK_MPI(MPI_Test(&pr, &flag, MPI_STATUS_IGNORE));
    if (!flag) {
        EXPECT(MPI_Start(&pr), MPI_ERR_REQUEST, "MPI_Start");
        EXPECT(MPI_Startall(1, &pr), MPI_ERR_REQUEST, "MPI_Startall");
        EXPECT(MPI_Request_free(&pr), MPI_ERR_REQUEST, "MPI_Request_free");
        CHECK(pr != MPI_REQUEST_NULL, "failed Request_free nulled the handle");
        CHECK_MPI(MPI_Wait(&pr, MPI_STATUS_IGNORE));
    }
    CHECK_MPI(MPI_Request_free(&pr));
    CHECK_MPI(MPI_Ibarrier(MPI_COMM_WORLD, &r));
    if (me == 0 && p > 1) usleep(30000);
    CHECK_MPI(MPI_Test(&r, &flag, MPI_STATUS_IGNORE));
    if (!flag) {
        EXPECT(MPI_Request_free(&r), MPI_ERR_REQUEST, "MPI_Request_free");
        CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
    }
    /* An inactive persistent collective: Wait/Test return at once, empty. */
    CHECK_MPI(MPI_Ibarrier(MPI_COMM_WORLD, &r));
    CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_Allreduce_init(a, b, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &pr));
    CHECK_MPI(MPI_Wait(&pr, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_Request_free(&pr));

    /* Mismatched counts between processes: the completion call reports
     * MPI_ERR_TRUNCATE where a receive had the wrong size; nobody hangs. */
    if (p > 1) {
        int cls;
        CHECK_MPI(MPI_Ibcast(a, me == 0 ? 2 : 1, MPI_INT, 0, MPI_COMM_WORLD, &r));
        int rc = MPI_Wait(&r, MPI_STATUS_IGNORE);
        MPI_Error_class(rc, &cls);
        if (me == 1) CHECK(cls == MPI_ERR_TRUNCATE, "short Ibcast receive: class %d", cls);
        char msg[MPI_MAX_ERROR_STRING];
        int len = 0;
        MPI_Error_string(rc, msg, &len);
        if (me == 1) CHECK(strstr(msg, "MPI_Wait") != NULL, "message does not name MPI_Wait: %s", msg);
        CHECK_MPI(MPI_Allreduce_init(a, b, me == p - 1 ? 3 : 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &pr));
        for (int k = 0; k < 3; ++k) {
            CHECK_MPI(MPI_Start(&pr));
            rc = MPI_Wait(&pr, MPI_STATUS_IGNORE);
            MPI_Error_class(rc, &cls);
            CHECK(cls == MPI_SUCCESS || cls == MPI_ERR_TRUNCATE, "mismatched Allreduce_init: class %d", cls);
            int saw = cls == MPI_ERR_TRUNCATE, any = 0;
            CHECK_MPI(MPI_Allreduce(&saw, &any, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD));
            CHECK(any, "nobody noticed the mismatched Allreduce_init counts (start %d)", k);
        }
        CHECK_MPI(MPI_Request_free(&pr));
        /* Waitall of a failing one: MPI_ERR_IN_STATUS with the class in the status. */
        MPI_Request two[2];
        MPI_Status st[2];
        CHECK_MPI(MPI_Igather(a, me == 1 ? 2 : 1, MPI_INT, b, 1, MPI_INT, 0, MPI_COMM_WORLD, &two[0]));
        CHECK_MPI(MPI_Ibarrier(MPI_COMM_WORLD, &two[1]));
        rc = MPI_Waitall(2, two, st);
        MPI_Error_class(rc, &cls);
        if (me == 0) {
            CHECK(cls == MPI_ERR_IN_STATUS, "Waitall with a truncated Igather: class %d", cls);
            MPI_Error_class(st[0].MPI_ERROR, &cls);
            CHECK(cls == MPI_ERR_TRUNCATE, "status of the truncated Igather: class %d", cls);
        }
    }
    /* Still working afterwards. */
    for (int i = 0; i < p; ++i) a[i] = me + i;
    CHECK_MPI(MPI_Iallreduce(a, b, p, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r));
    CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
    for (int i = 0; i < p; ++i) CHECK(b[i] == p * (p - 1) / 2 + p * i, "iallreduce after errors [%d]", i);
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    CHECK(mt_nerr == 0, "%d wrong error classes", mt_nerr);
    MPI_Finalize();
    return 0;
}
