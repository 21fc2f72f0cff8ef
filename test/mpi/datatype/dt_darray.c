/* SPDX-License-Identifier: MIT */
/* MPI_Type_create_darray(_c): hand-worked distributions, then random ones
 * (1-4 dimensions, every distribution, default and explicit dargs, both
 * orders, every rank of the grid) against the definition: the packed
 * elements of a global array whose elements hold their own index must be
 * the owned indices in memory order, and every element must be owned by
 * exactly one rank. Also size, bounds, unpack, contents and every argument
 * error. Plain C. */
#include <stdint.h>
#include <string.h>

#include "dtcheck.h"
#include "darray_ref.h"

#define MAXD 4
#define MAXG 4096

static unsigned long long rng = 88172645463325252ull;
static int rnd(int n) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (int)(rng % (unsigned long long)n);
}

typedef struct {
    int size, ndims, order;
    int g[MAXD], dist[MAXD], darg[MAXD], p[MAXD];
} layout;

/* Owned linear indices of rank, in memory order; returns their number. */
static int reference(const layout* L, int rank, int* out) {
    int coord[MAXD], left = rank, total = 1, n = 0;
    for (int i = L->ndims - 1; i >= 0; --i) {
        coord[i] = left % L->p[i];
        left /= L->p[i];
    }
    for (int i = 0; i < L->ndims; ++i) total *= L->g[i];
    for (int lin = 0; lin < total; ++lin) {
        /* multi-index of the lin-th element in memory order */
        int rest = lin, ok = 1;
        for (int k = 0; k < L->ndims; ++k) {
            int i = L->order == MPI_ORDER_C ? L->ndims - 1 - k : k;
            int x = rest % L->g[i];
            rest /= L->g[i];
            ok = ok && darray_owns(L->dist[i], L->darg[i], L->g[i], L->p[i], coord[i], x);
        }
        if (ok) out[n++] = lin;
    }
    return n;
}

static int global[MAXG * 2], packed[MAXG * 2], want[MAXG], owner[MAXG], back[MAXG * 2];

/* Builds the type of every rank of L over oldtype MPI_INT (elems 1) or
 * contiguous(2, MPI_INT) (elems 2) and checks it against the reference. */
static void check_layout(const layout* L, int elems, int large, const char* what) {
    int total = 1;
    for (int i = 0; i < L->ndims; ++i) total *= L->g[i];
    for (int i = 0; i < total * elems; ++i) global[i] = i;
    for (int i = 0; i < total; ++i) owner[i] = -1;
    MPI_Datatype old = MPI_INT;
    if (elems == 2) OK(MPI_Type_contiguous(2, MPI_INT, &old));
    for (int r = 0; r < L->size; ++r) {
        MPI_Datatype t;
        if (large) {
            MPI_Count gc[MAXD];
            for (int i = 0; i < L->ndims; ++i) gc[i] = L->g[i];
            OK(MPI_Type_create_darray_c(L->size, r, L->ndims, gc, L->dist, L->darg, L->p, L->order, old, &t));
        } else {
            OK(MPI_Type_create_darray(L->size, r, L->ndims, L->g, L->dist, L->darg, L->p, L->order, old, &t));
        }
        OK(MPI_Type_commit(&t));
        const int n = reference(L, r, want);
        int size = -1;
        MPI_Aint lb = -1, extent = -1;
        OK(MPI_Type_size(t, &size));
        OK(MPI_Type_get_extent(t, &lb, &extent));
        EXPECT(size == n * elems * 4, "%s rank %d: size %d, want %d", what, r, size, n * elems * 4);
        EXPECT(lb == 0 && extent == (MPI_Aint)total * elems * 4, "%s rank %d: lb %ld extent %ld, want 0 %ld",
               what, r, (long)lb, (long)extent, (long)total * elems * 4);
        int pos = 0;
        OK(MPI_Pack(global, 1, t, packed, (int)sizeof packed, &pos, MPI_COMM_SELF));
        EXPECT(pos == n * elems * 4, "%s rank %d: packed %d bytes, want %d", what, r, pos, n * elems * 4);
        int bad = 0;
        for (int k = 0; k < n && !bad; ++k)
            for (int e = 0; e < elems; ++e)
                if (packed[k * elems + e] != want[k] * elems + e) {
                    EXPECT(0, "%s rank %d: packed element %d is %d, want %d", what, r, k * elems + e,
                           packed[k * elems + e], want[k] * elems + e);
                    bad = 1;
                    break;
                }
        for (int k = 0; k < n; ++k) {
            EXPECT(owner[want[k]] == -1, "%s: element %d owned by ranks %d and %d", what, want[k],
                   owner[want[k]], r);
            owner[want[k]] = r;
        }
        /* unpack into a cleared array: exactly the owned elements come back */
        memset(back, 0xFF, sizeof(int) * (size_t)(total * elems));
        pos = 0;
        OK(MPI_Unpack(packed, n * elems * 4, &pos, back, 1, t, MPI_COMM_SELF));
        for (int k = 0, i = 0; i < total && !bad; ++i) {
            int mine = k < n && want[k] == i;
            for (int e = 0; e < elems; ++e) {
                int v = back[i * elems + e];
                if (mine ? v != i * elems + e : v != -1) {
                    EXPECT(0, "%s rank %d: unpacked element %d is %d", what, r, i * elems + e, v);
                    bad = 1;
                }
            }
            k += mine;
        }
        OK(MPI_Type_free(&t));
    }
    for (int i = 0; i < total; ++i) EXPECT(owner[i] >= 0, "%s: element %d owned by no rank", what, i);
    if (elems == 2) OK(MPI_Type_free(&old));
}

