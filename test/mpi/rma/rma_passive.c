/* SPDX-License-Identifier: MIT */
/* Passive-target synchronization (docs/rma-passive.md), on Win_allocate and
 * Win_create windows:
 *   - counters: every rank increments every rank's counters with
 *     MPI_Fetch_and_op under MPI_Win_lock_all; the totals are exact and the
 *     fetched values of one counter are all different;
 *   - mutual exclusion: a 4-element record read, checked and rewritten
 *     under MPI_LOCK_EXCLUSIVE by every rank (a torn update shows as
 *     unequal fields), read under MPI_LOCK_SHARED by the same ranks;
 *   - put / get / accumulate of 8 B .. 1 MiB under lock / flush / unlock,
 *     contiguous and strided, flush_local, MPI_MODE_NOCHECK, self locks,
 *     lock_all + flush_all, compare-and-swap election;
 *   - under lock_all, windows of one put or get (the netmod's native RMA
 *     may take those) alternating with windows of many puts and an
 *     accumulate (batched), each checked after its flush;
 *   - a busy target (argument "busy"): rank 0 computes without any MPI call
 *     while the others lock, put and unlock into its window. Where the
 *     runtime promises progress without the target (every peer in this
 *     node's window segment: shm on, one node), rank 0 sees every put arrive
 *     while it computes (it waits up to 20 s for them); elsewhere it computes
 *     for one second and then finds them after its next MPI call. */
#include <time.h>

#include "mpitest.h"

static int rank, size;

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static MPI_Win make_win(int flavor, MPI_Aint bytes, int disp_unit, void** mem) {
    MPI_Win win;
    if (flavor == 0) {
        CHECK_MPI(MPI_Win_allocate(bytes, disp_unit, MPI_INFO_NULL, MPI_COMM_WORLD, mem, &win));
    } else {
        *mem = malloc(bytes ? (size_t)bytes : 1);
        CHECK(*mem != NULL, "malloc");
        CHECK_MPI(MPI_Win_create(*mem, bytes, disp_unit, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    }
    return win;
}

static void free_win(int flavor, MPI_Win* win, void* mem) {
    CHECK_MPI(MPI_Win_free(win));
    if (flavor == 1) free(mem);
}

/* Every rank adds 1 to every rank's NC counters, ROUNDS times, with
 * Fetch_and_op under lock_all; fetched values of one counter never repeat. */
static void counters(int flavor) {
    enum { NC = 4, ROUNDS = 200 };
    long* mem;
    MPI_Win win = make_win(flavor, NC * sizeof(long), sizeof(long), (void**)&mem);
    for (int i = 0; i < NC; ++i) mem[i] = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    long* olds = malloc(sizeof(long) * ROUNDS * size);
    long* all = malloc(sizeof(long) * ROUNDS * size * size);
    CHECK_MPI(MPI_Win_lock_all(0, win));
    const long one = 1;
    for (int r = 0; r < ROUNDS; ++r)
        for (int t = 0; t < size; ++t) {
            const int tt = (t + rank) % size;
            olds[r * size + tt] = -1;
            CHECK_MPI(MPI_Fetch_and_op(&one, &olds[r * size + tt], MPI_LONG, tt, r % NC, MPI_SUM, win));
            if (r % 3 == 0) CHECK_MPI(MPI_Win_flush(tt, win));
        }
    CHECK_MPI(MPI_Win_flush_all(win));
    /* every fetch is complete: read them back with NO_OP */
    long v[NC];
    for (int i = 0; i < NC; ++i)
        CHECK_MPI(MPI_Fetch_and_op(NULL, &v[i], MPI_LONG, rank, i, MPI_NO_OP, win));
    /* the values fetched from one counter are 0 .. total-1, each once */
    MPI_Allgather(olds, ROUNDS * size, MPI_LONG, all, ROUNDS * size, MPI_LONG, MPI_COMM_WORLD);
    const long per = (long)size * ROUNDS / NC;
    char* hit = calloc((size_t)per, 1);
    for (int t = 0; t < size; ++t)
        for (int c = 0; c < NC; ++c) {
            memset(hit, 0, (size_t)per);
            for (int o = 0; o < size; ++o)
                for (int r = c; r < ROUNDS; r += NC) {
                    const long x = all[(size_t)o * ROUNDS * size + (size_t)r * size + t];
                    CHECK(x >= 0 && x < per, "fetched %ld from counter %d of rank %d", x, c, t);
                    CHECK(!hit[x], "value %ld fetched twice from counter %d of rank %d", x, c, t);
                    hit[x] = 1;
                }
        }
    free(hit);
    free(olds);
    free(all);
    CHECK_MPI(MPI_Win_unlock_all(win));
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win));
    for (int i = 0; i < NC; ++i)
        CHECK(mem[i] == (long)size * ROUNDS / NC, "counter %d = %ld, expected %ld", i, mem[i],
              (long)size * ROUNDS / NC);
    CHECK_MPI(MPI_Win_unlock(rank, win));
    MPI_Barrier(MPI_COMM_WORLD);
    free_win(flavor, &win, mem);
}

