/* SPDX-License-Identifier: MIT */
/* Thousands of fence epochs in which every origin picks, per target and
 * epoch, one of: nothing, a small contiguous put (direct on a node segment),
 * a derived-type accumulate (always a queued message), a get of data the
 * target stored locally in the previous epoch, a put + fetch-and-op, or a
 * large put, contiguous or from a vector of 2 KiB blocks (cross-memory
 * attach or zero-copy messages). So fences through
 * the node segment (counter words), fences with messages to node peers and
 * with messages to off-node peers (run it with -ppn), the "nobody sent a
 * message" shortcut and its fallback all follow each other in random order;
 * every epoch is checked at the origin and at the target. Every 97th epoch a
 * NOPRECEDE fence follows (no operations, local stores), and the loop runs once on a
 * Win_allocate and once on a Win_create window.
 * Argument: epochs (default 2000). */
#include "mpitest.h"

enum { R = 64, PUB = 16, BIGN = 16384 };
enum { C_NONE, C_PUT, C_ACC, C_GET, C_PUTFOP, C_BIG, C_COUNT };

static int rank, size;

static unsigned choice(int e, int r, int t) {
    unsigned h = (unsigned)e * 2654435761u ^ (unsigned)r * 40503u ^ (unsigned)t * 9973u;
    h ^= h >> 13;
    h *= 0x5bd1e995u;
    h ^= h >> 15;
    unsigned c = h % C_COUNT;
    if (c == C_BIG && e % 16) c = C_NONE; /* large puts are rarer */
    if (c == C_GET && e == 0) c = C_NONE; /* nothing published yet */
    return c;
}

/* Window layout (longs), everything twice by epoch parity q (the next
 * epoch's operations may land as soon as the target left the fence, while
 * it checks this epoch's): region of origin o: [0,8) put, [8] fetch-op
 * counter, [32,48) accumulate (every other long); pub[q][PUB] the owner
 * stores locally; the big area of origin o. */
static long* region(long* w, int q, int o) { return w + ((size_t)q * size + (size_t)o) * R; }
static MPI_Aint region_disp(int q, int o) { return ((MPI_Aint)q * size + o) * R; }
static MPI_Aint pub_disp(int q) { return (MPI_Aint)2 * size * R + (MPI_Aint)q * PUB; }
static MPI_Aint big_disp(int q, int o) {
    return (MPI_Aint)2 * size * R + 2 * PUB + ((MPI_Aint)q * size + o) * BIGN;
}