/* The contents report the arguments exactly. */
static void check_contents(void) {
    int g[3] = {10, 7, 5}, dist[3] = {MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_NONE, MPI_DISTRIBUTE_BLOCK};
    int darg[3] = {3, MPI_DISTRIBUTE_DFLT_DARG, 3}, p[3] = {2, 1, 2};
    MPI_Datatype t, types[1];
    OK(MPI_Type_create_darray(4, 3, 3, g, dist, darg, p, MPI_ORDER_FORTRAN, MPI_DOUBLE, &t));
    int ni, na, nd, comb, ints[16];
    MPI_Aint aints[1];
    OK(MPI_Type_get_envelope(t, &ni, &na, &nd, &comb));
    EXPECT(comb == MPI_COMBINER_DARRAY && ni == 16 && na == 0 && nd == 1, "envelope %d %d %d %d", comb, ni, na, nd);
    OK(MPI_Type_get_contents(t, 16, 0, 1, ints, aints, types));
    int expect[16] = {4, 3, 3, 10, 7, 5, MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_NONE, MPI_DISTRIBUTE_BLOCK,
                      3, MPI_DISTRIBUTE_DFLT_DARG, 3, 2, 1, 2, MPI_ORDER_FORTRAN};
    EXPECT(memcmp(ints, expect, sizeof expect) == 0, "darray contents differ");
    EXPECT(types[0] == MPI_DOUBLE, "darray oldtype differs");
    OK(MPI_Type_free(&t));

    MPI_Count gc[3] = {10, 7, 5}, cnts[3], nc, nic, nac, ndc;
    OK(MPI_Type_create_darray_c(4, 3, 3, gc, dist, darg, p, MPI_ORDER_FORTRAN, MPI_DOUBLE, &t));
    OK(MPI_Type_get_envelope_c(t, &nic, &nac, &nc, &ndc, &comb));
    EXPECT(comb == MPI_COMBINER_DARRAY && nic == 13 && nac == 0 && nc == 3 && ndc == 1,
           "envelope_c %d %lld %lld %lld %lld", comb, (long long)nic, (long long)nac, (long long)nc,
           (long long)ndc);
    OK(MPI_Type_get_contents_c(t, 13, 0, 3, 1, ints, aints, cnts, types));
    int expect_c[13] = {4, 3, 3, MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_NONE, MPI_DISTRIBUTE_BLOCK,
                        3, MPI_DISTRIBUTE_DFLT_DARG, 3, 2, 1, 2, MPI_ORDER_FORTRAN};
    EXPECT(memcmp(ints, expect_c, sizeof expect_c) == 0, "darray_c contents differ");
    EXPECT(cnts[0] == 10 && cnts[1] == 7 && cnts[2] == 5, "darray_c gsizes differ");
    OK(MPI_Type_free(&t));
}

