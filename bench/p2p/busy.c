/* SPDX-License-Identifier: MIT */
/*
 * Latency on a busy host (issue 46 item 3): a 64-byte MPI_Isend/MPI_Irecv
 * pair between ranks 0 and 1 (each rank posts the receive, sends, waits for
 * both), half the round trip in microseconds, with 0, 1 and C background CPU
 * hogs running (C = online CPUs). The hogs are processes rank 0 forks after
 * MPI_Init: each spins on the clock until rank 0 kills it, and ends by
 * itself after BENCH_HOG_S seconds (default 30) in any case.
 *
 * On a busy host a waiting rank that spins keeps its core from the peer it
 * waits for; this measures how an implementation's waits cope. Each row is
 * the median over repetitions of the mean over a time window (not the
 * fastest repetition: preemption is what is being measured).
 */
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"

#define TABLE "p2p_busy"
#define BYTES 64
#define MAX_HOGS 16

static pid_t hogs[MAX_HOGS];
static int nhogs;

static double mono(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* n hog processes, each spinning until killed or for at most `limit` s. */
static void start_hogs(int n, double limit)
{
    const pid_t parent = getpid();
    for (int i = 0; i < n && nhogs < MAX_HOGS; i++) {
        const pid_t p = fork();
        if (p == 0) {
            const double end = mono() + limit;
            volatile unsigned long x = 0;
            while (getppid() == parent && mono() < end)
                for (int k = 0; k < 100000; k++)
                    x++;
            _exit(0);
        }
        if (p > 0)
            hogs[nhogs++] = p;
    }
}

static void stop_hogs(void)
{
    for (int i = 0; i < nhogs; i++)
        kill(hogs[i], SIGKILL);
    for (int i = 0; i < nhogs; i++)
        waitpid(hogs[i], NULL, 0);
    nhogs = 0;
}

/* Round trips of the Isend/Irecv pair until `seconds` pass on rank 0;
 * returns the mean half round trip in us (rank 0). */
static double pairs(int rank, char *sbuf, char *rbuf, double seconds)
{
    long n = 0;
    int stop = 0;
    const double t0 = MPI_Wtime(), end = t0 + seconds;
    while (!stop) {
        MPI_Request rq[2];
        int peer = 1 - rank;
        MPI_Irecv(rbuf, BYTES, MPI_BYTE, peer, 0, MPI_COMM_WORLD, &rq[0]);
        if (rank == 0) {
            stop = (n & 15) == 15 && MPI_Wtime() > end;
            sbuf[0] = (char)stop;
            MPI_Isend(sbuf, BYTES, MPI_BYTE, 1, 0, MPI_COMM_WORLD, &rq[1]);
            MPI_Wait(&rq[1], MPI_STATUS_IGNORE);
            MPI_Wait(&rq[0], MPI_STATUS_IGNORE);
        } else {
            MPI_Wait(&rq[0], MPI_STATUS_IGNORE);
            stop = rbuf[0];
            MPI_Isend(sbuf, BYTES, MPI_BYTE, 0, 0, MPI_COMM_WORLD, &rq[1]);
            MPI_Wait(&rq[1], MPI_STATUS_IGNORE);
        }
        n++;
    }
    return (MPI_Wtime() - t0) * 1e6 / (2.0 * (double)n);
}

static int cmp(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, np;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    if (np != 2) {
        if (rank == 0)
            fprintf(stderr, "busy: needs exactly 2 ranks\n");
        MPI_Finalize();
        return 1;
    }
    const char *hs = getenv("BENCH_HOG_S");
    const double limit = hs && atof(hs) > 0 ? atof(hs) : 30.0;
    int cpus = (int)sysconf(_SC_NPROCESSORS_ONLN);
    if (cpus < 1)
        cpus = 1;
    if (cpus > MAX_HOGS)
        cpus = MAX_HOGS;
    const double window = bench_quick() ? 0.05 : 0.25;
    const int reps = bench_quick() ? 3 : 7;
    char *sbuf = bench_alloc(BYTES), *rbuf = bench_alloc(BYTES);
    bench_info();
    bench_table(TABLE, "background", "64 B Isend/Irecv pair, half round trip, us, with N CPU hogs (lower is better)");
    bench_ratio(TABLE, "ch4lite/best-peer", "ch4lite.lat_us", "min(mpich.lat_us,ompi.lat_us)");
    bench_goal(TABLE, "ch4lite/best-peer", "<=", 1.0, NULL);
    const int counts[3] = {0, 1, cpus};
    for (int row = 0; row < 3; row++) {
        if (row == 2 && cpus == 1)
            break;
        if (rank == 0)
            start_hogs(counts[row], limit);
        MPI_Barrier(MPI_COMM_WORLD);
        (void)pairs(rank, sbuf, rbuf, window / 5); /* warm-up, and the hogs get going */
        double v[16];
        for (int r = 0; r < reps; r++)
            v[r] = pairs(rank, sbuf, rbuf, window);
        if (rank == 0)
            stop_hogs();
        MPI_Barrier(MPI_COMM_WORLD);
        qsort(v, (size_t)reps, sizeof v[0], cmp);
        char label[32];
        snprintf(label, sizeof label, "%d hog%s", counts[row], counts[row] == 1 ? "" : "s");
        bench_emit(TABLE, label, "lat_us", v[reps / 2]);
    }
    free(sbuf);
    free(rbuf);
    MPI_Finalize();
    return 0;
}
