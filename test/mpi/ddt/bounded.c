/* SPDX-License-Identifier: MIT */
/* Large noncontiguous messages need bounded temporary memory: this program
 * interposes malloc/calloc/realloc/free (the executable's definitions win
 * over libc's for every shared library, libmpi included) and records the
 * peak of live heap bytes while a 64 MiB noncontiguous message (a vector of
 * doubles with stride 2, i.e. 8-byte blocks) is sent and received. The
 * library may use a pipeline of pooled chunks, never a message-sized buffer:
 * the peak growth must stay under 16 MiB on both sides (after a contiguous
 * warm-up of the same volume, which lets the transports grow their pools). */
#define _GNU_SOURCE
#include <malloc.h>
#include <stdatomic.h>
#include <stddef.h>

#include "mpitest.h"

extern void* __libc_malloc(size_t);
extern void* __libc_calloc(size_t, size_t);
extern void* __libc_realloc(void*, size_t);
extern void __libc_free(void*);
extern void* __libc_memalign(size_t, size_t);

static _Atomic long live = 0, peak = 0;
static void grew(void* p) {
    if (!p) return;
    long now = atomic_fetch_add(&live, (long)malloc_usable_size(p)) + (long)malloc_usable_size(p);
    long old = atomic_load(&peak);
    while (now > old && !atomic_compare_exchange_weak(&peak, &old, now)) {
    }
}
static void shrank(void* p) {
    if (p) atomic_fetch_sub(&live, (long)malloc_usable_size(p));
}
void* malloc(size_t n) { void* p = __libc_malloc(n); grew(p); return p; }
void* calloc(size_t a, size_t b) { void* p = __libc_calloc(a, b); grew(p); return p; }
void* realloc(void* q, size_t n) {
    shrank(q);
    void* p = __libc_realloc(q, n);
    grew(p ? p : (n ? q : NULL)); /* a failed realloc leaves q allocated */
    return p;
}
void free(void* p) { shrank(p); __libc_free(p); }
void* memalign(size_t a, size_t n) { void* p = __libc_memalign(a, n); grew(p); return p; }
void* aligned_alloc(size_t a, size_t n) { return memalign(a, n); }
int posix_memalign(void** out, size_t a, size_t n) { *out = memalign(a, n); return *out ? 0 : 12; }

#define DOUBLES (8l << 20) /* 8 Mi doubles = 64 MiB of data, 128 MiB spread */
#define LIMIT (16l << 20)

int main(int argc, char** argv) {
    mt_init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    double* spread = malloc(sizeof(double) * 2 * DOUBLES);
    double* dense = malloc(sizeof(double) * DOUBLES);
    CHECK(spread && dense, "malloc");
    MPI_Datatype v;
    CHECK_MPI(MPI_Type_vector((int)DOUBLES, 1, 2, MPI_DOUBLE, &v));
    CHECK_MPI(MPI_Type_commit(&v));
    for (long i = 0; i < 2 * DOUBLES; ++i) spread[i] = (double)i;
    /* Warm-up: the same volume as contiguous messages both ways, so the
     * transports' own buffer pools (libfabric's receive pools grow once
     * under a 64 MiB stream) are in place before we measure ours. */
    for (int dir = 0; dir < 2 && rank < 2; ++dir) {
        const long base = atomic_load(&live);
        atomic_store(&peak, base);
        if (rank == dir)
            CHECK_MPI(MPI_Send(spread, (int)DOUBLES, MPI_DOUBLE, 1 - dir, 5, MPI_COMM_WORLD));
        else
            CHECK_MPI(MPI_Recv(dense, (int)DOUBLES, MPI_DOUBLE, dir, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        printf("rank %d, warm-up %d: peak temporary heap %.2f MiB (contiguous)\n", rank, dir,
               (atomic_load(&peak) - base) / 1048576.0);
    }
    for (int dir = 0; dir < 2; ++dir) {
        CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
        const long base = atomic_load(&live);
        atomic_store(&peak, base);
        if (rank == dir) {          /* noncontiguous send */
            CHECK_MPI(MPI_Send(spread, 1, v, 1 - dir, 7, MPI_COMM_WORLD));
        } else if (rank == 1 - dir) { /* noncontiguous receive */
            CHECK_MPI(MPI_Recv(dense, (int)DOUBLES, MPI_DOUBLE, dir, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            for (long i = 0; i < DOUBLES; i += 4099) CHECK(dense[i] == 2.0 * i, "data %ld", i);
            CHECK_MPI(MPI_Send(dense, (int)DOUBLES, MPI_DOUBLE, dir, 8, MPI_COMM_WORLD));
        }
        if (rank == dir) {
            for (long i = 0; i < 2 * DOUBLES; ++i) spread[i] = -1;
            CHECK_MPI(MPI_Recv(spread, 1, v, 1 - dir, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            for (long i = 0; i < DOUBLES; i += 4099)
                CHECK(spread[2 * i] == 2.0 * i && spread[2 * i + 1] == -1, "typed receive %ld", i);
            for (long i = 0; i < 2 * DOUBLES; ++i) spread[i] = (double)i;
        }
        const long grown = atomic_load(&peak) - base;
        if (rank < 2) {
            printf("rank %d, direction %d: peak temporary heap %.2f MiB\n", rank, dir, grown / 1048576.0);
            CHECK(grown < LIMIT, "temporary heap grew by %ld bytes (limit %ld)", grown, LIMIT);
        }
    }
    MPI_Type_free(&v);
    free(spread);
    free(dense);
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0) printf("bounded: OK\n");
    MPI_Finalize();
    return 0;
}