/* Mutual exclusion: rank 0's record {a, b, c, d} is read, checked and
 * written back (each field + 1) under an exclusive lock by every rank. */
static void exclusive(int flavor) {
    enum { N = 4, ROUNDS = 150 };
    long* mem;
    MPI_Win win = make_win(flavor, 64 * sizeof(long), sizeof(long), (void**)&mem);
    for (int i = 0; i < 64; ++i) mem[i] = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    for (int r = 0; r < ROUNDS; ++r) {
        long rec[N];
        const int target = r % 2 == 0 ? 0 : size - 1;
        CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, target, 0, win));
        CHECK_MPI(MPI_Get(rec, N, MPI_LONG, target, 8, N, MPI_LONG, win));
        CHECK_MPI(MPI_Win_flush(target, win));
        for (int i = 1; i < N; ++i) CHECK(rec[i] == rec[0], "torn record: %ld vs %ld (round %d)", rec[i], rec[0], r);
        for (int i = 0; i < N; ++i) rec[i] += 1;
        /* element by element, with a pause between, so that an interleaving
         * writer would tear the record or lose an increment */
        for (int i = 0; i < N; ++i) {
            const double t0 = now();
            while (now() - t0 < 2e-6) {
            }
            CHECK_MPI(MPI_Put(&rec[i], 1, MPI_LONG, target, 8 + i, 1, MPI_LONG, win));
        }
        CHECK_MPI(MPI_Win_unlock(target, win));
        if (r % 10 == 5) {  /* readers under a shared lock see whole records */
            CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, target, 0, win));
            CHECK_MPI(MPI_Get(rec, N, MPI_LONG, target, 8, N, MPI_LONG, win));
            CHECK_MPI(MPI_Win_unlock(target, win));
            for (int i = 1; i < N; ++i) CHECK(rec[i] == rec[0], "shared reader saw a torn record");
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    const long want0 = (long)size * ((ROUNDS + 1) / 2), want1 = (long)size * (ROUNDS / 2);
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win));
    if (rank == 0 && size > 1)
        for (int i = 0; i < N; ++i) CHECK(mem[8 + i] == want0, "record[%d] = %ld, want %ld", i, mem[8 + i], want0);
    if (rank == size - 1 && size > 1)
        for (int i = 0; i < N; ++i) CHECK(mem[8 + i] == want1, "record[%d] = %ld, want %ld", i, mem[8 + i], want1);
    CHECK_MPI(MPI_Win_unlock(rank, win));
    MPI_Barrier(MPI_COMM_WORLD);
    free_win(flavor, &win, mem);
}

/* Transfers of 8 B .. 1 MiB under lock / flush / unlock to the right
 * neighbour; strided types; accumulate; flush_local; NOCHECK; self. */
