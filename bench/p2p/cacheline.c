/* SPDX-License-Identifier: MIT */
/*
 * Reference, not MPI: the cost of handing one cache line back and forth
 * between two processes through shared memory (what an on-node MPI
 * ping-pong cannot beat). Two processes (fork) share one 64-byte-aligned
 * counter; each waits for its turn and increments it. Half a round trip is
 * one one-way handoff. Printed as rows 0..8 of the latency table so the
 * harness (tag "cacheline") can form ch4lite.lat_us / cacheline.lat_us.
 */
#define _GNU_SOURCE
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct line {
    _Alignas(64) atomic_long turn;
    char pad[64 - sizeof(atomic_long)];
};

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Player `me` (0 or 1) moves on values v with v % 2 == me. */
static void play(struct line *l, int me, long from, long to)
{
    for (long v = from + me; v < to; v += 2) {
        while (atomic_load_explicit(&l->turn, memory_order_acquire) != v)
            ;
        atomic_store_explicit(&l->turn, v + 1, memory_order_release);
    }
}

int main(void)
{
    const char *q = getenv("BENCH_QUICK");
    int quick = q && *q && strcmp(q, "0") != 0;
    int reps = quick ? 3 : 11;
    long per_rep = quick ? 200000 : 1000000; /* handoffs (even) */
    struct line *l = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (l == MAP_FAILED) {
        perror("cacheline: mmap");
        return 1;
    }
    atomic_store(&l->turn, 0);
    long total = per_rep * (reps + 1); /* +1: warm-up */
    pid_t pid = fork();
    if (pid < 0) {
        perror("cacheline: fork");
        return 1;
    }
    if (pid == 0) {
        play(l, 1, 0, total);
        _exit(0);
    }
    play(l, 0, 0, per_rep); /* warm-up */
    double best = 1e30;
    for (int r = 1; r <= reps; r++) {
        double t0 = now();
        play(l, 0, per_rep * r, per_rep * (r + 1));
        /* wait for the partner's last move of this repetition */
        while (atomic_load_explicit(&l->turn, memory_order_acquire) != per_rep * (r + 1))
            ;
        double us = (now() - t0) * 1e6 / (double)per_rep;
        if (us < best)
            best = us;
    }
    waitpid(pid, NULL, 0);
    for (int s = 0; s <= 8; s = s ? s * 2 : 1)
        printf("BENCH\tp2p_latency\t%d\tlat_us\t%.6g\n", s, best);
    return 0;
}
