/* SPDX-License-Identifier: MIT */
/* When a large on-node message is split between receiver and sender
 * (docs/shm-protocols.md, "Large messages"): not in an exchange, where the sender
 * is busy reading our message at the same time, but when only one side
 * sends. Run on 2 ranks with CH4LITE_STATS=1; ctest checks rank 0's counter
 * line: its 4 exchange receives by plain single copy, its 4 one-way
 * receives split. Every message's bytes are checked too. */
#include "shmtest.h"

enum { N = 1 << 20, ROUNDS = 4 };

int main(int argc, char** argv) {
    mt_init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size == 2, "run on 2 ranks, not %d", size);
    CHECK(st_version_has(" local ranks, cma)"), "expected CMA: %s", st_version());
    unsigned char* s = malloc(N);
    unsigned char* r = malloc(N);
    CHECK(s && r, "malloc");
    const int peer = 1 - rank;
    /* Exchanges: both directions at once. */
    for (int k = 0; k < ROUNDS; ++k) {
        st_fill(s, N, rank, k);
        CHECK_MPI(MPI_Sendrecv(s, N, MPI_BYTE, peer, 1, r, N, MPI_BYTE, peer, 1, MPI_COMM_WORLD,
                               MPI_STATUS_IGNORE));
        size_t bad = st_check(r, N, peer, k);
        CHECK(bad == 0, "exchange %d: byte %zu differs", k, bad - 1);
    }
    /* One way, each direction in turn. */
    for (int from = 1; from >= 0; --from)
        for (int k = 0; k < ROUNDS; ++k) {
            if (rank == from) {
                st_fill(s, N, rank, 10 + k);
                CHECK_MPI(MPI_Send(s, N, MPI_BYTE, peer, 2, MPI_COMM_WORLD));
            } else {
                CHECK_MPI(MPI_Recv(r, N, MPI_BYTE, peer, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
                size_t bad = st_check(r, N, peer, 10 + k);
                CHECK(bad == 0, "one-way %d: byte %zu differs", k, bad - 1);
            }
        }
    if (rank == 0) printf("split_choice: OK\n");
    free(s);
    free(r);
    MPI_Finalize();
    return 0;
}
