/* SPDX-License-Identifier: MIT */
/* Every rank says hello and which MPI library it runs on. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank, size, len;
    char name[MPI_MAX_PROCESSOR_NAME], version[MPI_MAX_LIBRARY_VERSION_STRING];
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Get_processor_name(name, &len);
    MPI_Get_library_version(version, &len);
    printf("hello from rank %d of %d on %s\n", rank, size, name);
    if (rank == 0) printf("library: %s\n", version);
    MPI_Finalize();
    return 0;
}
