/* SPDX-License-Identifier: MIT */
/* Ways a job ends on purpose, for the banner checks of fatal_msg.sh:
 *   objectless  rank 1 makes an error without a communicator after setting
 *               MPI_ERRORS_RETURN on MPI_COMM_WORLD only (an MPI-3 habit):
 *               MPI_COMM_SELF's MPI_ERRORS_ARE_FATAL ends the job
 *   world       rank 1 sends to an invalid rank on MPI_COMM_WORLD
 *   abort       rank 1 calls MPI_Abort(MPI_COMM_WORLD, 7)
 *   nomem       rank 1's allocation fails in MPI_Comm_create_keyval
 *   hang        every rank waits forever (mpiexec -maxtime ends it)
 *   preinit     MPI_Comm_size before MPI_Init (the initial handler) */
#include <unistd.h>

#include "mpitest.h"
#ifndef FATAL_NO_NOMEM
#include "nomem.h"
#endif

int main(int argc, char** argv) {
    const char* how = argc > 1 ? argv[1] : "objectless";
    int rank, size, x = 0;
    if (strcmp(how, "preinit") == 0) {
        MPI_Comm_size(MPI_COMM_WORLD, &size);
        return 3; /* not reached under the default initial handler */
    }
#ifndef FATAL_NO_NOMEM
    nomem_init();
#endif
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1) {
        if (strcmp(how, "objectless") == 0) {
            MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
            MPI_Datatype t = MPI_DATATYPE_NULL;
            MPI_Type_commit(&t);
        } else if (strcmp(how, "world") == 0) {
            MPI_Send(&x, 1, MPI_INT, size + 2, 0, MPI_COMM_WORLD);
        } else if (strcmp(how, "abort") == 0) {
            MPI_Abort(MPI_COMM_WORLD, 7);
        } else if (strcmp(how, "nomem") == 0) {
#ifndef FATAL_NO_NOMEM
            int k;
            arm(0);
            MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &k, NULL);
            disarm();
#endif
        }
    }
    if (strcmp(how, "hang") == 0)
        for (;;) pause();
    MPI_Barrier(MPI_COMM_WORLD); /* the job ends while the others wait here */
    MPI_Finalize();
    return 0;
}