static void run(int flavor, int epochs) {
    const size_t n = 2 * (size_t)size * R + 2 * PUB + 2 * (size_t)size * BIGN;
    long* w;
    MPI_Win win;
    if (flavor == 0) {
        CHECK_MPI(MPI_Win_allocate((MPI_Aint)(n * sizeof(long)), sizeof(long), MPI_INFO_NULL,
                                   MPI_COMM_WORLD, &w, &win));
    } else {
        w = malloc(n * sizeof(long));
        CHECK(w != NULL, "malloc");
        CHECK_MPI(MPI_Win_create(w, (MPI_Aint)(n * sizeof(long)), sizeof(long), MPI_INFO_NULL,
                                 MPI_COMM_WORLD, &win));
    }
    memset(w, 0, n * sizeof(long));
    long* acc_expect = calloc(2 * (size_t)size, sizeof(long));  /* [q][origin]: what it added to me */
    long* fop_expect = calloc(2 * (size_t)size, sizeof(long));  /* [q][target]: my fetch-and-ops there */
    long* gets = malloc((size_t)size * PUB * sizeof(long));
    long* fetched = malloc((size_t)size * sizeof(long));
    long* bigsrc = malloc(2 * BIGN * sizeof(long));
    MPI_Datatype blocks;
    CHECK_MPI(MPI_Type_vector(BIGN / 256, 256, 512, MPI_LONG, &blocks));
    CHECK_MPI(MPI_Type_commit(&blocks));
    long vals[8], ones[8];
    MPI_Datatype strided;
    CHECK_MPI(MPI_Type_vector(8, 1, 2, MPI_LONG, &strided));
    CHECK_MPI(MPI_Type_commit(&strided));
    CHECK_MPI(MPI_Win_fence(MPI_MODE_NOPRECEDE, win));
    for (int e = 0; e < epochs; ++e) {
        const int q = e % 2;
        /* local stores of this epoch go to pub[q]; peers read pub[1 - q] */
        long* mine = w + pub_disp(q);
        for (int i = 0; i < PUB; ++i) mine[i] = (long)e * 100 + rank * 10 + i;
        for (int i = 0; i < 8; ++i) {
            vals[i] = (long)e * 1000 + rank * 10 + i;
            ones[i] = e + 1;
        }
        for (int t = 0; t < size; ++t) {
            if (t == rank) continue;
            const unsigned c = choice(e, rank, t);
            const MPI_Aint reg = region_disp(q, rank);
            if (c == C_PUT || c == C_PUTFOP)
                CHECK_MPI(MPI_Put(vals, 8, MPI_LONG, t, reg, 8, MPI_LONG, win));
            if (c == C_PUTFOP) {
                long one = 1;
                CHECK_MPI(MPI_Fetch_and_op(&one, &fetched[t], MPI_LONG, t, reg + 8, MPI_SUM, win));
            }
            if (c == C_ACC)
                CHECK_MPI(MPI_Accumulate(ones, 8, MPI_LONG, t, reg + 32, 1, strided, MPI_SUM, win));
            if (c == C_GET)
                CHECK_MPI(MPI_Get(gets + (size_t)t * PUB, PUB, MPI_LONG, t, pub_disp(1 - q), PUB,
                                  MPI_LONG, win));
            if (c == C_BIG && (e / 16) % 2 == 0) {
                for (int i = 0; i < BIGN; ++i) bigsrc[i] = (long)e * 7 + i + rank;
                CHECK_MPI(MPI_Put(bigsrc, BIGN, MPI_LONG, t, big_disp(q, rank), BIGN, MPI_LONG, win));
            } else if (c == C_BIG) {
                /* derived origin: blocks of 2 KiB every 4 KiB (CMA takes it) */
                for (int i = 0; i < BIGN; ++i) bigsrc[(i / 256) * 512 + i % 256] = (long)e * 7 + i + rank;
                CHECK_MPI(MPI_Put(bigsrc, 1, blocks, t, big_disp(q, rank), BIGN, MPI_LONG, win));
            }
        }
        CHECK_MPI(MPI_Win_fence(0, win));
        for (int p = 0; p < size; ++p) {
            if (p == rank) continue;
            /* what I did to p */
            const unsigned mine_c = choice(e, rank, p);
            if (mine_c == C_GET)
                for (int i = 0; i < PUB; ++i)
                    CHECK(gets[(size_t)p * PUB + i] ==
                              (long)(e - 1) * 100 + p * 10 + i + ((e - 1) % 97 == 96 ? 50 : 0),
                          "%s epoch %d: get from %d [%d] = %ld", flavor ? "create" : "allocate", e, p, i,
                          gets[(size_t)p * PUB + i]);
            long* fe = &fop_expect[(size_t)q * size + p];
            if (mine_c == C_PUTFOP) {
                CHECK(fetched[p] == *fe, "epoch %d: fetch-and-op at %d gave %ld, not %ld", e, p, fetched[p],
                      *fe);
                ++*fe;
            }
            /* what p did to me */
            const unsigned c = choice(e, p, rank);
            long* reg = region(w, q, p);
            long* ae = &acc_expect[(size_t)q * size + p];
            if (c == C_PUT || c == C_PUTFOP)
                for (int i = 0; i < 8; ++i)
                    CHECK(reg[i] == (long)e * 1000 + p * 10 + i, "%s epoch %d: put from %d [%d] = %ld",
                          flavor ? "create" : "allocate", e, p, i, reg[i]);
            if (c == C_ACC) *ae += e + 1;
            for (int i = 0; i < 8; ++i)
                CHECK(reg[32 + 2 * i] == *ae && reg[33 + 2 * i] == 0,
                      "epoch %d: accumulate from %d [%d] = %ld, expected %ld", e, p, i, reg[32 + 2 * i], *ae);
            if (c == C_BIG) {
                const long* b = w + big_disp(q, p);
                for (int i = 0; i < BIGN; ++i)
                    CHECK(b[i] == (long)e * 7 + i + p, "epoch %d: large put from %d [%d] = %ld", e, p, i,
                          b[i]);
            }
        }
        if (e % 97 == 96) {
            /* an epoch without operations with local stores in it, which
             * the next epoch's gets must see */
            for (int i = 0; i < PUB; ++i) mine[i] += 50;
            CHECK_MPI(MPI_Win_fence(MPI_MODE_NOPRECEDE, win));
        }
    }
    CHECK_MPI(MPI_Win_fence(0, win));
    /* fetch-and-op counters: every origin's count is at its target */
    for (int p = 0; p < size; ++p) {
        if (p == rank) continue;
        long cnt = 0;
        for (int e = 0; e < epochs; ++e) cnt += choice(e, p, rank) == C_PUTFOP;
        CHECK(region(w, 0, p)[8] + region(w, 1, p)[8] == cnt, "fetch-and-op counters of %d: %ld + %ld, expected %ld",
              p, region(w, 0, p)[8], region(w, 1, p)[8], cnt);
    }
    CHECK_MPI(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
    CHECK_MPI(MPI_Type_free(&strided));
    CHECK_MPI(MPI_Type_free(&blocks));
    CHECK_MPI(MPI_Win_free(&win));
    if (flavor == 1) free(w);
    free(acc_expect);
    free(fop_expect);
    free(gets);
    free(fetched);
    free(bigsrc);
}

int main(int argc, char** argv) {
    mt_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    /* make check: 400 epochs; make check-full (CH4LITE_TEST_FULL): 2000 */
    const int epochs = argc > 1 ? atoi(argv[1]) : mt_full() ? 2000 : 400;
    run(0, epochs);
    run(1, epochs);
    if (rank == 0) printf("rma_fence_mix: OK\n");
    MPI_Finalize();
    return 0;
}