static void transfers(int flavor) {
    const size_t big = 1 << 20;
    unsigned char* mem;
    MPI_Win win = make_win(flavor, (MPI_Aint)(2 * big), 1, (void**)&mem);
    memset(mem, 0, 2 * big);
    unsigned char* src = malloc(big);
    unsigned char* back = malloc(big);
    const int right = (rank + 1) % size, left = (rank + size - 1) % size;
    MPI_Barrier(MPI_COMM_WORLD);
    for (size_t n = 8; n <= big; n *= 8) {
        mt_fill(src, n, (int)n + rank);
        CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, win));
        CHECK_MPI(MPI_Put(src, (int)n, MPI_BYTE, right, 0, (int)n, MPI_BYTE, win));
        CHECK_MPI(MPI_Win_flush(right, win));
        memset(back, 0, n);
        CHECK_MPI(MPI_Get(back, (int)n, MPI_BYTE, right, 0, (int)n, MPI_BYTE, win));
        CHECK_MPI(MPI_Win_unlock(right, win));
        CHECK(mt_verify(back, n, (int)n + rank) == 0, "get after put of %zu bytes", n);
        MPI_Barrier(MPI_COMM_WORLD);
        CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win));
        CHECK(mt_verify(mem, n, (int)n + left) == 0, "my window after the left rank's put of %zu", n);
        CHECK_MPI(MPI_Win_unlock(rank, win));
        MPI_Barrier(MPI_COMM_WORLD);
    }
    /* strided: every other int of 1000, by vector types on both sides */
    MPI_Datatype vec;
    CHECK_MPI(MPI_Type_vector(1000, 1, 2, MPI_INT, &vec));
    CHECK_MPI(MPI_Type_commit(&vec));
    int* isrc = (int*)src;
    for (int i = 0; i < 2000; ++i) isrc[i] = rank * 100000 + i;
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, MPI_MODE_NOCHECK, win));
    CHECK_MPI(MPI_Put(isrc, 1, vec, right, big + 65536, 1, vec, win));
    CHECK_MPI(MPI_Win_flush_local(right, win));
    isrc[0] = -1;  /* the origin buffer is ours again */
    CHECK_MPI(MPI_Win_unlock(right, win));
    /* accumulate: everybody adds rank+1 to 100 doubles at every rank */
    double add[100];
    for (int i = 0; i < 100; ++i) add[i] = rank + 1;
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_MPI(MPI_Win_lock_all(0, win));
    for (int t = 0; t < size; ++t)
        CHECK_MPI(MPI_Accumulate(add, 100, MPI_DOUBLE, t, big, 100, MPI_DOUBLE, MPI_SUM, win));
    CHECK_MPI(MPI_Win_flush_all(win));
    CHECK_MPI(MPI_Win_unlock_all(win));
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win));
    const int* got = (const int*)(mem + big + 65536);
    for (int i = 0; i < 2000; ++i) {
        const int want = i % 2 ? 0 : left * 100000 + i;
        CHECK(got[i] == want, "strided put [%d] = %d, want %d", i, got[i], want);
    }
    const double* acc = (const double*)(mem + big);
    for (int i = 0; i < 100; ++i)
        CHECK(acc[i] == size * (size + 1) / 2.0, "accumulate [%d] = %g", i, acc[i]);
    CHECK_MPI(MPI_Win_unlock(rank, win));
    /* compare-and-swap election on rank 0's word: exactly one winner */
    MPI_Barrier(MPI_COMM_WORLD);
    long* word = (long*)(mem + big + 1024);
    if (rank == 0) {
        CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
        *word = -1;
        CHECK_MPI(MPI_Win_unlock(0, win));
    }
    MPI_Barrier(MPI_COMM_WORLD);
    long me = rank, minus = -1, old = 0;
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
    CHECK_MPI(MPI_Compare_and_swap(&me, &minus, &old, MPI_LONG, 0, (big + 1024) / 1, win));
    CHECK_MPI(MPI_Win_unlock(0, win));
    int won = old == -1, winners = 0;
    MPI_Allreduce(&won, &winners, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    CHECK(winners == 1, "%d ranks won the election", winners);
    MPI_Type_free(&vec);
    free(src);
    free(back);
    MPI_Barrier(MPI_COMM_WORLD);
    free_win(flavor, &win, mem);
}

/* Windows of one operation and of many, alternating, under lock_all, to
 * the right neighbour's slot: a lone small put or get may go by the
 * netmod's native RMA, the ones among many by batch, accumulates always by
 * batch; each flush must leave every earlier one applied, whichever way it
 * went. */
