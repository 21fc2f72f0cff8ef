/* SPDX-License-Identifier: MIT */
/* Computes pi by the midpoint rule, each rank summing a strided share of the
 * intervals; partial sums are collected with point-to-point messages. */
#include <math.h>
#include <mpi.h>
#include <stdio.h>

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const long n = 10000000;
    const double h = 1.0 / (double)n;
    double t0 = MPI_Wtime(), sum = 0.0;
    for (long i = rank; i < n; i += size) {
        const double x = h * ((double)i + 0.5);
        sum += 4.0 / (1.0 + x * x);
    }
    double part = sum * h;
    if (rank == 0) {
        double pi = part;
        for (int r = 1; r < size; ++r) {
            double p;
            MPI_Recv(&p, 1, MPI_DOUBLE, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            pi += p;
        }
        const double err = fabs(pi - 3.14159265358979323846);
        printf("pi ~ %.12f (error %.2e) with %d ranks in %.3f s\n", pi, err, size, MPI_Wtime() - t0);
        MPI_Finalize();
        return err < 1e-9 ? 0 : 1;
    }
    MPI_Send(&part, 1, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
