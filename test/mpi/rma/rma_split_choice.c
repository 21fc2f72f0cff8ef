/* SPDX-License-Identifier: MIT */
/* When a large put into a Win_create window is split between origin and
 * target (docs/rma.md, "Split single copy"): in one-way traffic, but not
 * for long between two ranks that put to each other in the same epochs
 * (both cores copy anyway). Run on 2 ranks with CH4LITE_STATS=1; ctest
 * checks rank 0's counter line:
 *   - 4 epochs in which only rank 0 puts 1 MiB: 4 split puts;
 *   - 4 epochs in which both ranks put 1 MiB to each other: the first
 *     split (neither knows yet), the next 3 not;
 * so 8 puts by single copy, 5 split. Every window's bytes are checked. */
#include "mpitest.h"

enum { N = 1 << 20, ROUNDS = 4 };

static unsigned char pat(int writer, int round, size_t i) {
    return (unsigned char)(writer * 31 + round * 7 + (i * 2654435761u >> 13));
}

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size == 2, "run on 2 ranks, not %d", size);
    unsigned char* mem = malloc(N);
    unsigned char* src = malloc(N);
    CHECK(mem && src, "malloc");
    memset(mem, 0, N);
    MPI_Win win;
    CHECK_MPI(MPI_Win_create(mem, N, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    const int peer = 1 - rank;
    CHECK_MPI(MPI_Win_fence(0, win));
    for (int k = 0; k < 2 * ROUNDS; ++k) {
        const int both = k >= ROUNDS;
        if (rank == 0 || both) {
            for (size_t i = 0; i < N; ++i) src[i] = pat(rank, k, i);
            CHECK_MPI(MPI_Put(src, N, MPI_BYTE, peer, 0, N, MPI_BYTE, win));
        }
        CHECK_MPI(MPI_Win_fence(0, win));
        if (rank == 1 || both)
            for (size_t i = 0; i < N; ++i)
                CHECK(mem[i] == pat(peer, k, i), "epoch %d: byte %zu is %d, not %d", k, i, mem[i],
                      pat(peer, k, i));
        CHECK_MPI(MPI_Win_fence(0, win));
    }
    CHECK_MPI(MPI_Win_free(&win));
    if (rank == 0) printf("rma_split_choice: OK\n");
    free(mem);
    free(src);
    MPI_Finalize();
    return 0;
}
