/* SPDX-License-Identifier: MIT */
/*
 * Reference, not MPI: moving 1 MiB between two processes on the node by a
 * pipelined copy through a shared ring (the sender copies chunk k+1 in
 * while the receiver copies chunk k out: two copies, on two cores) against
 * the kernel's single copy (process_vm_readv by the receiver), both in one
 * run, next to the cache-line handoff of the same two processes (the vCPU
 * placement, bench/common/cacheline.h).
 *
 * It measures what decides how shm moves large data (docs/shm-protocols.md, "Cached
 * or streamed stores"): the ring copies depend on the placement and on the
 * ring's size, the kernel's copy much less. Rows (µs per MiB, the fastest
 * of 5 repetitions; each repetition alternates every column once):
 *   oneway   rank 0 sends 1 MiB, rank 1 receives
 *   both     both send 1 MiB to each other at the same time (what a
 *            symmetric exchange or a fence with puts both ways does)
 * Columns: ring_<chunk>x<slots> with cached stores (memcpy) and _nt with
 * non-temporal stores into the ring; 64Kx4 is the library's default data
 * ring (256 KiB, pipelined chunks of a quarter); cma: process_vm_readv of
 * the peer's 1 MiB; cl_ns: one cache-line round trip.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

enum { MSG = 1 << 20, REPS = 5, MAX_RING = 1 << 20 };

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void relax(void)
{
#if defined(__x86_64__)
    _mm_pause();
#endif
}

/* What both processes share: a meeting word, a handoff word, and per
 * direction a ring (head written by the sender, tail by the receiver). */
struct ring_ctl {
    _Alignas(64) atomic_long head;
    _Alignas(64) atomic_long tail;
};
struct shared {
    _Alignas(64) atomic_long meet[2];
    _Alignas(64) atomic_long turn;
    struct ring_ctl ctl[2]; /* ctl[s]: the ring rank s writes */
    _Alignas(64) pid_t pid[2];
    char *buf[2];           /* each rank's source buffer, for cma */
    _Alignas(4096) char ring[2][MAX_RING];
};

static struct shared *sh;
static int me;
static long meet_no;

static void meet(void)
{
    ++meet_no;
    atomic_store(&sh->meet[me], meet_no);
    while (atomic_load(&sh->meet[1 - me]) < meet_no) relax();
}

static void copy_in(char *dst, const char *src, size_t n, int nt)
{
#if defined(__x86_64__)
    if (nt) {
        for (size_t i = 0; i < n; i += 64) {
            const __m128i a = _mm_loadu_si128((const __m128i *)(src + i));
            const __m128i b = _mm_loadu_si128((const __m128i *)(src + i + 16));
            const __m128i c = _mm_loadu_si128((const __m128i *)(src + i + 32));
            const __m128i d = _mm_loadu_si128((const __m128i *)(src + i + 48));
            _mm_stream_si128((__m128i *)(dst + i), a);
            _mm_stream_si128((__m128i *)(dst + i + 16), b);
            _mm_stream_si128((__m128i *)(dst + i + 32), c);
            _mm_stream_si128((__m128i *)(dst + i + 48), d);
        }
        _mm_sfence();
        return;
    }
#endif
    (void)nt;
    memcpy(dst, src, n);
}

/* One transfer of MSG bytes through the rings: `send`/`recv` say which
 * directions this rank takes part in. The ring counters keep running. */
static void transfer(size_t chunk, long slots, int nt, int send, int recv, const char *src, char *dst)
{
    struct ring_ctl *out = &sh->ctl[me], *in = &sh->ctl[1 - me];
    char *ro = sh->ring[me], *ri = sh->ring[1 - me];
    const long n = MSG / (long)chunk;
    const long o0 = atomic_load(&out->head), i0 = atomic_load(&in->tail);
    long sent = send ? 0 : n, got = recv ? 0 : n;
    while (sent < n || got < n) {
        int idle = 1;
        if (sent < n && o0 + sent - atomic_load_explicit(&out->tail, memory_order_acquire) < slots) {
            const long h = o0 + sent;
            copy_in(ro + (size_t)(h % slots) * chunk, src + (size_t)sent * chunk, chunk, nt);
            atomic_store_explicit(&out->head, h + 1, memory_order_release);
            ++sent;
            idle = 0;
        }
        if (got < n && atomic_load_explicit(&in->head, memory_order_acquire) > i0 + got) {
            const long t = i0 + got;
            memcpy(dst + (size_t)got * chunk, ri + (size_t)(t % slots) * chunk, chunk);
            atomic_store_explicit(&in->tail, t + 1, memory_order_release);
            ++got;
            idle = 0;
        }
        if (idle) relax();
    }
    if (send) /* done when the peer has taken everything */
        while (atomic_load_explicit(&out->tail, memory_order_acquire) < o0 + n) relax();
}