static void lone_and_batched(int flavor) {
    enum { ROUNDS = 60, SLOTS = 16 };
    long* mem;
    MPI_Win win = make_win(flavor, SLOTS * sizeof(long), sizeof(long), (void**)&mem);
    for (int i = 0; i < SLOTS; ++i) mem[i] = 0;
    const int right = (rank + 1) % size;
    long vals[SLOTS], back[SLOTS];
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_MPI(MPI_Win_lock_all(0, win));
    for (int r = 0; r < ROUNDS; ++r) {
        const long v = 1000L * r + rank;
        CHECK_MPI(MPI_Put(&v, 1, MPI_LONG, right, 0, 1, MPI_LONG, win)); /* alone */
        CHECK_MPI(MPI_Win_flush(right, win));
        long got = -1;
        CHECK_MPI(MPI_Get(&got, 1, MPI_LONG, right, 0, 1, MPI_LONG, win)); /* alone */
        CHECK_MPI(MPI_Win_flush(right, win));
        CHECK(got == v, "round %d: lone get after lone put read %ld, want %ld", r, got, v);
        const long one = 1;
        CHECK_MPI(MPI_Accumulate(&one, 1, MPI_LONG, right, 0, 1, MPI_LONG, MPI_SUM, win));
        for (int i = 1; i < SLOTS; ++i) { /* many in one window */
            vals[i] = v * 100 + i;
            CHECK_MPI(MPI_Put(&vals[i], 1, MPI_LONG, right, i, 1, MPI_LONG, win));
        }
        CHECK_MPI(MPI_Win_flush(right, win));
        CHECK_MPI(MPI_Get(back, SLOTS, MPI_LONG, right, 0, SLOTS, MPI_LONG, win)); /* alone */
        CHECK_MPI(MPI_Win_flush_local(right, win));
        CHECK(back[0] == v + 1, "round %d: slot 0 = %ld after the accumulate, want %ld", r, back[0], v + 1);
        for (int i = 1; i < SLOTS; ++i)
            CHECK(back[i] == vals[i], "round %d: slot %d = %ld, want %ld", r, i, back[i], vals[i]);
    }
    CHECK_MPI(MPI_Win_unlock_all(win));
    MPI_Barrier(MPI_COMM_WORLD);
    free_win(flavor, &win, mem);
}

/* Rank 0 computes without MPI calls; the others lock, put, unlock. */
static void busy(int flavor) {
    long* mem;
    MPI_Win win = make_win(flavor, 64 * sizeof(long), sizeof(long), (void**)&mem);
    for (int i = 0; i < 64; ++i) mem[i] = 0;
    const char* shm = getenv("CH4LITE_SHM");
    const char* rshm = getenv("CH4LITE_RMA_SHM");
    const int promised = !(shm && strcmp(shm, "0") == 0) && !(rshm && strcmp(rshm, "0") == 0) &&
                         !getenv("CH4LITE_TEST_PPN");
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        volatile long* v = mem;
        const double t0 = now();
        int arrived = 0;
        while (now() - t0 < (promised ? 20.0 : 1.0)) {  /* no MPI call in here */
            arrived = 0;
            for (int r = 1; r < size; ++r) arrived += v[r] == 1000 + r;
            if (promised && arrived == size - 1) break;
        }
        if (promised)
            CHECK(arrived == size - 1, "only %d of %d puts arrived while the target computed", arrived,
                  size - 1);
    } else {
        const long val = 1000 + rank;
        CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
        CHECK_MPI(MPI_Put(&val, 1, MPI_LONG, 0, rank, 1, MPI_LONG, win));
        CHECK_MPI(MPI_Win_unlock(0, win));
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
        for (int r = 1; r < size; ++r) CHECK(mem[r] == 1000 + r, "put of rank %d missing", r);
        CHECK_MPI(MPI_Win_unlock(0, win));
    }
    MPI_Barrier(MPI_COMM_WORLD);
    free_win(flavor, &win, mem);
}

int main(int argc, char** argv) {
    mt_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int only_busy = argc > 1 && strcmp(argv[1], "busy") == 0;
    for (int flavor = 0; flavor < 2; ++flavor) {
        if (only_busy) {
            busy(flavor);
            continue;
        }
        counters(flavor);
        exclusive(flavor);
        transfers(flavor);
        lone_and_batched(flavor);
    }
    if (rank == 0) printf("rma_passive: ok\n");
    MPI_Finalize();
    return 0;
}
