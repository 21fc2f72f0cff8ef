/* SPDX-License-Identifier: MIT */
/* Many-to-one floods that exhaust the rings, then all-to-all floods.
 *
 * Phase 1: every rank but 0 posts NMSG sends of mixed sizes (inline cell,
 * data ring, rendezvous) to rank 0 while rank 0 stays out of MPI (it waits
 * for a file each sender creates after posting). With tiny rings
 * (EXPECT_BACKPRESSURE=1: CH4LITE_SHM_CELLS=4, CH4LITE_SHM_RING_BYTES=16K)
 * the sends cannot all have completed then: they wait in the deferred queue,
 * and must all arrive, in order and intact, once rank 0 receives.
 * Phase 2: everyone sends NALL messages to everyone before receiving any,
 * so rings fill in both directions at once; nothing may deadlock or be lost. */
#include <unistd.h>

#include "shmtest.h"

#define NMSG 1500
#define NALL 300

static const size_t sizes[] = {0, 8, 34, 35, 200, 3000, 12000, 20000, 70000, 100};
#define NSIZES (sizeof sizes / sizeof sizes[0])
static size_t size_of(int i) { return sizes[i % NSIZES]; }

static void flag_path(char* buf, size_t n, long key, int rank) {
    snprintf(buf, n, "/tmp/ch4lite-flood-%ld-%d", key, rank);
}

static void many_to_one(int rank, int size, long key) {
    if (rank != 0) {
        size_t total = 0;
        for (int i = 0; i < NMSG; ++i) total += size_of(i);
        unsigned char* buf = malloc(total + 1);
        MPI_Request* r = malloc(sizeof(MPI_Request) * NMSG);
        CHECK(buf && r, "malloc");
        size_t off = 0;
        for (int i = 0; i < NMSG; ++i) {
            st_fill(buf + off, size_of(i), rank, i);
            CHECK_MPI(MPI_Isend(buf + off, (int)size_of(i), MPI_BYTE, 0, 5, MPI_COMM_WORLD, &r[i]));
            off += size_of(i);
        }
        int done = 1;
        CHECK_MPI(MPI_Testall(NMSG, r, &done, MPI_STATUSES_IGNORE));
        const char* bp = getenv("EXPECT_BACKPRESSURE");
        if (bp && strcmp(bp, "1") == 0 && st_shm_on())
            CHECK(!done, "all %d sends completed although rank 0 received nothing: "
                         "the rings were never full", NMSG);
        char path[128];
        flag_path(path, sizeof path, key, rank);
        FILE* f = fopen(path, "w");
        CHECK(f != NULL, "cannot create %s", path);
        fclose(f);
        CHECK_MPI(MPI_Waitall(NMSG, r, MPI_STATUSES_IGNORE));
        free(buf);
        free(r);
    } else {
        /* Out of MPI until every sender has posted everything. */
        for (int src = 1; src < size; ++src) {
            char path[128];
            flag_path(path, sizeof path, key, src);
            while (access(path, F_OK) != 0) usleep(1000);
            unlink(path);
        }
        unsigned char* buf = malloc(70000);
        CHECK(buf != NULL, "malloc");
        for (int i = 0; i < NMSG; ++i)
            for (int src = 1; src < size; ++src) {
                MPI_Status st;
                int count = -1;
                CHECK_MPI(MPI_Recv(buf, 70000, MPI_BYTE, src, 5, MPI_COMM_WORLD, &st));
                MPI_Get_count(&st, MPI_BYTE, &count);
                CHECK(count == (int)size_of(i), "from %d message %d: %d bytes, expected %zu", src,
                      i, count, size_of(i));
                size_t bad = st_check(buf, size_of(i), src, i);
                CHECK(bad == 0, "from %d message %d: byte %zu differs", src, i, bad - 1);
            }
        free(buf);
    }
}

static void all_to_all(int rank, int size) {
    size_t total = 0;
    for (int i = 0; i < NALL; ++i) total += size_of(i);
    unsigned char* sbuf = malloc(total + 1);
    unsigned char* rbuf = malloc((total + 1) * (size_t)size);
    MPI_Request* r = malloc(sizeof(MPI_Request) * 2 * NALL * (size_t)size);
    CHECK(sbuf && rbuf && r, "malloc");
    size_t off = 0;
    for (int i = 0; i < NALL; ++i) {
        st_fill(sbuf + off, size_of(i), rank, i);
        off += size_of(i);
    }
    int n = 0;
    for (int peer = 0; peer < size; ++peer) {
        off = 0;
        for (int i = 0; i < NALL; ++i) {
            CHECK_MPI(MPI_Isend(sbuf + off, (int)size_of(i), MPI_BYTE, peer, 6, MPI_COMM_WORLD, &r[n++]));
            off += size_of(i);
        }
    }
    for (int peer = 0; peer < size; ++peer) {
        off = (total + 1) * (size_t)peer;
        for (int i = 0; i < NALL; ++i) {
            CHECK_MPI(MPI_Irecv(rbuf + off, (int)size_of(i), MPI_BYTE, peer, 6, MPI_COMM_WORLD, &r[n++]));
            off += size_of(i);
        }
    }
    CHECK_MPI(MPI_Waitall(n, r, MPI_STATUSES_IGNORE));
    for (int peer = 0; peer < size; ++peer) {
        off = (total + 1) * (size_t)peer;
        for (int i = 0; i < NALL; ++i) {
            size_t bad = st_check(rbuf + off, size_of(i), peer, i);
            CHECK(bad == 0, "all-to-all from %d message %d: byte %zu differs", peer, i, bad - 1);
            off += size_of(i);
        }
    }
    free(sbuf);
    free(rbuf);
    free(r);
}

int main(int argc, char** argv) {
    mt_init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    /* A key for the side-channel files: rank 0's pid, sent to everyone. */
    long key = (long)getpid();
    if (rank == 0)
        for (int p = 1; p < size; ++p) CHECK_MPI(MPI_Send(&key, 1, MPI_LONG, p, 1, MPI_COMM_WORLD));
    else
        CHECK_MPI(MPI_Recv(&key, 1, MPI_LONG, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    many_to_one(rank, size, key);
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    all_to_all(rank, size);
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0) printf("flood: OK (%s)\n", st_version());
    MPI_Finalize();
    return 0;
}
