/* SPDX-License-Identifier: MIT */
/* Win_create memory moved onto a memfd so that node peers access it
 * directly (docs/rma.md, "Remapped Win_create memory"). Run with
 * CH4LITE_RMA_REMAP_AFTER=0: a window's memory moves in its first
 * synchronizing fence. The user must see no difference: same addresses,
 * same contents, data beside the window on its first and last page
 * untouched, and private memory again after Win_free. Cases:
 *   1. a window inside a malloc'ed block, not page aligned, with guard bytes
 *      on its first and last page: puts / gets / accumulates of every peer
 *      at both ends and across page boundaries, local stores seen by peers;
 *   2. a window over a whole mmap'ed malloc chunk, grown by realloc after
 *      Win_free (a shared mapping grown past its memfd would fault);
 *   3. a second thread alive during the first fence: the memory stays as
 *      it is (the copy could lose the thread's stores), also later;
 *   4. a second thread alive during Win_free: the window's whole pages go
 *      back to private memory, its first and last page stay;
 *   5. memory that is already shared (MAP_SHARED) is not remapped; two
 *      windows over the same pages: neither is remapped (a node peer's
 *      access through the other could land in the old pages during the
 *      copy), both stay usable after the first is freed;
 *   6. pages in and out of use: pages the owner never touched read zero
 *      (they are not copied at Win_create), pages only a peer wrote keep
 *      its data after Win_free (the way back copies every page with data);
 *   7. a large receive into the window's memory in progress across the
 *      fence that remaps it and across Win_free (a shm sender may write
 *      half of it into our memory: no remap meanwhile).
 * With the argument "expect" (shm on, one node) every case also checks in
 * /proc/self/maps that the memory was (or was not) remapped; without it
 * only the data. With "expect_none" (a job over several nodes, native RMA
 * on) no memory may be remapped: off-node peers may put into it through
 * the netmod's registration.
 * With "credit <epochs> <s|p>" (2 ranks, default CH4LITE_RMA_REMAP_AFTER)
 * instead: rank 0 puts 1 MiB into rank 1's 1 MiB window in each of
 * <epochs> epochs; rank 1's memory must then be on the memfd (s) or not
 * (p): the cost model asks for the remap after about 25 MiB.
 * With "passive [expect]" (CH4LITE_RMA_REMAP_AFTER=0, CH4LITE_RMA_REMAP_MAX
 * between 1 and 2 MiB) instead: windows used only in passive-target and
 * PSCW epochs, never fenced: an origin asks in its first flush / unlock /
 * complete, the owner remaps when the request arrives, while the others'
 * puts go on (every rank puts into every other's window in a lock_all
 * loop: nothing may be lost across the remap); with "expect" the memory is
 * on the memfd soon after (a small and a 1 MiB window) or stays private
 * (a 2 MiB window, above CH4LITE_RMA_REMAP_MAX; a window beside a second
 * thread), and private again after Win_free. Then lock_all (put, get,
 * fetch-and-op counter), exclusive-lock read-modify-write and PSCW epochs
 * check the data. With "passive_credit" (2 ranks, default
 * CH4LITE_RMA_REMAP_AFTER): 150 flushed 8 B puts into a one-page window
 * do not pay for the remap, 300 more do. */
#include <pthread.h>
#include <stdint.h>
#include <sys/mman.h>

#include "mpitest.h"

enum { PAGE = 4096 };

static int rank, size, expect;

/* 's': the page holding `addr` is one of our memfd windows; 'p': private;
 * '?': neither (or not found). */
static char backing(const void* addr) {
    FILE* f = fopen("/proc/self/maps", "r");
    CHECK(f, "open /proc/self/maps");
    char line[512];
    char r = '?';
    const uintptr_t a = (uintptr_t)addr;
    while (fgets(line, sizeof line, f)) {
        unsigned long lo, hi;
        char perms[8];
        if (sscanf(line, "%lx-%lx %7s", &lo, &hi, perms) != 3 || a < lo || a >= hi) continue;
        if (perms[3] == 'p') r = 'p';
        else if (strstr(line, "memfd:ch4lite-win")) r = 's';
        break;
    }
    fclose(f);
    return r;
}

