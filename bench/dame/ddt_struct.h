/* SPDX-License-Identifier: MIT */
/* DDTBench layouts built as structs over several arrays: WRF halos (vector
 * and subarray forms), LAMMPS and SPECFEM3D index gathers. */
#ifndef DDT_STRUCT_H
#define DDT_STRUCT_H
#include "ddt_common.h"

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

#endif /* DDT_STRUCT_H */