static int cma(int send, int recv, char *dst)
{
    (void)send;
    if (!recv) return 0;
    struct iovec l = {dst, MSG}, r = {sh->buf[1 - me], MSG};
    return process_vm_readv(sh->pid[1 - me], &l, 1, &r, 1, 0) == (ssize_t)MSG ? 0 : -1;
}

static double handoff_ns(int rounds)
{
    meet();
    const double t0 = now();
    for (long i = 0; i < rounds; ++i) {
        if (me == 0) {
            while (atomic_load_explicit(&sh->turn, memory_order_acquire) != 2 * i) relax();
            atomic_store_explicit(&sh->turn, 2 * i + 1, memory_order_release);
        } else {
            while (atomic_load_explicit(&sh->turn, memory_order_acquire) != 2 * i + 1) relax();
            atomic_store_explicit(&sh->turn, 2 * i + 2, memory_order_release);
        }
    }
    const double t = (now() - t0) / rounds * 1e9;
    meet();
    if (me == 0) atomic_store(&sh->turn, 0);
    meet();
    return t;
}

struct col {
    const char *name;
    size_t chunk;
    long slots;
    int nt; /* -1: cma */
};
static const struct col cols[] = {
    {"ring_64Kx4", 65536, 4, 0},   {"ring_64Kx4_nt", 65536, 4, 1},
    {"ring_64Kx16", 65536, 16, 0}, {"ring_64Kx16_nt", 65536, 16, 1},
    {"ring_256Kx4", 262144, 4, 0}, {"ring_256Kx4_nt", 262144, 4, 1},
    {"cma", 0, 0, -1},
};
enum { NCOL = sizeof cols / sizeof cols[0] };

int main(void)
{
    sh = mmap(NULL, sizeof *sh, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (sh == MAP_FAILED) return 1;
    char *src = aligned_alloc(4096, MSG), *dst = aligned_alloc(4096, MSG);
    if (!src || !dst) return 1;
    const pid_t child = fork();
    if (child < 0) return 1;
    me = child == 0;
    /* Yama ptrace_scope 1: let the peer read us (same uid only). */
    (void)prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0);
    memset(src, 1 + me, MSG);
    memset(dst, 0, MSG);
    sh->pid[me] = getpid();
    sh->buf[me] = src;
    meet();
    const char *quick = getenv("BENCH_QUICK");
    const int iters = quick && *quick && *quick != '0' ? 8 : 64;
    static const char *const rows[] = {"oneway", "both"};
    double best[2][NCOL], cl = 1e30;
    int rc = 0;
    for (int r = 0; r < 2; ++r)
        for (int k = 0; k < NCOL; ++k) best[r][k] = 1e30;
    for (int rep = 0; rep < REPS && rc == 0; ++rep) {
        const double c = handoff_ns(20000);
        if (c < cl) cl = c;
        for (int r = 0; r < 2; ++r)
            for (int k = 0; k < NCOL; ++k) {
                const int send = r == 1 || me == 0, recv = r == 1 || me == 1;
                meet();
                const double t0 = now();
                for (int i = 0; i < iters; ++i) {
                    if (cols[k].nt < 0) {
                        if (cma(send, recv, dst)) rc = 1;
                    } else {
                        transfer(cols[k].chunk, cols[k].slots, cols[k].nt, send, recv, src, dst);
                    }
                }
                meet(); /* the slower rank ends the repetition */
                const double t = (now() - t0) / iters * 1e6;
                if (t < best[r][k]) best[r][k] = t;
            }
    }
    if (me == 1) return rc;
    printf("TABLE\tring_copy\trow\t1 MiB between two processes: pipelined copy through a shared "
           "ring vs process_vm_readv, us per MiB (lower is better)\n");
    for (int r = 0; r < 2; ++r) {
        for (int k = 0; k < NCOL; ++k)
            printf("BENCH\tring_copy\t%s\t%s_us\t%.6g\n", rows[r], cols[k].name, best[r][k]);
        printf("BENCH\tring_copy\t%s\tcl_ns\t%.4g\n", rows[r], cl);
    }
    if (rc) fprintf(stderr, "ring_copy: cross-memory attach refused (ptrace rules?)\n");
    fflush(stdout);
    int st = 0;
    waitpid(child, &st, 0);
    return rc || !WIFEXITED(st) || WEXITSTATUS(st) != 0;
}