static void expect_backing(const void* addr, char want, const char* what) {
    if (!expect) return;
    if (expect == 2 && want == 's') want = 'p';
    const char got = backing(addr);
    CHECK(got == want, "%s: page of %p is %s, expected %s", what, addr,
          got == 's' ? "on the window memfd" : got == 'p' ? "private" : "something else",
          want == 's' ? "on the window memfd" : "private");
}

static unsigned char val(int owner, int epoch, size_t i) {
    return (unsigned char)(owner * 37 + epoch * 11 + (i * 2654435761u >> 11));
}

/* Every rank writes its right neighbour's window at both ends and across
 * page boundaries, reads its left neighbour's, and adds into slot 0 of
 * rank 0's window; the owner checks its window and the guards. */
static void exercise(unsigned char* mem, size_t n, const unsigned char* guard_lo, size_t glo,
                     const unsigned char* guard_hi, size_t ghi, MPI_Win win, const char* what) {
    const int right = (rank + 1) % size, left = (rank + size - 1) % size;
    unsigned char* src = malloc(n);
    unsigned char* got = malloc(n);
    CHECK(src && got, "malloc");
    for (int epoch = 0; epoch < 3; ++epoch) {
        /* local stores, seen by the left neighbour's gets after the fence */
        for (size_t i = 0; i < n; ++i) mem[i] = val(rank, epoch, i);
        CHECK_MPI(MPI_Win_fence(0, win));
        memset(got, 0, n);
        CHECK_MPI(MPI_Get(got, (int)n, MPI_BYTE, left, 0, (int)n, MPI_BYTE, win));
        CHECK_MPI(MPI_Win_fence(0, win));
        for (size_t i = 0; i < n; ++i)
            CHECK(got[i] == val(left, epoch, i), "%s epoch %d: got byte %zu of rank %d: %d, not %d", what,
                  epoch, i, left, got[i], val(left, epoch, i));
        /* puts: the first 9 bytes, 100 bytes across each page boundary of
         * the window, the last 7 bytes, in one epoch */
        for (size_t i = 0; i < n; ++i) src[i] = val(rank + 100, epoch, i);
        CHECK_MPI(MPI_Put(src, 9, MPI_BYTE, right, 0, 9, MPI_BYTE, win));
        const size_t first_boundary = PAGE - ((uintptr_t)mem % PAGE);
        for (size_t b = first_boundary; b + 50 <= n; b += PAGE)
            if (b >= 59 && b + 50 <= n - 7)
                CHECK_MPI(MPI_Put(src + b - 50, 100, MPI_BYTE, right, (MPI_Aint)(b - 50), 100, MPI_BYTE, win));
        CHECK_MPI(MPI_Put(src + n - 7, 7, MPI_BYTE, right, (MPI_Aint)(n - 7), 7, MPI_BYTE, win));
        CHECK_MPI(MPI_Win_fence(0, win));
        const int from = left;
        for (size_t i = 0; i < n; ++i) {
            int put = i < 9 || i >= n - 7;
            for (size_t b = first_boundary; !put && b + 50 <= n; b += PAGE)
                put = b >= 59 && b + 50 <= n - 7 && i >= b - 50 && i < b + 50;
            const unsigned char want = put ? val(from + 100, epoch, i) : val(rank, epoch, i);
            CHECK(mem[i] == want, "%s epoch %d: byte %zu is %d, not %d (%s)", what, epoch, i, mem[i], want,
                  put ? "put by the left neighbour" : "my own store");
        }
        /* accumulates of every rank into the first and last int of rank 0 */
        CHECK_MPI(MPI_Win_fence(0, win));
        if (rank == 0) {
            memset(mem, 0, sizeof(int));
            memset(mem + n - 2 * sizeof(int), 0, sizeof(int));
        }
        CHECK_MPI(MPI_Win_fence(0, win));
        const int one = rank + 1;
        CHECK_MPI(MPI_Accumulate(&one, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_SUM, win));
        CHECK_MPI(MPI_Accumulate(&one, 1, MPI_INT, 0, (MPI_Aint)(n - 2 * sizeof(int)), 1, MPI_INT, MPI_SUM, win));
        CHECK_MPI(MPI_Win_fence(0, win));
        if (rank == 0) {
            int a, z;
            memcpy(&a, mem, sizeof a);
            memcpy(&z, mem + n - 2 * sizeof(int), sizeof z);
            CHECK(a == size * (size + 1) / 2 && z == a, "%s: accumulated %d and %d, not %d", what, a, z,
                  size * (size + 1) / 2);
        }
        for (size_t i = 0; i < glo; ++i) CHECK(guard_lo[i] == (unsigned char)(0xa5 ^ i), "%s: guard byte -%zu", what, glo - i);
        for (size_t i = 0; i < ghi; ++i) CHECK(guard_hi[i] == (unsigned char)(0x5a ^ i), "%s: guard byte +%zu", what, i);
    }
    free(src);
    free(got);
}

