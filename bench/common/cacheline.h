/* SPDX-License-Identifier: MIT */
/*
 * An in-run cache-line reference for on-node MPI benchmarks: ranks 0 and 1
 * (the two processes being measured) share one 64-byte line through a
 * private POSIX shared-memory object and hand it back and forth, right
 * before each MPI repetition.
 *
 * Why: on this virtual machine the cost of moving a line between the two
 * vCPUs changes from run to run by up to 4x (the hypervisor places the vCPU
 * threads on sibling hyperthreads, on cores sharing an L3, or farther
 * apart), and the placement lasts for seconds. Two programs measured a
 * minute apart can so differ by 4x for reasons that have nothing to do with
 * MPI. The handoff measured by the same two processes, interleaved with the
 * MPI repetitions, states the hardware's floor at that moment, so
 * "MPI latency / handoff" compares implementations fairly across runs.
 *
 * Protocol on the shared word `turn` (round trip i): rank 0 waits for 2i,
 * writes 2i+1; rank 1 waits for 2i+1, writes 2i+2. Rank 0 marks the last
 * round trip of a measurement by writing -(2i+1) instead: rank 1 answers it
 * and returns, so only rank 0 needs to know the count (and can stop early
 * past a deadline when other processes disturb the run).
 *
 * Plain C11 and POSIX: builds against every MPI the benchmarks compare.
 */
#ifndef CH4LITE_BENCH_CACHELINE_H
#define CH4LITE_BENCH_CACHELINE_H

#include <fcntl.h>
#include <stdatomic.h>
#include <sys/mman.h>
#include <unistd.h>

#include "bench.h"

#define BENCH_CL_TAG 31999 /* the meeting before each handoff measurement */

struct bench_cl {
    _Alignas(64) atomic_long turn;
};

struct bench_cl_state {
    struct bench_cl *cl; /* NULL: no reference (ranks on different nodes, or failure) */
    long v;              /* next value this rank waits for */
    long n;              /* round trips per measurement (rank 0) */
};

/* Ranks 0 and 1 of MPI_COMM_WORLD (other ranks: no-op). On failure, or when
 * the two ranks are not on one node, s->cl stays NULL on both. */
