/* SPDX-License-Identifier: MIT */
/* An MPI program for jobs across the test hosts (hosts.sh). Plain MPI, so it
 * also builds against MPICH and Open MPI.
 *
 *   mh_prog where        each rank prints "where rank R host H shared S" where
 *                        S lists the ranks of MPI_COMM_TYPE_SHARED, then a
 *                        ring exchange checks every pair of neighbours talks
 *   mh_prog kill R       rank R dies by SIGKILL after a first exchange, the
 *                        others block in a receive that never completes
 *   mh_prog init         MPI_Init, report, MPI_Finalize (start-up faults)
 * Every rank writes its pid to $MH_TEST_DIR/pid.<rank> when set, and
 * "ready.<rank>" once initialized. */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void mark(const char* what, int rank) {
    const char* dir = getenv("MH_TEST_DIR");
    char path[512];
    FILE* f;
    if (!dir) return;
    snprintf(path, sizeof path, "%s/%s.%d", dir, what, rank);
    f = fopen(path, "w");
    if (!f) return;
    fprintf(f, "%d\n", (int)getpid());
    fclose(f);
}

static void ring(int rank, int size) {
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    long out[256], in[256];
    for (int i = 0; i < 256; ++i) out[i] = rank * 1000 + i;
    MPI_Sendrecv(out, 256, MPI_LONG, right, 7, in, 256, MPI_LONG, left, 7, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    for (int i = 0; i < 256; ++i)
        if (in[i] != left * 1000 + i) {
            fprintf(stderr, "rank %d: wrong data from rank %d\n", rank, left);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
}

int main(int argc, char** argv) {
    int rank, size;
    const char* mode = argc > 1 ? argv[1] : "where";
    char host[256] = "?";
    const char* r = getenv("PMI_RANK");
    if (!r) r = getenv("PMIX_RANK");
    mark("pid", r ? atoi(r) : 0);
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    gethostname(host, sizeof host - 1);
    mark("ready", rank);
    if (strcmp(mode, "where") == 0) {
        MPI_Comm shared;
        int n, *ranks = malloc(sizeof(int) * (size_t)size), *wr = malloc(sizeof(int) * (size_t)size);
        MPI_Group g, wg;
        char list[4096] = "";
        MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &shared);
        MPI_Comm_size(shared, &n);
        MPI_Comm_group(shared, &g);
        MPI_Comm_group(MPI_COMM_WORLD, &wg);
        for (int i = 0; i < n; ++i) ranks[i] = i;
        MPI_Group_translate_ranks(g, n, ranks, wg, wr);
        for (int i = 0; i < n; ++i)
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s%d", i ? "," : "", wr[i]);
        ring(rank, size);
        MPI_Barrier(MPI_COMM_WORLD);
        printf("where rank %d host %s shared %s\n", rank, host, list);
        MPI_Group_free(&g);
        MPI_Group_free(&wg);
        MPI_Comm_free(&shared);
        free(ranks);
        free(wr);
    } else if (strcmp(mode, "kill") == 0) {
        int victim = argc > 2 ? atoi(argv[2]) : 1, x = 0;
        ring(rank, size);
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == victim) {
            printf("kill: rank %d on %s dies now\n", rank, host);
            fflush(stdout);
            raise(SIGKILL);
        }
        MPI_Recv(&x, 1, MPI_INT, victim, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (strcmp(mode, "init") == 0) {
        ring(rank, size);
        printf("init rank %d host %s ok\n", rank, host);
    } else {
        fprintf(stderr, "mh_prog: unknown mode %s\n", mode);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Finalize();
    return 0;
}
