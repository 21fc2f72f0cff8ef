/* SPDX-License-Identifier: MIT */
/*
 * The DDTBench layouts (shared/bench/ddtbench-layouts.md), re-created from
 * their published construction: for each one the MPI datatype exactly as the
 * application builds it, and the application-style hand-written pack and
 * unpack loops producing the same byte stream. Plain C + MPI, so the
 * benchmark (bench/dame) and the round-trip test (test/mpi/datatype) build
 * against ch4lite, MPICH and Open MPI alike.
 */
#ifndef DDT_LAYOUTS_H
#define DDT_LAYOUTS_H
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
    int nmem;
    int *idx, *idx2;
    long p[8];
};

static void *ddt_alloc(ddt *L, size_t bytes) {
    void *m = calloc(1, bytes ? bytes : 1);
    if (!m) {
        fprintf(stderr, "ddt: out of memory (%zu bytes)\n", bytes);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (size_t i = 0; i < bytes; ++i) ((unsigned char *)m)[i] = (unsigned char)(i * 7 + L->nmem);
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

/* ---- NAS LU: double u[D3+2][D2+2][5] ---------------------------------- */
static int lu_y_type(ddt *L, MPI_Datatype *t) {
    MPI_Datatype c;
    MPI_Type_contiguous(5, MPI_DOUBLE, &c);
    MPI_Type_vector((int)L->p[1], 1, (int)L->p[0] + 2, c, t);
    MPI_Type_free(&c);
    return MPI_Type_commit(t);
}
static void lu_y_hand(ddt *L, char *out, int unpack) {
    double *u = L->mem[0];
    const long d2 = L->p[0], d3 = L->p[1];
    if (unpack) {
        for (long k = 0; k < d3; ++k)
            for (int m = 0; m < 5; ++m) u[(k * (d2 + 2)) * 5 + m] = ((double *)out)[k * 5 + m];
    } else {
        for (long k = 0; k < d3; ++k)
            for (int m = 0; m < 5; ++m) ((double *)out)[k * 5 + m] = u[(k * (d2 + 2)) * 5 + m];
    }
}
static void make_lu_y(ddt *L, long d) {
    L->p[0] = d, L->p[1] = d;
    snprintf(L->name, sizeof L->name, "NAS_LU_y/%ld", d);
    L->klass = DDT_SMALL;
    L->bytes = 40 * d;
    L->buf = ddt_alloc(L, sizeof(double) * 5 * (d + 2) * (d + 2));
    L->mktype = lu_y_type, L->hand = lu_y_hand;
}
static int lu_x_type(ddt *L, MPI_Datatype *t) {
    MPI_Type_contiguous(5 * (int)L->p[0], MPI_DOUBLE, t);
    return MPI_Type_commit(t);
}
static void lu_x_hand(ddt *L, char *out, int unpack) {
    double *u = L->mem[0], *o = (double *)out;
    const long n = 5 * L->p[0];
    if (unpack) for (long i = 0; i < n; ++i) u[i] = o[i];
    else for (long i = 0; i < n; ++i) o[i] = u[i];
}
static void make_lu_x(ddt *L, long d) {
    L->p[0] = d;
    snprintf(L->name, sizeof L->name, "NAS_LU_x/%ld", d);
    L->klass = DDT_LARGE;
    L->bytes = 40 * d;
    L->buf = ddt_alloc(L, sizeof(double) * 5 * (d + 2) * (d + 2));
    L->mktype = lu_x_type, L->hand = lu_x_hand;
}

/* ---- NAS MG: double u[D3][D2][D1], faces without the ghost layer -------- */
static int mg_x_type(ddt *L, MPI_Datatype *t) {
    MPI_Datatype v;
    const long d1 = L->p[0], d2 = L->p[1], d3 = L->p[2];
    MPI_Type_vector((int)d2 - 2, 1, (int)d1, MPI_DOUBLE, &v);
    MPI_Type_create_hvector((int)d3 - 2, 1, d1 * d2 * 8, v, t);
    MPI_Type_free(&v);
    return MPI_Type_commit(t);
}
static void mg_x_hand(ddt *L, char *out, int unpack) {
    double *u = (double *)L->buf, *o = (double *)out;
    const long d1 = L->p[0], d2 = L->p[1], d3 = L->p[2];
    long n = 0;
    if (unpack) {
        for (long k = 0; k < d3 - 2; ++k)
            for (long j = 0; j < d2 - 2; ++j) u[(k * d2 + j) * d1] = o[n++];
    } else {
        for (long k = 0; k < d3 - 2; ++k)
            for (long j = 0; j < d2 - 2; ++j) o[n++] = u[(k * d2 + j) * d1];
    }
}
static int mg_y_type(ddt *L, MPI_Datatype *t) {
    const long d1 = L->p[0], d2 = L->p[1], d3 = L->p[2];
    MPI_Type_vector((int)d3 - 2, (int)d1 - 2, (int)(d1 * d2), MPI_DOUBLE, t);
    return MPI_Type_commit(t);
}
static void mg_y_hand(ddt *L, char *out, int unpack) {
    double *u = (double *)L->buf, *o = (double *)out;
    const long d1 = L->p[0], d2 = L->p[1], d3 = L->p[2];
    long n = 0;
    for (long k = 0; k < d3 - 2; ++k)
        for (long i = 0; i < d1 - 2; ++i, ++n) {
            if (unpack) u[k * d1 * d2 + i] = o[n];
            else o[n] = u[k * d1 * d2 + i];
        }
}
static int mg_z_type(ddt *L, MPI_Datatype *t) {
    const long d1 = L->p[0], d2 = L->p[1];
    MPI_Type_vector((int)d2 - 2, (int)d1 - 2, (int)d1, MPI_DOUBLE, t);
    return MPI_Type_commit(t);
}
static void mg_z_hand(ddt *L, char *out, int unpack) {
    double *u = (double *)L->buf, *o = (double *)out;
    const long d1 = L->p[0], d2 = L->p[1];
    long n = 0;
    for (long j = 0; j < d2 - 2; ++j)
        for (long i = 0; i < d1 - 2; ++i, ++n) {
            if (unpack) u[j * d1 + i] = o[n];
            else o[n] = u[j * d1 + i];
        }
}
static void make_mg(ddt *L, char face, long d1, long d2, long d3) {
    L->p[0] = d1, L->p[1] = d2, L->p[2] = d3;
    double *u = ddt_alloc(L, sizeof(double) * d1 * d2 * d3);
    L->buf = u + (d1 * d2 + d1 + 1); /* u[1][1][1] */
    snprintf(L->name, sizeof L->name, "NAS_MG_%c/%ld", face, d1);
    if (face == 'x') {
        L->klass = DDT_SMALL, L->bytes = 8 * (d2 - 2) * (d3 - 2);
        L->mktype = mg_x_type, L->hand = mg_x_hand;
    } else if (face == 'y') {
        L->klass = DDT_LARGE, L->bytes = 8 * (d1 - 2) * (d3 - 2);
        L->mktype = mg_y_type, L->hand = mg_y_hand;
    } else {
        L->klass = DDT_LARGE, L->bytes = 8 * (d1 - 2) * (d2 - 2);
        L->mktype = mg_z_type, L->hand = mg_z_hand;
    }
}

/* ---- MILC su3_zdown: float array 6*D2*D3*D4*D5 -------------------------- */
static int milc_type(ddt *L, MPI_Datatype *t) {
    MPI_Datatype su3, v;
    const long d2 = L->p[0], d3 = L->p[1], d4 = L->p[2], d5 = L->p[3];
    MPI_Type_contiguous(6, MPI_FLOAT, &su3);
    MPI_Type_vector((int)d5, (int)(d2 * d3 / 2), (int)(d2 * d3 * d4 / 2), su3, &v);
    MPI_Type_create_hvector(2, 1, 24 * d2 * d3 * d4 * d5 / 2, v, t);
    MPI_Type_free(&su3);
    MPI_Type_free(&v);
    return MPI_Type_commit(t);
}
static void milc_hand(ddt *L, char *out, int unpack) {
    const long d2 = L->p[0], d3 = L->p[1], d4 = L->p[2], d5 = L->p[3];
    const long run = 24 * d2 * d3 / 2, stride = 24 * d2 * d3 * d4 / 2, half = 24 * d2 * d3 * d4 * d5 / 2;
    char *u = L->mem[0];
    for (int h = 0; h < 2; ++h)
        for (long t = 0; t < d5; ++t) DDT_MOVE(unpack, out, u + h * half + t * stride, (size_t)run);
}
static void make_milc(ddt *L, long d2, long d3, long d4, long d5) {
    L->p[0] = d2, L->p[1] = d3, L->p[2] = d4, L->p[3] = d5;
    snprintf(L->name, sizeof L->name, "MILC_su3_zd/%ld", 24 * d2 * d3 * d5);
    L->klass = DDT_LARGE, L->bytes = 24 * d2 * d3 * d5;
    L->buf = ddt_alloc(L, 24 * d2 * d3 * d4 * d5);
    L->mktype = milc_type, L->hand = milc_hand;
}

/* ---- FFT2: complex double local matrix N/P rows x N, P = 2 --------------- */
#define FFT_P 2
static int fft_type(ddt *L, MPI_Datatype *t) {
    const int n = (int)L->p[0], np = n / FFT_P;
    MPI_Datatype c, v;
    MPI_Type_contiguous(2, MPI_DOUBLE, &c);
    if (L->p[1] == 0) { /* send */
        MPI_Type_vector(np, np, n, c, &v);
        MPI_Type_create_resized(v, 0, (MPI_Aint)np * 16, t);
    } else { /* receive */
        MPI_Datatype r;
        MPI_Type_vector(np, 1, n, c, &v);
        MPI_Type_create_resized(v, 0, 16, &r);
        MPI_Type_contiguous(np, r, t);
        MPI_Type_free(&r);
    }
    MPI_Type_free(&c);
    MPI_Type_free(&v);
    return MPI_Type_commit(t);
}
static void fft_hand(ddt *L, char *out, int unpack) {
    const long n = L->p[0], np = n / FFT_P;
    char *a = L->mem[0];
    for (long p = 0; p < FFT_P; ++p) {
        if (L->p[1] == 0) { /* send: block p = rows 0..np-1, columns p*np.. */
            for (long r = 0; r < np; ++r) DDT_MOVE(unpack, out, a + (r * n + p * np) * 16, (size_t)np * 16);
        } else { /* receive: transpose, one complex at a time */
            for (long c = 0; c < np; ++c)
                for (long r = 0; r < np; ++r) {
                    double *e = (double *)(a + (r * n + p * np + c) * 16), *o = (double *)out;
                    if (unpack) e[0] = o[0], e[1] = o[1];
                    else o[0] = e[0], o[1] = e[1];
                    out += 16;
                }
        }
    }
}
static void make_fft(ddt *L, long n, int recv) {
    n += n % FFT_P;
    L->p[0] = n, L->p[1] = recv;
    snprintf(L->name, sizeof L->name, "FFT2_%s/%ld", recv ? "recv" : "send", n);
    L->klass = recv ? DDT_SMALL : (16 * n / FFT_P >= 256 ? DDT_LARGE : DDT_OTHER);
    L->bytes = 16 * n * n / FFT_P;
    L->buf = ddt_alloc(L, 16 * n * n / FFT_P);
    L->count = FFT_P;
    L->mktype = fft_type, L->hand = fft_hand;
}

/* ---- WRF: 4 2D [dim3][dim1], 3 3D [dim3][65][dim1], 2 4D [2][dim3][65][dim1]
 * floats; the halo region i in [is, is+sub1), all 65 k, j in [js, js+sub3). */
#define WRF_D2 65
#define WRF_IS 1
#define WRF_JS 1
static int wrf_type(ddt *L, MPI_Datatype *t) {
    const int d1 = (int)L->p[0], d3 = (int)L->p[1], s1 = (int)L->p[2], s3 = (int)L->p[3];
    MPI_Datatype ty[9], t2, t3, t3v, t4;
    MPI_Aint disp[9];
    int bl[9];
    if (L->p[4] == 0) { /* vector construction, absolute corner addresses */
        MPI_Type_vector(s3, s1, d1, MPI_FLOAT, &t2);
        MPI_Type_vector(WRF_D2, s1, d1, MPI_FLOAT, &t3v);
        MPI_Type_create_hvector(s3, 1, (MPI_Aint)d1 * WRF_D2 * 4, t3v, &t3);
        MPI_Type_create_hvector(1, 1, (MPI_Aint)d1 * WRF_D2 * d3 * 4, t3, &t4);
        MPI_Type_free(&t3v);
    } else { /* subarray construction, absolute base addresses */
        int sz2[2] = {d3, d1}, sub2[2] = {s3, s1}, st2[2] = {WRF_JS, WRF_IS};
        int sz3[3] = {d3, WRF_D2, d1}, sub3[3] = {s3, WRF_D2, s1}, st3[3] = {WRF_JS, 0, WRF_IS};
        int sz4[4] = {2, d3, WRF_D2, d1}, sub4[4] = {1, s3, WRF_D2, s1}, st4[4] = {1, WRF_JS, 0, WRF_IS};
        MPI_Type_create_subarray(2, sz2, sub2, st2, MPI_ORDER_C, MPI_FLOAT, &t2);
        MPI_Type_create_subarray(3, sz3, sub3, st3, MPI_ORDER_C, MPI_FLOAT, &t3);
        MPI_Type_create_subarray(4, sz4, sub4, st4, MPI_ORDER_C, MPI_FLOAT, &t4);
    }
    for (int a = 0; a < 9; ++a) {
        float *base = L->mem[a];
        long off = 0;
        if (L->p[4] == 0) {
            if (a < 4) off = (long)WRF_JS * d1 + WRF_IS;
            else if (a < 7) off = (long)WRF_JS * WRF_D2 * d1 + WRF_IS;
            else off = (long)d3 * WRF_D2 * d1 + (long)WRF_JS * WRF_D2 * d1 + WRF_IS;
        }
        MPI_Get_address(base + off, &disp[a]);
        bl[a] = 1;
        ty[a] = a < 4 ? t2 : a < 7 ? t3 : t4;
    }
    ddt_place(L, disp, 9);
    MPI_Type_create_struct(9, bl, disp, ty, t);
    MPI_Type_free(&t2), MPI_Type_free(&t3), MPI_Type_free(&t4);
    return MPI_Type_commit(t);
}
static void wrf_hand(ddt *L, char *out, int unpack) {
    const long d1 = L->p[0], d3 = L->p[1], s1 = L->p[2], s3 = L->p[3];
    float *o = (float *)out;
    for (int a = 0; a < 9; ++a) {
        float *f = L->mem[a];
        if (a >= 7) f += d3 * WRF_D2 * d1; /* 4D: the pfs = 1 slab */
        const long nk = a < 4 ? 1 : WRF_D2;
        for (long j = WRF_JS; j < WRF_JS + s3; ++j)
            for (long k = 0; k < nk; ++k) {
                float *row = a < 4 ? f + j * d1 : f + (j * WRF_D2 + k) * d1;
                if (unpack) for (long i = WRF_IS; i < WRF_IS + s1; ++i) row[i] = *o++;
                else for (long i = WRF_IS; i < WRF_IS + s1; ++i) *o++ = row[i];
            }
    }
}
static void make_wrf(ddt *L, char dir, int sa, long d1, long d3, long sub) {
    const long s1 = dir == 'y' ? sub : 3, s3 = dir == 'y' ? 3 : sub;
    L->p[0] = d1, L->p[1] = d3, L->p[2] = s1, L->p[3] = s3, L->p[4] = sa;
    snprintf(L->name, sizeof L->name, "WRF_%c_%s/%ld", dir, sa ? "sa" : "vec", 1316 * s1 * s3);
    L->klass = dir == 'x' ? DDT_SMALL : DDT_OTHER;
    L->bytes = (size_t)(1316 * s1 * s3);
    for (int a = 0; a < 9; ++a)
        ddt_alloc(L, sizeof(float) * (a < 4 ? d3 * d1 : a < 7 ? d3 * WRF_D2 * d1 : 2 * d3 * WRF_D2 * d1));
    L->buf = MPI_BOTTOM;
    L->mktype = wrf_type, L->hand = wrf_hand;
}

/* ---- LAMMPS: x[3*(D1+ic)] and 5 (full) or 3 (atomic) per-atom arrays ----- */
static int lammps_type(ddt *L, MPI_Datatype *t) {
    const int ic = (int)L->p[0], na = (int)L->p[2];
    int bl[6], *d3 = malloc(sizeof(int) * ic);
    MPI_Aint disp[6];
    MPI_Datatype ty[6];
    for (int i = 0; i < ic; ++i) d3[i] = 3 * L->idx[i];
    MPI_Type_create_indexed_block(ic, 3, d3, MPI_DOUBLE, &ty[0]);
    for (int a = 1; a < na; ++a) MPI_Type_create_indexed_block(ic, 1, L->idx, MPI_DOUBLE, &ty[a]);
    for (int a = 0; a < na; ++a) MPI_Get_address(L->mem[a], &disp[a]), bl[a] = 1;
    ddt_place(L, disp, na);
    MPI_Type_create_struct(na, bl, disp, ty, t);
    for (int a = 0; a < na; ++a) MPI_Type_free(&ty[a]);
    free(d3);
    return MPI_Type_commit(t);
}
static void lammps_hand(ddt *L, char *out, int unpack) {
    const long ic = L->p[0], na = L->p[2];
    double *o = (double *)out, *x = L->mem[0];
    const int *idx = L->idx;
    if (unpack) {
        for (long i = 0; i < ic; ++i) {
            const long j = 3 * (long)idx[i];
            x[j] = o[0], x[j + 1] = o[1], x[j + 2] = o[2];
            o += 3;
        }
        for (long a = 1; a < na; ++a) {
            double *v = L->mem[a];
            for (long i = 0; i < ic; ++i) v[idx[i]] = *o++;
        }
    } else {
        for (long i = 0; i < ic; ++i) {
            const long j = 3 * (long)idx[i];
            o[0] = x[j], o[1] = x[j + 1], o[2] = x[j + 2];
            o += 3;
        }
        for (long a = 1; a < na; ++a) {
            const double *v = L->mem[a];
            for (long i = 0; i < ic; ++i) *o++ = v[idx[i]];
        }
    }
}
static void make_lammps(ddt *L, int full, long ic, long d1) {
    const long na = full ? 6 : 4;
    L->p[0] = ic, L->p[1] = d1, L->p[2] = na;
    snprintf(L->name, sizeof L->name, "LAMMPS_%s/%ld", full ? "full" : "atomic", (na + 2) * 8 * ic);
    L->klass = DDT_INDEX, L->bytes = (size_t)((na + 2) * 8 * ic), L->blocks = na * ic;
    ddt_alloc(L, sizeof(double) * 3 * (d1 + ic));
    for (long a = 1; a < na; ++a) ddt_alloc(L, sizeof(double) * (d1 + ic));
    L->idx = ddt_shuffle((int)ic, (int)d1, 42u);
    L->buf = MPI_BOTTOM;
    L->mktype = lammps_type, L->hand = lammps_hand;
}

/* ---- SPECFEM3D ------------------------------------------------------------ */
static int sf_oc_type(ddt *L, MPI_Datatype *t) {
    MPI_Type_create_indexed_block((int)L->p[0], 1, L->idx, MPI_FLOAT, t);
    return MPI_Type_commit(t);
}
static void sf_oc_hand(ddt *L, char *out, int unpack) {
    float *a = L->mem[0], *o = (float *)out;
    const long ic = L->p[0];
    if (unpack) for (long i = 0; i < ic; ++i) a[L->idx[i]] = o[i];
    else for (long i = 0; i < ic; ++i) o[i] = a[L->idx[i]];
}
static void make_sf_oc(ddt *L, long ic, long d1) {
    L->p[0] = ic;
    snprintf(L->name, sizeof L->name, "SPECFEM3D_oc/%ld", 4 * ic);
    L->klass = DDT_INDEX, L->bytes = (size_t)(4 * ic), L->blocks = ic;
    L->buf = ddt_alloc(L, sizeof(float) * d1);
    L->idx = ddt_shuffle((int)ic, (int)d1, 7u);
    L->mktype = sf_oc_type, L->hand = sf_oc_hand;
}
static int sf_cm_type(ddt *L, MPI_Datatype *t) {
    const int n1 = (int)L->p[0], n2 = (int)L->p[1];
    int *a = malloc(sizeof(int) * n1), *b = malloc(sizeof(int) * n2), bl[2] = {1, 1};
    MPI_Datatype ty[2];
    MPI_Aint disp[2];
    for (int i = 0; i < n1; ++i) a[i] = 3 * L->idx[i];
    for (int i = 0; i < n2; ++i) b[i] = 3 * L->idx2[i];
    MPI_Type_create_indexed_block(n1, 3, a, MPI_FLOAT, &ty[0]);
    MPI_Type_create_indexed_block(n2, 3, b, MPI_FLOAT, &ty[1]);
    MPI_Get_address(L->mem[0], &disp[0]);
    MPI_Get_address(L->mem[1], &disp[1]);
    ddt_place(L, disp, 2);
    MPI_Type_create_struct(2, bl, disp, ty, t);
    MPI_Type_free(&ty[0]), MPI_Type_free(&ty[1]);
    free(a), free(b);
    return MPI_Type_commit(t);
}
static void sf_cm_hand(ddt *L, char *out, int unpack) {
    float *o = (float *)out;
    for (int s = 0; s < 2; ++s) {
        float *f = L->mem[s];
        const int *idx = s ? L->idx2 : L->idx;
        const long n = L->p[s];
        if (unpack) {
            for (long i = 0; i < n; ++i, o += 3) {
                float *e = f + 3 * (long)idx[i];
                e[0] = o[0], e[1] = o[1], e[2] = o[2];
            }
        } else {
            for (long i = 0; i < n; ++i, o += 3) {
                const float *e = f + 3 * (long)idx[i];
                o[0] = e[0], o[1] = e[1], o[2] = e[2];
            }
        }
    }
}
static void make_sf_cm(ddt *L, long icm, long iic, long dcm, long dic) {
    L->p[0] = icm, L->p[1] = iic;
    snprintf(L->name, sizeof L->name, "SPECFEM3D_cm/%ld", 12 * (icm + iic));
    L->klass = DDT_INDEX, L->bytes = (size_t)(12 * (icm + iic)), L->blocks = icm + iic;
    ddt_alloc(L, sizeof(float) * 3 * dcm);
    ddt_alloc(L, sizeof(float) * 3 * dic);
    L->idx = ddt_shuffle((int)icm, (int)dcm, 11u);
    L->idx2 = ddt_shuffle((int)iic, (int)dic, 13u);
    L->buf = MPI_BOTTOM;
    L->mktype = sf_cm_type, L->hand = sf_cm_hand;
}
static int sf_mt_type(ddt *L, MPI_Datatype *t) {
    MPI_Datatype c;
    MPI_Type_contiguous(3, MPI_FLOAT, &c);
    MPI_Type_vector((int)L->p[0], 1, 2, c, t);
    MPI_Type_free(&c);
    return MPI_Type_commit(t);
}
static void sf_mt_hand(ddt *L, char *out, int unpack) {
    float *a = L->mem[0], *o = (float *)out;
    const long d3 = L->p[0];
    for (long k = 0; k < d3; ++k, o += 3) {
        float *e = a + 6 * k;
        if (unpack) e[0] = o[0], e[1] = o[1], e[2] = o[2];
        else o[0] = e[0], o[1] = e[1], o[2] = e[2];
    }
}
static void make_sf_mt(ddt *L, long d3) {
    L->p[0] = d3;
    snprintf(L->name, sizeof L->name, "SPECFEM3D_mt/%ld", 12 * d3);
    L->klass = DDT_SMALL, L->bytes = (size_t)(12 * d3);
    L->buf = ddt_alloc(L, sizeof(float) * 6 * d3);
    L->mktype = sf_mt_type, L->hand = sf_mt_hand;
}

/* ---- vector sweep: ~1 MiB of blocks of b doubles, stride 2b ------------- */
static int vec_type(ddt *L, MPI_Datatype *t) {
    MPI_Type_vector((int)L->p[1], (int)L->p[0], 2 * (int)L->p[0], MPI_DOUBLE, t);
    return MPI_Type_commit(t);
}
static void vec_hand(ddt *L, char *out, int unpack) {
    const long b = L->p[0], n = L->p[1];
    double *a = L->mem[0], *o = (double *)out;
    for (long i = 0; i < n; ++i)
        for (long j = 0; j < b; ++j) {
            if (unpack) a[2 * b * i + j] = *o++;
            else *o++ = a[2 * b * i + j];
        }
}
static void make_vec(ddt *L, long b) {
    const long n = (1 << 17) / b;
    L->p[0] = b, L->p[1] = n;
    snprintf(L->name, sizeof L->name, "vector_b%ld", b);
    L->klass = 8 * b >= 256 ? DDT_LARGE : DDT_OTHER;
    L->bytes = (size_t)(8 * b * n);
    L->buf = ddt_alloc(L, sizeof(double) * 2 * b * n);
    L->mktype = vec_type, L->hand = vec_hand;
}

/* ---- the catalogue: every layout at every listed size -------------------- */
static int ddt_make(int i, ddt *L) {
    static const long lu[] = {12, 33, 64, 102, 162, 408, 1020};
    static const long mg[][3] = {{34, 18, 18}, {130, 66, 66}, {258, 130, 130}, {514, 258, 258}};
    static const long milc[][4] = {{16, 16, 16, 16}, {8, 16, 16, 16}, {8, 8, 8, 16}, {8, 8, 8, 8}};
    static const long fft[] = {256, 512, 768, 1024, 1536};
    static const long wy[][3] = {{32, 52, 23}, {27, 41, 19}, {24, 34, 16}, {22, 30, 14}, {19, 24, 11}};
    static const long wx[][3] = {{32, 52, 44}, {24, 34, 26}, {19, 24, 16}};
    static const long lf[][2] = {{3062, 3534}, {2243, 2597}, {1662, 1907}};
    static const long la[][2] = {{243, 4084}, {145, 2157}, {114, 1217}};
    static const long oc[][2] = {{3225, 88881}, {1897, 38585}, {877, 12857}, {493, 3697}};
    static const long cm[][4] = {{11797, 3009, 834917, 51153}, {7125, 1729, 396849, 22477},
                                 {3801, 801, 152001, 7209}, {1957, 245, 39929, 1225}};
    static const long mt[] = {7600, 6400, 5600, 6200};
    static const long vb[] = {1, 2, 3, 5, 8, 16, 64, 512};
    memset(L, 0, sizeof *L);
    L->count = 1;
#define DDT_RANGE(n, stmt) \
    if (i < (n)) {         \
        stmt;              \
        return 1;          \
    }                      \
    i -= (n);
    DDT_RANGE(7, make_lu_y(L, lu[i]))
    DDT_RANGE(7, make_lu_x(L, lu[i]))
    DDT_RANGE(4, make_mg(L, 'x', mg[i][0], mg[i][1], mg[i][2]))
    DDT_RANGE(4, make_mg(L, 'y', mg[i][0], mg[i][1], mg[i][2]))
    DDT_RANGE(4, make_mg(L, 'z', mg[i][0], mg[i][1], mg[i][2]))
    DDT_RANGE(4, make_milc(L, milc[i][0], milc[i][1], milc[i][2], milc[i][3]))
    DDT_RANGE(5, make_fft(L, fft[i], 0))
    DDT_RANGE(5, make_fft(L, fft[i], 1))
    DDT_RANGE(5, make_wrf(L, 'y', 0, wy[i][0], wy[i][1], wy[i][2]))
    DDT_RANGE(3, make_wrf(L, 'x', 0, wx[i][0], wx[i][1], wx[i][2]))
    DDT_RANGE(5, make_wrf(L, 'y', 1, wy[i][0], wy[i][1], wy[i][2]))
    DDT_RANGE(3, make_wrf(L, 'x', 1, wx[i][0], wx[i][1], wx[i][2]))
    DDT_RANGE(3, make_lammps(L, 1, lf[i][0], lf[i][1]))
    DDT_RANGE(3, make_lammps(L, 0, la[i][0], la[i][1]))
    DDT_RANGE(4, make_sf_oc(L, oc[i][0], oc[i][1]))
    DDT_RANGE(4, make_sf_cm(L, cm[i][0], cm[i][1], cm[i][2], cm[i][3]))
    DDT_RANGE(4, make_sf_mt(L, mt[i]))
    DDT_RANGE(8, make_vec(L, vb[i]))
#undef DDT_RANGE
    return 0;
}
#endif /* DDT_LAYOUTS_H */
