/* SPDX-License-Identifier: MIT */
/* MPI_Info_create_env gives the same keys and values before MPI_Init,
 * while MPI runs and after MPI_Finalize (MPICH info/infocreateenv), and
 * "maxprocs" is the job size in all three. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int errs = 0;

static void same(MPI_Info a, MPI_Info b, const char* when) {
    const char* keys[] = {"command", "argv", "maxprocs", "soft", "host", "arch", "wdir", "file", "thread_level"};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; ++i) {
        char va[MPI_MAX_INFO_VAL], vb[MPI_MAX_INFO_VAL];
        int la = MPI_MAX_INFO_VAL, lb = MPI_MAX_INFO_VAL, fa = 0, fb = 0;
        MPI_Info_get_string(a, keys[i], &la, va, &fa);
        MPI_Info_get_string(b, keys[i], &lb, vb, &fb);
        if (fa != fb || (fa && strcmp(va, vb) != 0)) {
            fprintf(stderr, "FAIL %s: key %s: %s%s vs %s%s\n", when, keys[i], fa ? "" : "(unset)", fa ? va : "",
                    fb ? "" : "(unset)", fb ? vb : "");
            ++errs;
        }
    }
}

int main(int argc, char** argv) {
    MPI_Info before, during, after;
    MPI_Info_create_env(argc, argv, &before);
    MPI_Init(&argc, &argv);
    int size, rank;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Info_create_env(argc, argv, &during);
    same(before, during, "before MPI_Init / while MPI runs");
    char v[MPI_MAX_INFO_VAL];
    int len = MPI_MAX_INFO_VAL, flag = 0;
    MPI_Info_get_string(during, "maxprocs", &len, v, &flag);
    if (!flag || atoi(v) != size) {
        fprintf(stderr, "FAIL maxprocs %s, want %d\n", flag ? v : "(unset)", size);
        ++errs;
    }
    int total = 0;
    MPI_Allreduce(&errs, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Finalize();
    MPI_Info_create_env(argc, argv, &after);
    same(before, after, "before MPI_Init / after MPI_Finalize");
    MPI_Info_free(&before);
    MPI_Info_free(&during);
    MPI_Info_free(&after);
    if (total || errs) return 1;
    if (rank == 0) printf("info_env_stable: OK\n");
    return 0;
}
