/* SPDX-License-Identifier: MIT */
/*
 * The layout record shared by the DDTBench re-creations (ddt_layouts.h):
 * buffers, the datatype builder and the hand-written pack/unpack loop.
 */
#ifndef DDT_COMMON_H
#define DDT_COMMON_H
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* DDTBench addresses the struct layouts (WRF, LAMMPS, SPECFEM3D_cm) absolutely,
 * with MPI_BOTTOM. MPICH 4.0 rejects a NULL inbuf in MPI_Pack, so by default the
 * displacements are taken relative to the first array instead (same type map
 * shape); define DDT_ABSOLUTE 1 to use MPI_BOTTOM. */
#ifndef DDT_ABSOLUTE
#define DDT_ABSOLUTE 0
#endif

enum { DDT_LARGE, DDT_SMALL, DDT_INDEX, DDT_OTHER };

typedef struct ddt ddt;
struct ddt {
    char name[48];
    int klass;            /* which goal the layout falls under */
    size_t bytes;         /* packed bytes of one message */
    long blocks;          /* index entries (index layouts: commit cost per block) */
    const void *buf;      /* MPI_Pack's inbuf (MPI_BOTTOM for absolute addresses) */
    int count;
    int (*mktype)(ddt *, MPI_Datatype *); /* builds and commits the datatype */
    void (*hand)(ddt *, char *packed, int unpack);
    void *mem[10];
    size_t msize[10];     /* bytes of each mem[] array */
    int nmem;
    int *idx, *idx2;
    long p[8];
};

/* Page-aligned, in every implementation's process alike: with calloc the
 * arrays' alignment depended on what the MPI library had allocated before
 * (glibc's heap, and its mmap threshold that grows after frees), and the same
 * hand-written loop then ran up to 1.8x faster in one library's process than
 * in another's. */
static void *ddt_alloc(ddt *L, size_t bytes) {
    void *m = NULL;
    if (posix_memalign(&m, 4096, bytes ? bytes : 1) != 0) m = NULL;
    if (!m) {
        fprintf(stderr, "ddt: out of memory (%zu bytes)\n", bytes);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    /* byte i = i * 7 + nmem (mod 256): a period of 256 bytes, written as
     * one pattern block copied over the array (a byte loop took a quarter
     * of the ddt_wire test's time). */
    unsigned char pat[256];
    for (int i = 0; i < 256; ++i) pat[i] = (unsigned char)(i * 7 + L->nmem);
    for (size_t off = 0; off < bytes; off += sizeof pat)
        memcpy((unsigned char *)m + off, pat, bytes - off < sizeof pat ? bytes - off : sizeof pat);
    L->msize[L->nmem] = bytes;
    L->mem[L->nmem++] = m;
    return m;
}

static void ddt_free(ddt *L) {
    for (int i = 0; i < L->nmem; ++i) free(L->mem[i]);
    free(L->idx);
    free(L->idx2);
    memset(L, 0, sizeof *L);
}

/* First n entries of a deterministic shuffle of 0..range-1 (unique, unsorted). */
static int *ddt_shuffle(int n, int range, unsigned seed) {
    int *all = malloc(sizeof(int) * (size_t)range);
    for (int i = 0; i < range; ++i) all[i] = i;
    for (int i = range - 1; i > 0; --i) {
        seed = seed * 1103515245u + 12345u;
        int j = (int)((seed >> 8) % (unsigned)(i + 1));
        int t = all[i];
        all[i] = all[j], all[j] = t;
    }
    return all; /* callers use the first n */
}

/* Absolute addresses -> displacements from L->buf (unless DDT_ABSOLUTE). */
static void ddt_place(ddt *L, MPI_Aint *disp, int n) {
    if (DDT_ABSOLUTE) {
        L->buf = MPI_BOTTOM;
        return;
    }
    MPI_Aint base;
    MPI_Get_address(L->mem[0], &base);
    for (int i = 0; i < n; ++i) disp[i] = MPI_Aint_diff(disp[i], base);
    L->buf = L->mem[0];
}

#define DDT_MOVE(unpack, packed_ptr, user_ptr, n)                  \
    do {                                                           \
        if (unpack) memcpy((user_ptr), (packed_ptr), (n));         \
        else memcpy((packed_ptr), (user_ptr), (n));                \
        (packed_ptr) += (n);                                       \
    } while (0)

#endif /* DDT_COMMON_H */