static inline void bench_cl_open(struct bench_cl_state *s, int rank)
{
    char name[64], host[MPI_MAX_PROCESSOR_NAME], peer[MPI_MAX_PROCESSOR_NAME];
    int len = 0, ok = 0;
    s->cl = NULL;
    s->v = 0;
    s->n = 0;
    if (rank > 1)
        return;
    memset(host, 0, sizeof host);
    MPI_Get_processor_name(host, &len);
    if (rank == 0) {
        snprintf(name, sizeof name, "/ch4lite-bench-cl-%ld-%ld", (long)getpid(),
                 (long)MPI_Wtime() ^ (long)(size_t)&name);
        int fd = shm_open(name, O_RDWR | O_CREAT | O_EXCL, 0600);
        if (fd >= 0) {
            if (ftruncate(fd, 4096) == 0) {
                void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
                if (p != MAP_FAILED)
                    s->cl = p;
            }
            close(fd);
        }
        if (!s->cl) {
            name[0] = '\0';
            if (fd >= 0)
                shm_unlink(name);
        } else {
            atomic_store(&s->cl->turn, 0);
        }
        MPI_Send(name, (int)sizeof name, MPI_CHAR, 1, 77, MPI_COMM_WORLD);
        MPI_Send(host, (int)sizeof host, MPI_CHAR, 1, 78, MPI_COMM_WORLD);
        MPI_Recv(&ok, 1, MPI_INT, 1, 79, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (s->cl)
            shm_unlink(name); /* attached (or given up) by rank 1: nothing can leak */
        if (!ok && s->cl) {
            munmap(s->cl, 4096);
            s->cl = NULL;
        }
    } else {
        MPI_Recv(name, (int)sizeof name, MPI_CHAR, 0, 77, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Recv(peer, (int)sizeof peer, MPI_CHAR, 0, 78, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (name[0] && strncmp(host, peer, sizeof host) == 0) {
            int fd = shm_open(name, O_RDWR, 0600);
            if (fd >= 0) {
                void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
                if (p != MAP_FAILED)
                    s->cl = p;
                close(fd);
            }
        }
        ok = s->cl != NULL;
        MPI_Send(&ok, 1, MPI_INT, 0, 79, MPI_COMM_WORLD);
    }
}

/* Rank 0: up to n round trips (the last one marked), stopping early past
 * `deadline` (MPI_Wtime, 0: none); returns half a round trip in
 * microseconds. Rank 1: answers until the marked round trip; returns 0. */
static inline double bench_cl_run(struct bench_cl_state *s, int rank, long n, double deadline)
{
    if (!s->cl || rank > 1)
        return 0.0;
    /* Meet in MPI first: an MPI whose operations complete only with the
     * peer's progress (Open MPI's vader: a sender's request waits for the
     * receiver's acknowledgement, which the receiver sends from its progress
     * engine) would otherwise wait forever for a peer spinning here. Both
     * ranks reach this point after the peer has matched every message of
     * the previous measurement, so the tag cannot meet a wildcard receive. */
    MPI_Sendrecv(NULL, 0, MPI_BYTE, 1 - rank, BENCH_CL_TAG, NULL, 0, MPI_BYTE, 1 - rank,
                 BENCH_CL_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    atomic_long *t = &s->cl->turn;
    if (rank == 1) {
        long want = s->v | 1; /* odd: rank 0 has handed the line over */
        for (;;) {
            long x;
            while ((x = atomic_load_explicit(t, memory_order_acquire)) != want && x != -want)
                ;
            atomic_store_explicit(t, want + 1, memory_order_release);
            want += 2;
            if (x < 0)
                break;
        }
        s->v = want - 1;
        return 0.0;
    }
    long v = s->v, i = 0;
    double t0 = MPI_Wtime();
    for (int last = 0; !last; i++) {
        while (atomic_load_explicit(t, memory_order_acquire) != v)
            ;
        last = i + 1 >= n || (deadline > 0 && (i & 1023) == 1023 && MPI_Wtime() > deadline);
        atomic_store_explicit(t, last ? -(v + 1) : v + 1, memory_order_release);
        v += 2;
    }
    while (atomic_load_explicit(t, memory_order_acquire) != v)
        ;
    s->v = v;
    return (MPI_Wtime() - t0) * 1e6 / (2.0 * (double)i);
}

/* Rank 0 picks the round-trip count of one measurement (about a quarter of
 * the time budget); rank 1 answers the calibration. */
static inline void bench_cl_calibrate(struct bench_cl_state *s, int rank)
{
    if (!s->cl || rank > 1)
        return;
    double a = bench_cl_run(s, rank, 1000, 0); /* warm-up */
    double b = bench_cl_run(s, rank, 1000, 0);
    if (rank == 0) {
        s->n = bench_iters_for(2e-6 * (a < b ? a : b), 400, 40000000) / 4;
    }
}

/* The placement around the fastest of `reps` repetitions: best[r] is
 * repetition r's time, cl[r] the handoff measured right before it and
 * cl[reps] the one after the last. Returns the smaller handoff on either
 * side of the fastest repetition (its index in *fastest when not NULL). */
static inline double bench_cl_floor(const double *best, const double *cl, int reps, int *fastest)
{
    int b = 0;
    for (int r = 1; r < reps; r++)
        if (best[r] < best[b])
            b = r;
    if (fastest)
        *fastest = b;
    return cl[b] < cl[b + 1] ? cl[b] : cl[b + 1];
}

static inline void bench_cl_close(struct bench_cl_state *s)
{
    if (s->cl)
        munmap(s->cl, 4096);
    s->cl = NULL;
}

#endif