static void check_errors(void) {
    int g[2] = {8, 6}, dist[2] = {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC};
    int darg[2] = {MPI_DISTRIBUTE_DFLT_DARG, 2}, p[2] = {2, 3};
    MPI_Datatype t = MPI_DATATYPE_NULL;
#define DA(size, rank, nd, gs, ds, as, ps, ord, old) MPI_Type_create_darray(size, rank, nd, gs, ds, as, ps, ord, old, &t)
    EXPECT_CLASS(DA(0, 0, 2, g, dist, darg, p, MPI_ORDER_C, MPI_INT), MPI_ERR_ARG);
    EXPECT_CLASS(DA(6, 6, 2, g, dist, darg, p, MPI_ORDER_C, MPI_INT), MPI_ERR_ARG);
    EXPECT_CLASS(DA(6, -1, 2, g, dist, darg, p, MPI_ORDER_C, MPI_INT), MPI_ERR_ARG);
    EXPECT_CLASS(DA(6, 0, 0, g, dist, darg, p, MPI_ORDER_C, MPI_INT), MPI_ERR_ARG);
    EXPECT_CLASS(DA(5, 0, 2, g, dist, darg, p, MPI_ORDER_C, MPI_INT), MPI_ERR_ARG); /* grid is 6 */
    EXPECT_CLASS(DA(6, 0, 2, NULL, dist, darg, p, MPI_ORDER_C, MPI_INT), MPI_ERR_ARG);
    EXPECT_CLASS(DA(6, 0, 2, g, NULL, darg, p, MPI_ORDER_C, MPI_INT), MPI_ERR_ARG);
    EXPECT_CLASS(DA(6, 0, 2, g, dist, NULL, p, MPI_ORDER_C, MPI_INT), MPI_ERR_ARG);
    EXPECT_CLASS(DA(6, 0, 2, g, dist, darg, NULL, MPI_ORDER_C, MPI_INT), MPI_ERR_ARG);
    EXPECT_CLASS(DA(6, 0, 2, g, dist, darg, p, 3, MPI_INT), MPI_ERR_ARG);
    EXPECT_CLASS(DA(6, 0, 2, g, dist, darg, p, MPI_ORDER_C, MPI_DATATYPE_NULL), MPI_ERR_TYPE);
    EXPECT_CLASS(MPI_Type_create_darray(6, 0, 2, g, dist, darg, p, MPI_ORDER_C, MPI_INT, NULL), MPI_ERR_ARG);
    int g0[2] = {8, 0};
    EXPECT_CLASS(DA(6, 0, 2, g0, dist, darg, p, MPI_ORDER_C, MPI_INT), MPI_ERR_ARG);
    int p0[2] = {0, 3};
    EXPECT_CLASS(DA(6, 0, 2, g, dist, darg, p0, MPI_ORDER_C, MPI_INT), MPI_ERR_ARG);
    int dbad[2] = {MPI_DISTRIBUTE_BLOCK, 99};
    EXPECT_CLASS(DA(6, 0, 2, g, dbad, darg, p, MPI_ORDER_C, MPI_INT), MPI_ERR_ARG);
    int aneg[2] = {MPI_DISTRIBUTE_DFLT_DARG, -2};
    EXPECT_CLASS(DA(6, 0, 2, g, dist, aneg, p, MPI_ORDER_C, MPI_INT), MPI_ERR_ARG);
    int ablk[2] = {3, 2}; /* blocks of 3 on 2 processes do not cover 8 */
    EXPECT_CLASS(DA(6, 0, 2, g, dist, ablk, p, MPI_ORDER_C, MPI_INT), MPI_ERR_ARG);
    int dnone[2] = {MPI_DISTRIBUTE_NONE, MPI_DISTRIBUTE_CYCLIC}; /* none on 2 processes */
    EXPECT_CLASS(DA(6, 0, 2, g, dnone, darg, p, MPI_ORDER_C, MPI_INT), MPI_ERR_ARG);
    EXPECT(t == MPI_DATATYPE_NULL, "a failed call set newtype");
    /* a type whose size overflows 64 bits */
    MPI_Count gh[2] = {(MPI_Count)1 << 40, (MPI_Count)1 << 40};
    int d1[2] = {MPI_DISTRIBUTE_NONE, MPI_DISTRIBUTE_NONE}, a1[2] = {MPI_DISTRIBUTE_DFLT_DARG, MPI_DISTRIBUTE_DFLT_DARG};
    int p1[2] = {1, 1};
    int c = dt_class(MPI_Type_create_darray_c(1, 0, 2, gh, d1, a1, p1, MPI_ORDER_C, MPI_INT, &t));
    EXPECT(c != MPI_SUCCESS, "a darray of 2^80 elements was accepted");
#undef DA
}

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

    /* hand-worked: 10 elements on 3 processes */
    {
        int g = 10, p = 3, d = MPI_DISTRIBUTE_BLOCK, a = MPI_DISTRIBUTE_DFLT_DARG;
        static const int blk[3][4] = {{0, 1, 2, 3}, {4, 5, 6, 7}, {8, 9, -1, -1}};
        static const int cyc2[3][4] = {{0, 1, 6, 7}, {2, 3, 8, 9}, {4, 5, -1, -1}};
        for (int r = 0; r < 3; ++r) {
            for (int which = 0; which < 2; ++which) {
                MPI_Datatype t;
                int vals[10], sz, pos = 0, src[10];
                for (int i = 0; i < 10; ++i) src[i] = i;
                d = which ? MPI_DISTRIBUTE_CYCLIC : MPI_DISTRIBUTE_BLOCK;
                a = which ? 2 : MPI_DISTRIBUTE_DFLT_DARG;
                OK(MPI_Type_create_darray(3, r, 1, &g, &d, &a, &p, MPI_ORDER_C, MPI_INT, &t));
                OK(MPI_Type_commit(&t));
                OK(MPI_Type_size(t, &sz));
                OK(MPI_Pack(src, 1, t, vals, sizeof vals, &pos, MPI_COMM_SELF));
                const int* w = which ? cyc2[r] : blk[r];
                int n = w[3] < 0 ? 2 : 4;
                EXPECT(sz == 4 * n, "1-D %s rank %d: size %d", which ? "cyclic(2)" : "block", r, sz);
                for (int k = 0; k < n; ++k)
                    EXPECT(vals[k] == w[k], "1-D %s rank %d: element %d is %d, want %d",
                           which ? "cyclic(2)" : "block", r, k, vals[k], w[k]);
                OK(MPI_Type_free(&t));
            }
        }
    }
    /* hand-worked: a 4 x 6 C-order array, block x cyclic on a 2 x 2 grid;
     * rank 1 is grid row 0, column 1: rows 0-1, columns 1, 3, 5 */
    {
        int g[2] = {4, 6}, d[2] = {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC};
        int a[2] = {MPI_DISTRIBUTE_DFLT_DARG, MPI_DISTRIBUTE_DFLT_DARG}, p[2] = {2, 2};
        int src[24], vals[24], pos = 0;
        for (int i = 0; i < 24; ++i) src[i] = i;
        MPI_Datatype t;
        OK(MPI_Type_create_darray(4, 1, 2, g, d, a, p, MPI_ORDER_C, MPI_INT, &t));
        OK(MPI_Type_commit(&t));
        OK(MPI_Pack(src, 1, t, vals, sizeof vals, &pos, MPI_COMM_SELF));
        static const int w[6] = {1, 3, 5, 7, 9, 11};
        EXPECT(pos == 24, "2-D: packed %d bytes", pos);
        for (int k = 0; k < 6; ++k) EXPECT(vals[k] == w[k], "2-D: element %d is %d, want %d", k, vals[k], w[k]);
        OK(MPI_Type_free(&t));
        /* the same in Fortran order: dimension 0 (4) varies fastest, so
         * rows 0-1 of each of the columns 1, 3, 5 lie at 4*col + row */
        OK(MPI_Type_create_darray(4, 1, 2, g, d, a, p, MPI_ORDER_FORTRAN, MPI_INT, &t));
        OK(MPI_Type_commit(&t));
        pos = 0;
        OK(MPI_Pack(src, 1, t, vals, sizeof vals, &pos, MPI_COMM_SELF));
        static const int wf[6] = {4, 5, 12, 13, 20, 21};
        for (int k = 0; k < 6; ++k) EXPECT(vals[k] == wf[k], "2-D Fortran: element %d is %d, want %d", k, vals[k], wf[k]);
        OK(MPI_Type_free(&t));
    }

    /* random layouts */
    char what[160];
    for (int it = 0; it < 400; ++it) {
        layout L;
        memset(&L, 0, sizeof L);
        L.ndims = 1 + rnd(MAXD);
        L.order = rnd(2) ? MPI_ORDER_C : MPI_ORDER_FORTRAN;
        L.size = 1;
        int total = 1;
        for (int i = 0; i < L.ndims; ++i) {
            L.g[i] = 1 + rnd(L.ndims > 2 ? 7 : 13);
            static const int kinds[3] = {MPI_DISTRIBUTE_NONE, MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC};
            L.dist[i] = kinds[rnd(3)];
            L.p[i] = L.dist[i] == MPI_DISTRIBUTE_NONE ? 1 : 1 + rnd(3);
            L.darg[i] = rnd(3) ? MPI_DISTRIBUTE_DFLT_DARG : 1 + rnd(4);
            if (L.dist[i] == MPI_DISTRIBUTE_BLOCK && L.darg[i] != MPI_DISTRIBUTE_DFLT_DARG &&
                L.darg[i] * L.p[i] < L.g[i])
                L.darg[i] = (L.g[i] + L.p[i] - 1) / L.p[i] + rnd(2);
            L.size *= L.p[i];
            total *= L.g[i];
        }
        if (total > MAXG) continue;
        snprintf(what, sizeof what, "layout %d (ndims %d, %s, g %d %d %d %d, dist %d %d %d %d, darg %d %d %d %d, p %d %d %d %d)",
                 it, L.ndims, L.order == MPI_ORDER_C ? "C" : "Fortran", L.g[0], L.g[1], L.g[2], L.g[3],
                 L.dist[0], L.dist[1], L.dist[2], L.dist[3], L.darg[0], L.darg[1], L.darg[2], L.darg[3],
                 L.p[0], L.p[1], L.p[2], L.p[3]);
        check_layout(&L, 1 + it % 2, it % 3 == 0, what);
        if (dt_failures > 20) break;
    }
    check_contents();
    check_errors();
    return dt_finish("dt_darray");
}