static void fill_guards(unsigned char* lo, size_t glo, unsigned char* hi, size_t ghi) {
    for (size_t i = 0; i < glo; ++i) lo[i] = (unsigned char)(0xa5 ^ i);
    for (size_t i = 0; i < ghi; ++i) hi[i] = (unsigned char)(0x5a ^ i);
}

/* 1: inside a malloc'ed block, 24 bytes into a page, 2 pages and 50 bytes */
static void unaligned_in_block(void) {
    unsigned char* blk = malloc(5 * PAGE);
    CHECK(blk, "malloc");
    unsigned char* page0 = (unsigned char*)(((uintptr_t)blk + PAGE - 1) & ~(uintptr_t)(PAGE - 1));
    unsigned char* mem = page0 + 24;
    const size_t n = 2 * PAGE + 50;
    unsigned char* hi = mem + n;
    const size_t ghi = (size_t)(page0 + 3 * PAGE - hi);
    fill_guards(page0, 24, hi, ghi);
    for (size_t i = 0; i < n; ++i) mem[i] = val(rank, 9, i);
    MPI_Win win;
    CHECK_MPI(MPI_Win_create(mem, (MPI_Aint)n, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    expect_backing(mem, 'p', "unaligned window after Win_create");
    CHECK_MPI(MPI_Win_fence(0, win));
    expect_backing(mem, 's', "unaligned window after the first fence");
    expect_backing(hi - 1, 's', "unaligned window's last page after the first fence");
    for (size_t i = 0; i < n; ++i) CHECK(mem[i] == val(rank, 9, i), "contents changed by the remap at %zu", i);
    exercise(mem, n, page0, 24, hi, ghi, win, "unaligned");
    CHECK_MPI(MPI_Win_free(&win));
    expect_backing(mem, 'p', "unaligned window after Win_free");
    expect_backing(hi - 1, 'p', "unaligned window's last page after Win_free");
    for (size_t i = 0; i < 24; ++i) CHECK(page0[i] == (unsigned char)(0xa5 ^ i), "guard byte after Win_free");
    free(blk);
}

/* 2: a whole 1 MiB malloc chunk (mmap'ed by malloc), realloc'ed after Win_free */
static void chunk_then_realloc(void) {
    const size_t n = 1 << 20;
    unsigned char* mem = malloc(n);
    CHECK(mem, "malloc");
    MPI_Win win;
    CHECK_MPI(MPI_Win_create(mem, (MPI_Aint)n, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    exercise(mem, n, NULL, 0, NULL, 0, win, "chunk");
    expect_backing(mem, 's', "1 MiB chunk after fences");
    CHECK_MPI(MPI_Win_free(&win));
    expect_backing(mem, 'p', "1 MiB chunk after Win_free");
    const unsigned char last = mem[n - 1];
    mem = realloc(mem, 8 * n);
    CHECK(mem, "realloc");
    CHECK(mem[n - 1] == last, "realloc lost the contents");
    memset(mem, 1, 8 * n);
    free(mem);
}

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int release;

static void* idle_thread(void* arg) {
    (void)arg;
    pthread_mutex_lock(&mu);
    while (!release) pthread_cond_wait(&cv, &mu);
    pthread_mutex_unlock(&mu);
    return NULL;
}

static pthread_t start_thread(void) {
    pthread_t t;
    release = 0;
    CHECK(pthread_create(&t, NULL, idle_thread, NULL) == 0, "pthread_create");
    return t;
}

static void stop_thread(pthread_t t) {
    pthread_mutex_lock(&mu);
    release = 1;
    pthread_cond_broadcast(&cv);
    pthread_mutex_unlock(&mu);
    pthread_join(t, NULL);
}

/* n bytes 100 bytes into a page of a malloc'ed block (*blk, to free). */
static unsigned char* into_page(size_t n, unsigned char** blk) {
    *blk = malloc(n + 2 * PAGE);
    CHECK(*blk, "malloc");
    return (unsigned char*)(((uintptr_t)*blk + PAGE - 1) & ~(uintptr_t)(PAGE - 1)) + 100;
}

/* 3 and 4: another thread during the first fence, or during Win_free */
static void with_thread(int during_create) {
    const size_t n = 4 * PAGE + 100;
    unsigned char* blk;
    unsigned char* mem = into_page(n, &blk);
    pthread_t t = 0;
    if (during_create) t = start_thread();
    MPI_Win win;
    CHECK_MPI(MPI_Win_create(mem, (MPI_Aint)n, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    CHECK_MPI(MPI_Win_fence(0, win));
    expect_backing(mem + PAGE, during_create ? 'p' : 's', during_create ? "window fenced beside a thread"
                                                                        : "window fenced alone");
    if (!during_create) t = start_thread();
    exercise(mem, n, NULL, 0, NULL, 0, win, during_create ? "thread at the first fence" : "thread at free");
    expect_backing(mem + PAGE, during_create ? 'p' : 's', "window after fences");
    CHECK_MPI(MPI_Win_free(&win));
    expect_backing(mem + PAGE, 'p', "whole page of a window freed beside a thread");
    if (!during_create) {
        expect_backing(mem, 's', "first page of a window freed beside a thread");
        expect_backing(mem + n, 's', "last page of a window freed beside a thread");
    }
    stop_thread(t);
    free(blk);
}

/* 5: shared memory stays; two windows over the same memory */
static void shared_and_twice(void) {
    const size_t n = 3 * PAGE;
    unsigned char* shared = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    CHECK(shared != MAP_FAILED, "mmap");
    MPI_Win win;
    CHECK_MPI(MPI_Win_create(shared, (MPI_Aint)n, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    expect_backing(shared, '?', "MAP_SHARED memory");
    exercise(shared, n, NULL, 0, NULL, 0, win, "shared mapping");
    CHECK_MPI(MPI_Win_free(&win));
    munmap(shared, n);

    unsigned char* mem = NULL;
    CHECK(posix_memalign((void**)&mem, PAGE, n) == 0, "posix_memalign");
    MPI_Win w1, w2;
    CHECK_MPI(MPI_Win_create(mem, (MPI_Aint)n, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &w1));
    CHECK_MPI(MPI_Win_create(mem, (MPI_Aint)n, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &w2));
    exercise(mem, n, NULL, 0, NULL, 0, w1, "first of two windows");
    expect_backing(mem, 'p', "memory of two windows");
    exercise(mem, n, NULL, 0, NULL, 0, w2, "second of two windows");
    CHECK_MPI(MPI_Win_free(&w1));
    expect_backing(mem, 'p', "memory of two windows, the first freed");
    exercise(mem, n, NULL, 0, NULL, 0, w2, "second window after the first was freed");
    CHECK_MPI(MPI_Win_free(&w2));
    free(mem);
}

/* 6: 32 pages of fresh anonymous memory; the owner writes the odd ones
 * before Win_create, its left neighbour puts into the even ones */
static void sparse(void) {
    enum { NP = 32 };
    const size_t n = NP * PAGE;
    unsigned char* mem = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(mem != MAP_FAILED, "mmap");
    for (size_t p = 1; p < NP; p += 2) memset(mem + p * PAGE, 0x40 + (int)p, PAGE);
    MPI_Win win;
    CHECK_MPI(MPI_Win_create(mem, (MPI_Aint)n, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    unsigned char* src = malloc(PAGE);
    CHECK(src, "malloc");
    const int right = (rank + 1) % size, left = (rank + size - 1) % size;
    memset(src, 0x80 + rank, PAGE);
    CHECK_MPI(MPI_Win_fence(0, win));
    expect_backing(mem, 's', "sparse window after the first fence");
    for (size_t p = 0; p < NP; p += 2)
        CHECK_MPI(MPI_Put(src, PAGE, MPI_BYTE, right, (MPI_Aint)(p * PAGE), PAGE, MPI_BYTE, win));
    CHECK_MPI(MPI_Win_fence(0, win));
    CHECK_MPI(MPI_Win_free(&win));
    expect_backing(mem, 'p', "sparse window after Win_free");
    for (size_t i = 0; i < n; ++i) {
        const size_t p = i / PAGE;
        const unsigned char want = (unsigned char)(p % 2 ? 0x40 + (int)p : 0x80 + left);
        CHECK(mem[i] == want, "sparse: byte %zu (page %zu) is %d, not %d", i, p, mem[i], want);
    }
    /* untouched pages of a window read zero */
    unsigned char* fresh = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(fresh != MAP_FAILED, "mmap");
    fresh[5 * PAGE] = 7;
    CHECK_MPI(MPI_Win_create(fresh, (MPI_Aint)n, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    CHECK_MPI(MPI_Win_fence(0, win));
    expect_backing(fresh, 's', "fresh window after the first fence");
    for (size_t i = 0; i < n; ++i) CHECK(fresh[i] == (i == 5 * PAGE ? 7 : 0), "fresh: byte %zu is %d", i, fresh[i]);
    CHECK_MPI(MPI_Win_fence(0, win));
    CHECK_MPI(MPI_Win_free(&win));
    for (size_t i = 0; i < n; ++i) CHECK(fresh[i] == (i == 5 * PAGE ? 7 : 0), "fresh after free: byte %zu", i);
    munmap(fresh, n);
    munmap(mem, n);
    free(src);
}

/* "credit": rank 0 puts 1 MiB into rank 1's window `epochs` times */
static void credit(int epochs, char want) {
    CHECK(size == 2, "credit: run on 2 ranks, not %d", size);
    const size_t n = 1 << 20;
    unsigned char* mem = malloc(n);
    unsigned char* src = malloc(n);
    CHECK(mem && src, "malloc");
    memset(mem, 0, n);
    MPI_Win win;
    CHECK_MPI(MPI_Win_create(mem, (MPI_Aint)n, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    CHECK_MPI(MPI_Win_fence(0, win));
    for (int e = 0; e < epochs; ++e) {
        if (rank == 0) {
            for (size_t i = 0; i < n; i += 4096) src[i] = (unsigned char)(e + i / 4096);
            CHECK_MPI(MPI_Put(src, (int)n, MPI_BYTE, 1, 0, (int)n, MPI_BYTE, win));
        }
        CHECK_MPI(MPI_Win_fence(0, win));
        if (rank == 1)
            for (size_t i = 0; i < n; i += 4096)
                CHECK(mem[i] == (unsigned char)(e + i / 4096), "credit epoch %d: byte %zu", e, i);
        CHECK_MPI(MPI_Win_fence(0, win));  /* the reads above before the next put */
    }
    if (rank == 1) {
        expect = 1;
        expect_backing(mem, want, "after the epochs of 1 MiB puts");
    }
    CHECK_MPI(MPI_Win_free(&win));
    free(mem);
    free(src);
}

/* 7: 512 KiB from rank 0 into rank 1's window memory, pending across
 * fences (one way: a receiver splits the copy with its sender unless the
 * two exchange messages; 2 ranks only: more oversubscribe, which turns
 * the split off) */
static void receive_across(void) {
    const size_t n = 1 << 20, m = 512 << 10;
    unsigned char* src = malloc(m);
    CHECK(src, "malloc");
    for (size_t i = 0; i < m; ++i) src[i] = val(0, 77, i);
    for (int round = 0; round < 4; ++round) {
        unsigned char* mem = malloc(n);
        CHECK(mem, "malloc");
        memset(mem, 0, n);
        MPI_Win win;
        CHECK_MPI(MPI_Win_create(mem, (MPI_Aint)n, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
        MPI_Request rq = MPI_REQUEST_NULL;
        unsigned char* into = mem + (round & 1 ? n - m : 4096);
        if (rank == 1) CHECK_MPI(MPI_Irecv(into, (int)m, MPI_BYTE, 0, round, MPI_COMM_WORLD, &rq));
        CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
        if (rank == 0) CHECK_MPI(MPI_Isend(src, (int)m, MPI_BYTE, 1, round, MPI_COMM_WORLD, &rq));
        CHECK_MPI(MPI_Win_fence(0, win));
        if (round >= 2) CHECK_MPI(MPI_Win_free(&win));
        CHECK_MPI(MPI_Wait(&rq, MPI_STATUS_IGNORE));
        if (round < 2) CHECK_MPI(MPI_Win_fence(0, win));
        if (rank == 1)
            for (size_t i = 0; i < m; ++i)
                CHECK(into[i] == val(0, 77, i), "receive across the remap, round %d: byte %zu is %d, not %d", round,
                      i, into[i], val(0, 77, i));
        if (round < 2) CHECK_MPI(MPI_Win_free(&win));
        free(mem);
    }
    free(src);
}

/* "create": remapped at Win_create, used without a fence */
static void passive_epochs(unsigned char* mem, size_t n, MPI_Win win, const char* what) {
    const int right = (rank + 1) % size, left = (rank + size - 1) % size;
    MPI_Group world, peers;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    for (size_t i = 0; i < n; ++i) mem[i] = val(rank, 0, i);
    MPI_Barrier(MPI_COMM_WORLD);
    /* lock_all: a put to the right at both ends, a get from the left, and
     * a fetch-and-op counter at offset 8 of rank 0 */
    unsigned char src[64], got[64];
    for (int i = 0; i < 64; ++i) src[i] = val(rank + 100, 1, (size_t)i);
    CHECK_MPI(MPI_Win_lock_all(0, win));
    CHECK_MPI(MPI_Get(got, 64, MPI_BYTE, left, 16, 64, MPI_BYTE, win));
    CHECK_MPI(MPI_Win_flush(left, win));
    for (int i = 0; i < 64; ++i)
        CHECK(got[i] == val(left, 0, 16 + (size_t)i), "%s: get byte %d from rank %d", what, i, left);
    MPI_Barrier(MPI_COMM_WORLD); /* every get done before any put */
    CHECK_MPI(MPI_Put(src, 64, MPI_BYTE, right, (MPI_Aint)(n - 64), 64, MPI_BYTE, win));
    CHECK_MPI(MPI_Win_unlock_all(win));
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < 64; ++i)
        CHECK(mem[n - 64 + (size_t)i] == val(left + 100, 1, (size_t)i), "%s: byte %zu put by rank %d", what,
              n - 64 + (size_t)i, left);
    if (rank == 0) memset(mem + 8, 0, 8);
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_MPI(MPI_Win_lock_all(0, win));
    const int64_t one = 1;
    int64_t old;
    for (int k = 0; k < 100; ++k) {
        CHECK_MPI(MPI_Fetch_and_op(&one, &old, MPI_INT64_T, 0, 8, MPI_SUM, win));
        CHECK_MPI(MPI_Win_flush(0, win));
    }
    CHECK_MPI(MPI_Win_unlock_all(win));
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        int64_t total;
        memcpy(&total, mem + 8, 8);
        CHECK(total == 100 * size, "%s: counter %lld, not %d", what, (long long)total, 100 * size);
    }
    /* exclusive lock: read, add rank + 1 to 4 ints, write back, at rank 0 */
    if (rank == 0) memset(mem + 32, 0, 16);
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
    int v[4];
    CHECK_MPI(MPI_Get(v, 4, MPI_INT, 0, 32, 4, MPI_INT, win));
    CHECK_MPI(MPI_Win_flush(0, win));
    for (int i = 0; i < 4; ++i) v[i] += rank + 1;
    CHECK_MPI(MPI_Put(v, 4, MPI_INT, 0, 32, 4, MPI_INT, win));
    CHECK_MPI(MPI_Win_unlock(0, win));
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        memcpy(v, mem + 32, 16);
        for (int i = 0; i < 4; ++i)
            CHECK(v[i] == size * (size + 1) / 2, "%s: exclusive sum %d, not %d", what, v[i], size * (size + 1) / 2);
    }
    /* PSCW ring: each rank exposes to its left, accesses its right */
    const int l1[1] = {left}, r1[1] = {right};
    MPI_Group gl, gr;
    MPI_Group_incl(world, 1, l1, &gl);
    MPI_Group_incl(world, 1, r1, &gr);
    CHECK_MPI(MPI_Win_post(gl, 0, win));
    CHECK_MPI(MPI_Win_start(gr, 0, win));
    CHECK_MPI(MPI_Put(src, 9, MPI_BYTE, right, 0, 9, MPI_BYTE, win));
    CHECK_MPI(MPI_Win_complete(win));
    CHECK_MPI(MPI_Win_wait(win));
    for (int i = 0; i < 9; ++i)
        CHECK(mem[i] == val(left + 100, 1, (size_t)i), "%s: PSCW byte %d put by rank %d: %d, not %d", what, i, left, mem[i], val(left + 100, 1, (size_t)i));
    MPI_Barrier(MPI_COMM_WORLD); /* checked before anybody writes again */
    MPI_Group_free(&gl);
    MPI_Group_free(&gr);
    peers = world;
    MPI_Group_free(&peers);
}

/* The owner's memory reaches `want` ('s' or 'p') within 2 s of polling:
 * the request to remap arrives as a message. */
static void await_backing(const void* addr, char want, const char* what) {
    if (!expect) return;
    const double t0 = MPI_Wtime();
    int flag;
    while (backing(addr) != want && MPI_Wtime() - t0 < 2.0)
        MPI_Iprobe(MPI_ANY_SOURCE, 999999, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
    expect_backing(addr, want, what);
}

/* Every rank puts 1 KiB blocks into its slot of every other rank's window,
 * flushing each, 200 times, while the owners remap; then checks its own. */
static void put_storm(unsigned char* mem, size_t n, MPI_Win win, const char* what) {
    enum { BLK = 1024, ROUNDS = 200 };
    if (n < (size_t)size * BLK) return;
    unsigned char src[BLK];
    CHECK_MPI(MPI_Win_lock_all(0, win));
    for (int r = 0; r < ROUNDS; ++r) {
        for (int i = 0; i < BLK; ++i) src[i] = val(rank, r, (size_t)i);
        for (int t = 0; t < size; ++t) {
            if (t == rank) continue;
            CHECK_MPI(MPI_Put(src, BLK, MPI_BYTE, t, (MPI_Aint)rank * BLK, BLK, MPI_BYTE, win));
            CHECK_MPI(MPI_Win_flush(t, win));
        }
    }
    CHECK_MPI(MPI_Win_unlock_all(win));
    MPI_Barrier(MPI_COMM_WORLD);
    for (int o = 0; o < size; ++o) {
        if (o == rank) continue;
        for (int i = 0; i < BLK; ++i)
            CHECK(mem[(size_t)o * BLK + (size_t)i] == val(o, ROUNDS - 1, (size_t)i),
                  "%s: byte %d of rank %d's last put lost", what, i, o);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

static void passive_remap(void) {
    const size_t sizes[3] = {4 * PAGE + 100, (size_t)1 << 20, (size_t)2 << 20};
    for (int k = 0; k < 4; ++k) {
        const int beside_thread = k == 3;
        const size_t n = sizes[k == 3 ? 0 : k];
        const char* what = k == 0 ? "small window" : k == 1 ? "1 MiB window" : k == 2 ? "2 MiB window"
                                                                              : "window beside a thread";
        unsigned char* blk;
        unsigned char* mem = into_page(n, &blk);
        pthread_t t = 0;
        if (beside_thread) t = start_thread();
        MPI_Win win;
        CHECK_MPI(MPI_Win_create(mem, (MPI_Aint)n, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
        expect_backing(mem + PAGE, 'p', "window after Win_create");
        /* No origin's first flush (which asks for the remap) before every
         * owner looked: a rank still finishing MPI_Win_create serves such
         * a request in its progress and may remap before it returns. */
        MPI_Barrier(MPI_COMM_WORLD);
        put_storm(mem, n, win, what);
        const char want = k == 2 || beside_thread ? 'p' : 's';
        await_backing(mem + PAGE, want, what);
        MPI_Barrier(MPI_COMM_WORLD);
        passive_epochs(mem, n, win, what);
        put_storm(mem, n, win, what);
        expect_backing(mem + PAGE, want, what);
        CHECK_MPI(MPI_Win_free(&win));
        expect_backing(mem + PAGE, 'p', "after Win_free");
        if (beside_thread) stop_thread(t);
        free(blk);
    }
}

/* The cost model outside fences: 150 flushed 8 B puts into a one-page
 * window are not worth a remap, 450 are (about 200 by
 * CH4LITE_RMA_REMAP_AFTER=100: 3 MiB of credit, 16 KiB per system call). */
static void passive_credit(void) {
    unsigned char* mem = aligned_alloc(PAGE, PAGE);
    CHECK(mem, "aligned_alloc");
    memset(mem, 0, PAGE);
    MPI_Win win;
    CHECK_MPI(MPI_Win_create(mem, PAGE, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    const int64_t v = 7;
    for (int phase = 0; phase < 2; ++phase) {
        if (rank == 0) {
            CHECK_MPI(MPI_Win_lock_all(0, win));
            for (int i = 0; i < (phase ? 300 : 150); ++i) {
                CHECK_MPI(MPI_Put(&v, 1, MPI_INT64_T, 1, 8 * (i % 64), 1, MPI_INT64_T, win));
                CHECK_MPI(MPI_Win_flush(1, win));
            }
            CHECK_MPI(MPI_Win_unlock_all(win));
        }
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 1) {
            expect = 1;
            if (phase) await_backing(mem, 's', "after 450 flushed 8 B puts");
            else expect_backing(mem, 'p', "after 150 flushed 8 B puts");
        }
        MPI_Barrier(MPI_COMM_WORLD);
    }
    CHECK_MPI(MPI_Win_free(&win));
    free(mem);
}

int main(int argc, char** argv) {
    mt_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc > 3 && strcmp(argv[1], "credit") == 0) {
        credit(atoi(argv[2]), argv[3][0]);
        if (rank == 0) printf("rma_remap: OK\n");
        MPI_Finalize();
        return 0;
    }
    if (argc > 1 && strcmp(argv[1], "passive_credit") == 0) {
        if (size == 2) passive_credit();
        if (rank == 0) printf("rma_remap: OK\n");
        MPI_Finalize();
        return 0;
    }
    if (argc > 1 && strcmp(argv[1], "passive") == 0) {
        expect = argc > 2 && strcmp(argv[2], "expect") == 0;
        passive_remap();
        if (rank == 0) printf("rma_remap: OK\n");
        MPI_Finalize();
        return 0;
    }
    expect = argc > 1 && strcmp(argv[1], "expect") == 0;
    if (argc > 1 && strcmp(argv[1], "expect_none") == 0) expect = 2;
    unaligned_in_block();
    chunk_then_realloc();
    with_thread(1);
    with_thread(0);
    shared_and_twice();
    sparse();
    receive_across();
    if (rank == 0) printf("rma_remap: OK\n");
    MPI_Finalize();
    return 0;
}
