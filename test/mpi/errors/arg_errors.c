/* SPDX-License-Identifier: MIT */
/* Every error class reachable from bad arguments of the point-to-point and
 * environment functions, under MPI_ERRORS_RETURN: the right class, a message
 * naming the function and the rule, and a runtime that keeps working. */
#include "errcheck.h"

int main(int argc, char** argv) {
    mt_init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    int buf[4] = {0};
    MPI_Request req;
    MPI_Status st;
    int flag;

    /* MPI_ERR_COMM */
    EXPECT(MPI_Send(buf, 1, MPI_INT, 0, 0, MPI_COMM_NULL), MPI_ERR_COMM, "MPI_Send");
    EXPECT(MPI_Recv(buf, 1, MPI_INT, 0, 0, (MPI_Comm)0x12345, &st), MPI_ERR_COMM, "MPI_Recv");
    EXPECT(MPI_Comm_rank(MPI_COMM_NULL, &flag), MPI_ERR_COMM, "MPI_Comm_rank");
    EXPECT(MPI_Barrier(MPI_COMM_NULL), MPI_ERR_COMM, "MPI_Barrier");
    /* MPI_ERR_COUNT */
    EXPECT(MPI_Send(buf, -1, MPI_INT, 0, 0, MPI_COMM_WORLD), MPI_ERR_COUNT, "MPI_Send");
    EXPECT(MPI_Irecv(buf, -5, MPI_INT, 0, 0, MPI_COMM_WORLD, &req), MPI_ERR_COUNT, "MPI_Irecv");
    EXPECT(MPI_Waitall(-1, &req, MPI_STATUSES_IGNORE), MPI_ERR_COUNT, "MPI_Waitall");
    /* MPI_ERR_TYPE */
    EXPECT(MPI_Send(buf, 1, MPI_DATATYPE_NULL, 0, 0, MPI_COMM_WORLD), MPI_ERR_TYPE, "MPI_Send");
    EXPECT(MPI_Recv(buf, 1, (MPI_Datatype)0x2ff, 0, 0, MPI_COMM_WORLD, &st), MPI_ERR_TYPE, "MPI_Recv");
    EXPECT(MPI_Send(buf, 1, (MPI_Datatype)0x7777777, 0, 0, MPI_COMM_WORLD), MPI_ERR_TYPE, "MPI_Send");
    /* MPI_ERR_TAG */
    EXPECT(MPI_Send(buf, 1, MPI_INT, 0, -7, MPI_COMM_WORLD), MPI_ERR_TAG, "MPI_Send");
    EXPECT(MPI_Send(buf, 1, MPI_INT, 0, 1 << 30, MPI_COMM_WORLD), MPI_ERR_TAG, "MPI_Send");
    EXPECT(MPI_Send(buf, 1, MPI_INT, 0, MPI_ANY_TAG, MPI_COMM_WORLD), MPI_ERR_TAG, "MPI_Send");
    EXPECT(MPI_Irecv(buf, 1, MPI_INT, 0, -9, MPI_COMM_WORLD, &req), MPI_ERR_TAG, "MPI_Irecv");
    /* MPI_ERR_RANK */
    EXPECT(MPI_Send(buf, 1, MPI_INT, size, 0, MPI_COMM_WORLD), MPI_ERR_RANK, "MPI_Send");
    EXPECT(MPI_Send(buf, 1, MPI_INT, -2, 0, MPI_COMM_WORLD), MPI_ERR_RANK, "MPI_Send");
    EXPECT(MPI_Send(buf, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD), MPI_ERR_RANK, "MPI_Send");
    EXPECT(MPI_Recv(buf, 1, MPI_INT, size + 3, 0, MPI_COMM_WORLD, &st), MPI_ERR_RANK, "MPI_Recv");
    EXPECT(MPI_Iprobe(size, 0, MPI_COMM_WORLD, &flag, &st), MPI_ERR_RANK, "MPI_Iprobe");
    {   /* the message names the rank and the valid range */
        int rc = MPI_Send(buf, 1, MPI_INT, size + 1, 0, MPI_COMM_WORLD);
        char msg[MPI_MAX_ERROR_STRING], want[64];
        int len;
        MPI_Error_string(rc, msg, &len);
        snprintf(want, sizeof want, "invalid destination rank %d: must be in [0, %d)", size + 1, size);
        CHECK(strstr(msg, want) != NULL, "message '%s' lacks '%s'", msg, want);
    }
    /* MPI_ERR_BUFFER */
    EXPECT(MPI_Send(NULL, 3, MPI_INT, 0, 0, MPI_COMM_WORLD), MPI_ERR_BUFFER, "MPI_Send");
    EXPECT(MPI_Recv(NULL, 3, MPI_INT, 0, 0, MPI_COMM_WORLD, &st), MPI_ERR_BUFFER, "MPI_Recv");
    /* MPI_ERR_REQUEST */
    MPI_Request bogus = (MPI_Request)0x23456789;
    EXPECT(MPI_Wait(&bogus, &st), MPI_ERR_REQUEST, "MPI_Wait");
    EXPECT(MPI_Test(&bogus, &flag, &st), MPI_ERR_REQUEST, "MPI_Test");
    MPI_Request arr[2] = {MPI_REQUEST_NULL, bogus};
    EXPECT(MPI_Waitall(2, arr, MPI_STATUSES_IGNORE), MPI_ERR_REQUEST, "MPI_Waitall");
    MPI_Request nul = MPI_REQUEST_NULL;
    EXPECT(MPI_Request_free(&nul), MPI_ERR_REQUEST, "MPI_Request_free");
    {   /* a freed request's handle is stale */
        MPI_Request r, copy;
        CHECK_MPI(MPI_Isend(buf, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &r));
        copy = r;
        CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
        EXPECT(MPI_Wait(&copy, &st), MPI_ERR_REQUEST, "MPI_Wait");
    }
    /* MPI_ERR_ARG */
    EXPECT(MPI_Isend(buf, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, NULL), MPI_ERR_ARG, "MPI_Isend");
    EXPECT(MPI_Comm_size(MPI_COMM_WORLD, NULL), MPI_ERR_ARG, "MPI_Comm_size");
    EXPECT(MPI_Iprobe(0, 0, MPI_COMM_WORLD, NULL, &st), MPI_ERR_ARG, "MPI_Iprobe");
    /* MPI-4.1 has a class for invalid error handlers */
    EXPECT(MPI_Comm_set_errhandler(MPI_COMM_WORLD, (MPI_Errhandler)0x4444), MPI_ERR_ERRHANDLER,
           "MPI_Comm_set_errhandler");
    EXPECT(MPI_Error_string(-77, (char*)buf, &flag), MPI_ERR_ARG, "MPI_Error_string");
    /* MPI_ERR_OTHER: initializing twice */
    EXPECT(MPI_Init(NULL, NULL), MPI_ERR_OTHER, "MPI_Init");
    /* MPI_ERR_TRUNCATE is covered by p2p/truncate.c; MPI_ERR_IN_STATUS here */
    if (size >= 2 && rank < 2) {
        int peer = 1 - rank;
        int big[8] = {0}, small[2];
        MPI_Request rr[2];
        MPI_Status sts[2];
        CHECK_MPI(MPI_Irecv(small, 2, MPI_INT, peer, 9, MPI_COMM_WORLD, &rr[0]));
        CHECK_MPI(MPI_Isend(big, 8, MPI_INT, peer, 9, MPI_COMM_WORLD, &rr[1]));
        EXPECT(MPI_Waitall(2, rr, sts), MPI_ERR_IN_STATUS, "MPI_Waitall");
        EXPECT(sts[0].MPI_ERROR, MPI_ERR_TRUNCATE, NULL);
        CHECK(sts[1].MPI_ERROR == MPI_SUCCESS, "status[1].MPI_ERROR = %d", sts[1].MPI_ERROR);
    }
    /* ... and after all that, the runtime still works */
    int token = rank;
    CHECK_MPI(MPI_Sendrecv_replace(&token, 1, MPI_INT, (rank + 1) % size, 5, (rank + size - 1) % size,
                                   5, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK(token == (rank + size - 1) % size, "ring after errors: %d", token);
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    CHECK(mt_nerr == 0, "%d error check(s) failed", mt_nerr);
    if (rank == 0) printf("arg_errors: OK\n");
    MPI_Finalize();
    return 0;
}
