/* SPDX-License-Identifier: MIT */
/* Large messages on-node, with cross-memory attach on or off
 * (CH4LITE_SHM_CMA; EXPECT_CMA=1/0 makes the test check which protocol the
 * library reports). Sizes around the eager limit up to 8 MiB, between every
 * pair and to self, in the patterns that matter for a single copy:
 * receive posted first, message unexpected (RTS queued), truncation (only
 * the receive buffer's bytes are read), synchronous sends, both directions
 * at once, a sender that reuses its buffer right after completion, and
 * receive buffers a few bytes further into their page than the send
 * buffer. */
#include "shmtest.h"

static const int sizes[] = {16383, 16384, 16385, 32767, 32768, 32769, 65536, (1 << 20) + 7, 8 << 20};
#define NSIZES (int)(sizeof sizes / sizeof sizes[0])
#define MAXB (8 << 20)

static void exchange(int rank, int peer, unsigned char* s, unsigned char* r, int n, int sync) {
    st_fill(s, (size_t)n, rank, n + sync);
    MPI_Request q[2];
    CHECK_MPI(MPI_Irecv(r, n, MPI_BYTE, peer, 7, MPI_COMM_WORLD, &q[0]));
    if (sync)
        CHECK_MPI(MPI_Issend(s, n, MPI_BYTE, peer, 7, MPI_COMM_WORLD, &q[1]));
    else
        CHECK_MPI(MPI_Isend(s, n, MPI_BYTE, peer, 7, MPI_COMM_WORLD, &q[1]));
    CHECK_MPI(MPI_Waitall(2, q, MPI_STATUSES_IGNORE));
    /* The sender may scribble on its buffer now: the receiver is done with it. */
    memset(s, 0xee, (size_t)n);
    size_t bad = st_check(r, (size_t)n, peer, n + sync);
    CHECK(bad == 0, "%d bytes from %d: byte %zu differs", n, peer, bad - 1);
}

