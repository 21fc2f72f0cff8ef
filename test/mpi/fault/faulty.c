/* SPDX-License-Identifier: MIT */
/* One program, several ways to fail (argv[1]); rank 1 misbehaves while the
 * others block in a receive that will never be satisfied, so the launcher
 * must end them:
 *   crash   rank 1 dies with SIGSEGV
 *   kill    rank 1 dies with SIGKILL (nothing in it can clean up)
 *   abort   rank 1 calls MPI_Abort(MPI_COMM_WORLD, 7)
 *   exit3   rank 1 exits with status 3 (without MPI_Finalize)
 *   fatal   rank 1 sends to an invalid rank under MPI_ERRORS_ARE_FATAL
 *   hang    every rank waits forever (ended by mpiexec -maxtime) */
#include <signal.h>
#include <unistd.h>

#include "mpitest.h"

int main(int argc, char** argv) {
    mt_init(&argc, &argv);
    int rank, size, x = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char* how = argc > 1 ? argv[1] : "crash";
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1 && strcmp(how, "crash") == 0) raise(SIGSEGV);
    if (rank == 1 && strcmp(how, "kill") == 0) raise(SIGKILL); /* no handler runs */
    if (rank == 1 && strcmp(how, "abort") == 0) MPI_Abort(MPI_COMM_WORLD, 7);
    if (rank == 1 && strcmp(how, "exit3") == 0) exit(3);
    if (rank == 1 && strcmp(how, "fatal") == 0) MPI_Send(&x, 1, MPI_INT, size + 5, 0, MPI_COMM_WORLD);
    /* everyone else (and everyone for "hang"): wait for a message that never comes */
    MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 12345, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Finalize();
    return 0;
}
