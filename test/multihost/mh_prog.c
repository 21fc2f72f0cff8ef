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
 *   mh_prog answers      one line per rank of results that depend only on
 *                        the rank and the size (collectives, a ring, RMA, a
 *                        derived datatype): the same under every launcher
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

/* FNV-1a over the bytes, printed in hex: a compact, exact digest. */
static unsigned long long digest(const void* p, size_t n, unsigned long long h) {
    const unsigned char* b = (const unsigned char*)p;
    if (!h) h = 1469598103934665603ull;
    for (size_t i = 0; i < n; ++i) h = (h ^ b[i]) * 1099511628211ull;
    return h;
}

static void answers(int rank, int size) {
    long v = (long)rank * rank + 1, sum = 0, scan = 0;
    long* all = malloc(sizeof(long) * (size_t)size);
    int* a2a_in = malloc(sizeof(int) * (size_t)size);
    int* a2a_out = malloc(sizeof(int) * (size_t)size);
    int* rs_in = malloc(sizeof(int) * (size_t)size * 2);
    int rs_out[2], bc[4] = {0, 0, 0, 0}, sub_rank, sub_size, vec[12], got[12], win_buf[2] = {0, 0};
    double dsum = 0, d = 1.0 / (rank + 1);
    MPI_Comm sub;
    MPI_Win win;
    MPI_Datatype vt;
    MPI_Allreduce(&v, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(&d, &dsum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allgather(&v, 1, MPI_LONG, all, 1, MPI_LONG, MPI_COMM_WORLD);
    for (int i = 0; i < size; ++i) a2a_in[i] = rank * 100 + i;
    MPI_Alltoall(a2a_in, 1, MPI_INT, a2a_out, 1, MPI_INT, MPI_COMM_WORLD);
    for (int i = 0; i < 2 * size; ++i) rs_in[i] = rank + i;
    MPI_Reduce_scatter_block(rs_in, rs_out, 2, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    MPI_Scan(&v, &scan, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (rank == size - 1) bc[0] = 7, bc[1] = size, bc[2] = 11, bc[3] = 13;
    MPI_Bcast(bc, 4, MPI_INT, size - 1, MPI_COMM_WORLD);
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, -rank, &sub);
    MPI_Comm_rank(sub, &sub_rank);
    MPI_Comm_size(sub, &sub_size);
    /* A vector type (every other int) around the ring. */
    for (int i = 0; i < 12; ++i) vec[i] = rank * 1000 + i, got[i] = -1;
    MPI_Type_vector(6, 1, 2, MPI_INT, &vt);
    MPI_Type_commit(&vt);
    MPI_Sendrecv(vec, 1, vt, (rank + 1) % size, 3, got, 1, vt, (rank + size - 1) % size, 3, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    MPI_Type_free(&vt);
    /* RMA: each rank puts its rank into slot 0 of the next rank's window,
     * then reads slot 0 of its own after the fence. */
    MPI_Win_create(win_buf, sizeof win_buf, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_fence(0, win);
    MPI_Put(&rank, 1, MPI_INT, (rank + 1) % size, 0, 1, MPI_INT, win);
    MPI_Win_fence(0, win);
    MPI_Win_free(&win);
    unsigned long long h = digest(all, sizeof(long) * (size_t)size, 0);
    h = digest(a2a_out, sizeof(int) * (size_t)size, h);
    h = digest(got, sizeof got, h);
    printf("answers rank %d size %d: sum %ld dsum %.12f scan %ld rs %d,%d bcast %d,%d,%d,%d split %d/%d "
           "put-from %d digest %016llx\n",
           rank, size, sum, dsum, scan, rs_out[0], rs_out[1], bc[0], bc[1], bc[2], bc[3], sub_rank, sub_size,
           win_buf[0], h);
    MPI_Comm_free(&sub);
    free(all);
    free(a2a_in);
    free(a2a_out);
    free(rs_in);
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
    } else if (strcmp(mode, "answers") == 0) {
        answers(rank, size);
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