int main(int argc, char** argv) {
    mt_init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char* cma = getenv("EXPECT_CMA");
    if (cma && st_shm_on()) {
        if (strcmp(cma, "1") == 0)
            CHECK(st_version_has(" local ranks, cma)"), "expected CMA: %s", st_version());
        else
            CHECK(st_version_has("cma off"), "expected CMA off: %s", st_version());
    }
    unsigned char* s = malloc(MAXB);
    unsigned char* r = malloc(MAXB);
    CHECK(s && r, "malloc");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

    /* Every pair, both directions at once, normal and synchronous; and self. */
    for (int k = 0; k < NSIZES; ++k)
        for (int d = 0; d < size; ++d) {
            const int peer = (rank + d) % size, from = (rank - d + size) % size;
            if (peer == rank) {
                exchange(rank, rank, s, r, sizes[k], k & 1);
                continue;
            }
            st_fill(s, (size_t)sizes[k], rank, k);
            CHECK_MPI(MPI_Sendrecv(s, sizes[k], MPI_BYTE, peer, 8, r, sizes[k], MPI_BYTE, from, 8,
                                   MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            size_t bad = st_check(r, (size_t)sizes[k], from, k);
            CHECK(bad == 0, "%d bytes from %d: byte %zu differs", sizes[k], from, bad - 1);
        }
    for (int k = 0; k < NSIZES; ++k)
        if (size >= 2 && rank < 2) exchange(rank, 1 - rank, s, r, sizes[k], 1);
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));

    /* Unexpected: rank 1 posts every send before rank 0 posts a receive
     * (barrier in between), so all RTS wait in rank 0's unexpected queue. */
    if (rank == 1) {
        MPI_Request q[NSIZES];
        size_t total = 0;
        for (int k = 0; k < NSIZES; ++k) total += (size_t)sizes[k];
        unsigned char* bufs = malloc(total);
        CHECK(bufs != NULL, "malloc");
        size_t off = 0;
        for (int k = 0; k < NSIZES; ++k) {
            st_fill(bufs + off, (size_t)sizes[k], 1, 100 + k);
            CHECK_MPI(MPI_Isend(bufs + off, sizes[k], MPI_BYTE, 0, 9, MPI_COMM_WORLD, &q[k]));
            off += (size_t)sizes[k];
        }
        CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
        CHECK_MPI(MPI_Waitall(NSIZES, q, MPI_STATUSES_IGNORE));
        free(bufs);
    } else if (rank == 0) {
        CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
        for (int k = 0; k < NSIZES; ++k) {
            MPI_Status st;
            int count = -1;
            CHECK_MPI(MPI_Recv(r, MAXB, MPI_BYTE, 1, 9, MPI_COMM_WORLD, &st));
            MPI_Get_count(&st, MPI_BYTE, &count);
            CHECK(count == sizes[k], "unexpected %d: got %d bytes", sizes[k], count);
            size_t bad = st_check(r, (size_t)sizes[k], 1, 100 + k);
            CHECK(bad == 0, "unexpected %d bytes: byte %zu differs", sizes[k], bad - 1);
        }
    } else {
        CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    }
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));

    /* Receive buffers 8, 16, 63 and 64 bytes further into their page than
     * the send buffer (both come from malloc): 1-63 bytes is where memcpy's
     * `rep movsb` and the kernel's single copy are slow, and the receive
     * takes the pipelined chunks with backward copies instead (docs/shm-protocols.md,
     * "Buffers a few bytes past the source's place in a page"). Posted
     * first, and unexpected (the send before the receive, a barrier
     * between). */
    if (rank < 2 && size >= 2) {
        static const int offs[] = {8, 16, 63, 64};
        static const int lens[] = {16385, 65536, (1 << 20) + 7};
        for (int o = 0; o < 4; ++o)
            for (int k = 0; k < 3; ++k)
                for (int late = 0; late < 2; ++late) {
                    const int n = lens[k], tag = 20 + late;
                    if (rank == 1) {
                        st_fill(s, (size_t)n, 1, 200 + o * 8 + k * 2 + late);
                        MPI_Request q;
                        CHECK_MPI(MPI_Isend(s, n, MPI_BYTE, 0, tag, MPI_COMM_WORLD, &q));
                        CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
                        CHECK_MPI(MPI_Wait(&q, MPI_STATUS_IGNORE));
                    } else {
                        MPI_Request q = MPI_REQUEST_NULL;
                        unsigned char* at = r + offs[o];
                        memset(at - 8, 0x5a, (size_t)n + 16);
                        if (!late) CHECK_MPI(MPI_Irecv(at, n, MPI_BYTE, 1, tag, MPI_COMM_WORLD, &q));
                        CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
                        if (late) CHECK_MPI(MPI_Recv(at, n, MPI_BYTE, 1, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
                        else CHECK_MPI(MPI_Wait(&q, MPI_STATUS_IGNORE));
                        size_t bad = st_check(at, (size_t)n, 1, 200 + o * 8 + k * 2 + late);
                        CHECK(bad == 0, "%d bytes at +%d: byte %zu differs", n, offs[o], bad - 1);
                        for (int g = 0; g < 8; ++g)
                            CHECK(at[-1 - g] == 0x5a && at[n + g] == 0x5a, "%d bytes at +%d: wrote outside",
                                  n, offs[o]);
                    }
                }
    } else {
        for (int i = 0; i < 4 * 3 * 2; ++i) CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    }
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));

    /* Truncation: only `cap` bytes land; nothing beyond the buffer is written. */
    if (rank < 2) {
        const int n = 1 << 20, cap = 100000;
        if (rank == 1) {
            st_fill(s, (size_t)n, 1, 55);
            CHECK_MPI(MPI_Send(s, n, MPI_BYTE, 0, 10, MPI_COMM_WORLD));
        } else {
            memset(r, 0x5a, (size_t)cap + 4096);
            MPI_Status st;
            const int rc = MPI_Recv(r, cap, MPI_BYTE, 1, 10, MPI_COMM_WORLD, &st);
            int cls = -1;
            MPI_Error_class(rc, &cls);
            CHECK(cls == MPI_ERR_TRUNCATE, "truncation reported class %d", cls);
            size_t bad = st_check(r, (size_t)cap, 1, 55);
            CHECK(bad == 0, "truncated receive: byte %zu differs", bad - 1);
            for (int i = cap; i < cap + 4096; ++i)
                CHECK(r[i] == 0x5a, "byte %d beyond the buffer was written", i);
        }
    }
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0) printf("large: OK (%s)\n", st_version());
    free(s);
    free(r);
    MPI_Finalize();
    return 0;
}
