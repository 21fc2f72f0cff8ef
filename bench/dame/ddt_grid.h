/* SPDX-License-Identifier: MIT */
/* DDTBench layouts on regular grids: NAS LU and MG faces, MILC, FFT2, and
 * the vector sweep (datatype constructions and hand loops). */
#ifndef DDT_GRID_H
#define DDT_GRID_H
#include "ddt_common.h"

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

#endif /* DDT_GRID_H */
