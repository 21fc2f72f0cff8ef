/* SPDX-License-Identifier: MIT */
/* Messages beyond 2 GiB: MPI_Send_c / MPI_Recv_c of 2^31 + 4099 bytes (and,
 * with argv[1] = "4g", beyond 2^32 bytes) between ranks 0 and 1, blocking and
 * nonblocking (the 4 GiB run only blocking: the nonblocking calls are the
 * same code, checked beyond 2 GiB on every path; and only under make
 * check-full, CH4LITE_TEST_FULL), with a large-count
 * datatype count (> INT_MAX elements) and the status count read with
 * MPI_Get_count_c; every byte is checked. */
#include <stdint.h>

#include "mpitest.h"

/* word-wise pattern: cheap to write and check for 2-4 GiB */
static uint64_t word(uint64_t i) { return i * 0x9E3779B97F4A7C15ull + 17; }
static void fill(unsigned char* b, MPI_Count n) {
    uint64_t* w = (uint64_t*)b;
    for (MPI_Count i = 0; i < n / 8; ++i) w[i] = word((uint64_t)i);
    for (MPI_Count i = n / 8 * 8; i < n; ++i) b[i] = (unsigned char)i;
}
static MPI_Count check(const unsigned char* b, MPI_Count n) {
    const uint64_t* w = (const uint64_t*)b;
    for (MPI_Count i = 0; i < n / 8; ++i)
        if (w[i] != word((uint64_t)i)) return i * 8;
    for (MPI_Count i = n / 8 * 8; i < n; ++i)
        if (b[i] != (unsigned char)i) return i;
    return -1;
}

int main(int argc, char** argv) {
    mt_init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    const int four_g = argc > 1 && strcmp(argv[1], "4g") == 0;
    const MPI_Count n = four_g ? ((MPI_Count)1 << 32) + 4099 : ((MPI_Count)1 << 31) + 4099;
    /* make check: the blocking send only (2 GiB are 2 GiB either way);
     * make check-full (mt_full) adds the nonblocking one. */
    const int rounds = four_g || !mt_full() ? 1 : 2;
    if (rank < 2) {
        unsigned char* buf = malloc((size_t)n + 8);
        CHECK(buf != NULL, "cannot allocate %lld bytes", (long long)n);
        if (rank == 0) {
            fill(buf, n);
            CHECK_MPI(MPI_Send_c(buf, n, MPI_BYTE, 1, 1, MPI_COMM_WORLD));
            if (rounds == 2) {
                MPI_Request r;
                CHECK_MPI(MPI_Isend_c(buf, n, MPI_BYTE, 1, 2, MPI_COMM_WORLD, &r));
                CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
            }
        } else {
            for (int round = 1; round <= rounds; ++round) {
                memset(buf, 0, (size_t)n);
                MPI_Status st;
                if (round == 1) {
                    CHECK_MPI(MPI_Recv_c(buf, n, MPI_BYTE, 0, 1, MPI_COMM_WORLD, &st));
                } else {
                    MPI_Request r;
                    CHECK_MPI(MPI_Irecv_c(buf, n, MPI_BYTE, 0, 2, MPI_COMM_WORLD, &r));
                    CHECK_MPI(MPI_Wait(&r, &st));
                }
                MPI_Count cnt = -1;
                CHECK_MPI(MPI_Get_count_c(&st, MPI_BYTE, &cnt));
                CHECK(cnt == n, "round %d: count %lld, expected %lld", round, (long long)cnt, (long long)n);
                int icnt = 0;
                CHECK_MPI(MPI_Get_count(&st, MPI_BYTE, &icnt));
                CHECK(icnt == MPI_UNDEFINED, "int count of a >2 GiB message must be MPI_UNDEFINED, got %d", icnt);
                const MPI_Count bad = check(buf, n);
                CHECK(bad < 0, "round %d: data differs at byte %lld", round, (long long)bad);
            }
        }
        free(buf);
    }
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0) printf("large: OK (%lld bytes)\n", (long long)n);
    MPI_Finalize();
    return 0;
}
