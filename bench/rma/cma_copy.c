/* SPDX-License-Identifier: MIT */
/*
 * Reference, not MPI: what one copy into or out of another process's
 * private memory costs (process_vm_writev / process_vm_readv, the single
 * copy of a put or get on a Win_create window, docs/rma.md) against a
 * memcpy of the same bytes inside one process (what a put into shared
 * window memory costs). Two processes (fork): the child only owns the
 * buffer; the parent copies. Rows 64 KiB, 256 KiB, 1 MiB; µs per copy,
 * the fastest of 5 repetitions. The 256 KiB row also reads the same bytes
 * as 128 remote pieces of 2 KiB, every other 2 KiB of 512 KiB (readv_2k:
 * a typed sender's layout offered to the receiver, FFT2_send/256 of
 * docs/ddt-wire.md): the kernel pins the pages of each remote piece on
 * its own, which is why typed senders do not offer a single copy.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

enum { MAXB = 1 << 20, REPS = 5 };

enum { PIECE = 2048, PIECES = 128 };

/* Seconds per copy of n bytes: 0 write, 1 read, 2 memcpy, 3 read of
 * PIECES remote pieces of n / PIECES bytes at twice that stride; best of REPS. */
static double timed(int what, pid_t child, char *local, char *other, void *remote, size_t n, int iters)
{
    struct iovec li = {local, n}, ri = {remote, n}, pieces[PIECES];
    for (int k = 0; k < PIECES; ++k)
        pieces[k] = (struct iovec){(char *)remote + 2 * (size_t)k * (n / PIECES), n / PIECES};
    double best = 1e30;
    for (int r = 0; r < REPS; ++r) {
        const double t0 = now();
        for (int i = 0; i < iters; ++i) {
            ssize_t got = (ssize_t)n;
            if (what == 0) got = process_vm_writev(child, &li, 1, &ri, 1, 0);
            else if (what == 1) got = process_vm_readv(child, &li, 1, &ri, 1, 0);
            else if (what == 3) got = process_vm_readv(child, &li, 1, pieces, PIECES, 0);
            else memcpy(other, local, n);
            if (got != (ssize_t)n) return -1;
            __asm__ volatile("" ::: "memory");
        }
        const double t = (now() - t0) / iters;
        if (t < best) best = t;
    }
    return best;
}

int main(void)
{
    int up[2], down[2];
    if (pipe(up) || pipe(down)) return 1;
    const pid_t c = fork();
    if (c < 0) return 1;
    if (c == 0) {
        char *b = aligned_alloc(4096, MAXB);
        if (!b) return 1;
        memset(b, 1, MAXB);
        void *a = b;
        if (write(up[1], &a, sizeof a) != (ssize_t)sizeof a) return 1;
        char x;
        if (read(down[0], &x, 1) < 0) return 1;
        return 0;
    }
    void *remote = NULL;
    int rc = 0;
    char *local = aligned_alloc(4096, MAXB), *other = aligned_alloc(4096, MAXB);
    if (read(up[0], &remote, sizeof remote) != (ssize_t)sizeof remote || !local || !other) {
        rc = 1;
    } else {
        memset(local, 2, MAXB);
        memset(other, 3, MAXB);
        const char *quick = getenv("BENCH_QUICK");
        const int fast = quick && *quick && *quick != '0';
        printf("TABLE\tcma_copy\tbytes\tone copy into / out of another process (process_vm_writev / "
               "_readv) vs memcpy, us (lower is better)\n");
        printf("RATIO\tcma_copy\twrite/memcpy\tcma_copy.write_us\tcma_copy.memcpy_us\n");
        printf("RATIO\tcma_copy\tread/memcpy\tcma_copy.read_us\tcma_copy.memcpy_us\n");
        printf("RATIO\tcma_copy\treadv_2k/read\tcma_copy.readv_2k_us\tcma_copy.read_us\n");
        static const size_t sizes[] = {65536, 262144, MAXB};
        static const char *const names[] = {"write_us", "read_us", "memcpy_us", "readv_2k_us"};
        for (int k = 0; k < 3 && rc == 0; ++k) {
            const int iters = (int)((fast ? 16 : 256) * (MAXB / sizes[k]));
            for (int w = 0; w < (sizes[k] == PIECE * PIECES ? 4 : 3); ++w) {
                const double s = timed(w, c, local, other, remote, sizes[k], iters);
                if (s < 0) {
                    fprintf(stderr, "cma_copy: cross-memory attach refused (ptrace rules?)\n");
                    rc = 1;
                    break;
                }
                printf("BENCH\tcma_copy\t%zu\t%s\t%.6g\n", sizes[k], names[w], s * 1e6);
            }
        }
        fflush(stdout);
    }
    if (write(down[1], "x", 1) < 0) rc = 1;
    waitpid(c, NULL, 0);
    return rc;
}
