/* SPDX-License-Identifier: MIT */
/* User error handlers: created, attached, called with the communicator and
 * the code, queried, freed; MPI_Comm_call_errhandler; MPI_Error_class and
 * MPI_Error_string on classes and codes. */
#include "mpitest.h"

static int calls = 0, last_code = 0;
static MPI_Comm last_comm = MPI_COMM_NULL;

static void handler(MPI_Comm* comm, int* code, ...) {
    ++calls;
    last_code = *code;
    last_comm = *comm;
}

int main(int argc, char** argv) {
    mt_init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Errhandler eh, got;
    CHECK_MPI(MPI_Comm_get_errhandler(MPI_COMM_WORLD, &got));
    CHECK(got == MPI_ERRORS_ARE_FATAL, "default handler is not MPI_ERRORS_ARE_FATAL");
    CHECK_MPI(MPI_Errhandler_free(&got));
    CHECK_MPI(MPI_Comm_create_errhandler(handler, &eh));
    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, eh));
    CHECK_MPI(MPI_Errhandler_free(&eh)); /* still attached: stays alive */
    CHECK(eh == MPI_ERRHANDLER_NULL, "free did not reset the handle");
    int x = 0;
    int rc = MPI_Send(&x, 1, MPI_INT, size, 0, MPI_COMM_WORLD);
    int cls;
    MPI_Error_class(rc, &cls);
    CHECK(calls == 1 && cls == MPI_ERR_RANK && last_code == rc, "handler calls %d class %d", calls, cls);
    CHECK(last_comm == MPI_COMM_WORLD, "handler got another communicator");
    CHECK_MPI(MPI_Comm_call_errhandler(MPI_COMM_WORLD, MPI_ERR_OTHER));
    CHECK(calls == 2 && last_code == MPI_ERR_OTHER, "call_errhandler");
    CHECK_MPI(MPI_Comm_get_errhandler(MPI_COMM_WORLD, &got));
    CHECK(got != MPI_ERRORS_ARE_FATAL && got != MPI_ERRHANDLER_NULL, "get_errhandler returned %p", (void*)got);
    CHECK_MPI(MPI_Errhandler_free(&got));
    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    /* classes map to themselves and have text */
    for (int c = 0; c <= MPI_ERR_ABI; ++c) {
        int k = -1, len = 0;
        char s[MPI_MAX_ERROR_STRING];
        CHECK_MPI(MPI_Error_class(c, &k));
        CHECK(k == c, "class of %d is %d", c, k);
        CHECK_MPI(MPI_Error_string(c, s, &len));
        CHECK(len > 0 && len == (int)strlen(s), "class %d text", c);
    }
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0) printf("errhandler: OK\n");
    MPI_Finalize();
    return 0;
}
