/* SPDX-License-Identifier: MIT */
/* MPI_Type_create_f90_integer / _real / _complex: the kind each (p, r)
 * selects (gfortran's on x86-64), the envelope and contents, one handle per
 * arguments, no MPI_Type_free, every error, and the types in use: pack,
 * external32, a message, a reduction, MPI_Fetch_and_op and MPI_Compare_and_swap. */
#include <stdint.h>
#include <string.h>

#include "dtcheck.h"

#define U MPI_UNDEFINED

static MPI_Count size_of(MPI_Datatype t) {
    MPI_Count s = -1;
    OK(MPI_Type_size_c(t, &s));
    return s;
}

/* The combiner and integers the envelope and contents report. */
static void check_contents(MPI_Datatype t, int comb, int n, int p, int r, const char* what) {
    int ni = -1, na = -1, nd = -1, c = -1, ints[2] = {-7, -7};
    OK(MPI_Type_get_envelope(t, &ni, &na, &nd, &c));
    EXPECT(c == comb && ni == n && na == 0 && nd == 0, "%s: envelope combiner %d ni %d na %d nd %d", what, c,
           ni, na, nd);
    OK(MPI_Type_get_contents(t, 2, 0, 0, ints, NULL, NULL));
    if (n == 1) EXPECT(ints[0] == r, "%s: contents r %d, want %d", what, ints[0], r);
    else EXPECT(ints[0] == p && ints[1] == r, "%s: contents %d %d, want %d %d", what, ints[0], ints[1], p, r);
}

static void kinds(void) {
    static const struct { int r; MPI_Count size; } ik[] = {
        {-5, 1}, {0, 1}, {2, 1}, {3, 2}, {4, 2}, {5, 4}, {9, 4}, {10, 8}, {18, 8}, {19, 16}, {38, 16}};
    for (size_t i = 0; i < sizeof ik / sizeof ik[0]; ++i) {
        MPI_Datatype t = MPI_DATATYPE_NULL;
        OK(MPI_Type_create_f90_integer(ik[i].r, &t));
        EXPECT(size_of(t) == ik[i].size, "f90 integer r=%d: size %lld, want %lld", ik[i].r,
               (long long)size_of(t), (long long)ik[i].size);
        check_contents(t, MPI_COMBINER_F90_INTEGER, 1, 0, ik[i].r, "f90 integer");
    }
    static const struct { int p, r; MPI_Count size; } rk[] = {
        {6, U, 4}, {U, 37, 4}, {6, 37, 4}, {0, 0, 4}, {7, U, 8}, {U, 38, 8}, {15, 307, 8},
        {6, 300, 8}, {16, U, 16}, {U, 308, 16}, {33, 4931, 16}, {-3, U, 4}};
    for (size_t i = 0; i < sizeof rk / sizeof rk[0]; ++i) {
        MPI_Datatype t = MPI_DATATYPE_NULL, c = MPI_DATATYPE_NULL;
        OK(MPI_Type_create_f90_real(rk[i].p, rk[i].r, &t));
        OK(MPI_Type_create_f90_complex(rk[i].p, rk[i].r, &c));
        EXPECT(size_of(t) == rk[i].size && size_of(c) == 2 * rk[i].size,
               "f90 real/complex p=%d r=%d: sizes %lld %lld, want %lld and twice that", rk[i].p, rk[i].r,
               (long long)size_of(t), (long long)size_of(c), (long long)rk[i].size);
        check_contents(t, MPI_COMBINER_F90_REAL, 2, rk[i].p, rk[i].r, "f90 real");
        check_contents(c, MPI_COMBINER_F90_COMPLEX, 2, rk[i].p, rk[i].r, "f90 complex");
        MPI_Aint lb = -1, ext = -1;
        OK(MPI_Type_get_extent(c, &lb, &ext));
        EXPECT(lb == 0 && ext == 2 * rk[i].size, "f90 complex extent %ld", (long)ext);
    }
}

/* The same arguments give the same handle; it cannot be freed, and stays
 * usable; a dup of it is an ordinary type whose contents name it. */
static void handles(void) {
    MPI_Datatype a, b, c, d;
    OK(MPI_Type_create_f90_real(15, U, &a));
    OK(MPI_Type_create_f90_real(15, U, &b));
    OK(MPI_Type_create_f90_real(U, 307, &c));
    EXPECT(a == b, "the same (p, r) gave two handles");
    EXPECT(size_of(c) == size_of(a), "(15, U) and (U, 307) select the same kind");
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    MPI_Datatype keep = a;
    int rc = MPI_Type_free(&a), len = 0;
    char msg[MPI_MAX_ERROR_STRING] = "";
    MPI_Error_string(rc, msg, &len);
    EXPECT(dt_class(rc) == MPI_ERR_TYPE && a == keep, "MPI_Type_free of an f90 type: class %d", dt_class(rc));
    EXPECT(strstr(msg, "MPI_Type_free") && strstr(msg, "f90"), "message: %s", msg);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL);
    OK(MPI_Type_dup(a, &d));
    int ni, na, nd, comb;
    OK(MPI_Type_get_envelope(d, &ni, &na, &nd, &comb));
    EXPECT(comb == MPI_COMBINER_DUP && nd == 1, "dup of an f90 type: combiner %d", comb);
    MPI_Datatype inner = MPI_DATATYPE_NULL;
    OK(MPI_Type_get_contents(d, 0, 0, 1, NULL, NULL, &inner));
    EXPECT(inner == a, "the dup's contents name the f90 handle itself");
    OK(MPI_Type_free(&d));
    EXPECT(size_of(a) == 8, "the f90 type after the free attempt and a dup's free");
}

static void errors(void) {
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    MPI_Datatype t = MPI_DATATYPE_NULL;
    EXPECT_CLASS(MPI_Type_create_f90_integer(39, &t), MPI_ERR_ARG);
    EXPECT_CLASS(MPI_Type_create_f90_integer(U, &t), MPI_ERR_ARG);
    EXPECT_CLASS(MPI_Type_create_f90_integer(4, NULL), MPI_ERR_ARG);
    EXPECT_CLASS(MPI_Type_create_f90_real(34, U, &t), MPI_ERR_ARG);
    EXPECT_CLASS(MPI_Type_create_f90_real(U, 4932, &t), MPI_ERR_ARG);
    EXPECT_CLASS(MPI_Type_create_f90_real(U, U, &t), MPI_ERR_ARG);
    EXPECT_CLASS(MPI_Type_create_f90_complex(40, 10, &t), MPI_ERR_ARG);
    EXPECT_CLASS(MPI_Type_create_f90_complex(6, 37, NULL), MPI_ERR_ARG);
    EXPECT(t == MPI_DATATYPE_NULL, "a failed call wrote newtype");
    int rc = MPI_Type_create_f90_real(34, U, &t), len = 0;
    char msg[MPI_MAX_ERROR_STRING] = "";
    MPI_Error_string(rc, msg, &len);
    EXPECT(strstr(msg, "MPI_Type_create_f90_real") && strstr(msg, "precision 34"), "message: %s", msg);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL);
    OK(MPI_Type_create_f90_real(6, U, &t)); /* still usable */
}

/* Packs like the named type of its kind; moves between ranks; reduces. */
static void in_use(int rank, int size) {
    MPI_Datatype r8, i4, c16;
    OK(MPI_Type_create_f90_real(12, 200, &r8));
    OK(MPI_Type_create_f90_integer(7, &i4));
    OK(MPI_Type_create_f90_complex(15, U, &c16));
    double v[3] = {1.5, -2.25, 1e300}, w[3] = {0, 0, 0};
    char p1[64], p2[64];
    int pos1 = 0, pos2 = 0;
    OK(MPI_Pack(v, 3, r8, p1, sizeof p1, &pos1, MPI_COMM_WORLD));
    OK(MPI_Pack(v, 3, MPI_REAL8, p2, sizeof p2, &pos2, MPI_COMM_WORLD));
    EXPECT(pos1 == 24 && pos2 == 24 && memcmp(p1, p2, 24) == 0, "f90 real packs as MPI_REAL8");
    pos1 = 0;
    OK(MPI_Unpack(p1, 24, &pos1, w, 3, r8, MPI_COMM_WORLD));
    EXPECT(w[0] == 1.5 && w[1] == -2.25 && w[2] == 1e300, "f90 real unpack");
    MPI_Aint e1 = 0, e2 = 0;
    OK(MPI_Pack_external("external32", v, 3, r8, p1, sizeof p1, &e1));
    OK(MPI_Pack_external("external32", v, 3, MPI_REAL8, p2, sizeof p2, &e2));
    EXPECT(e1 == 24 && e2 == 24 && memcmp(p1, p2, 24) == 0 && (unsigned char)p1[0] == 0x3f,
           "f90 real in external32 as MPI_REAL8 (big-endian)");
    if (size > 1) {
        double z[4] = {rank + 0.5, -rank, 3, 4}, got[4] = {0};
        MPI_Status st;
        if (rank == 0) OK(MPI_Send(z, 2, c16, 1, 7, MPI_COMM_WORLD));
        if (rank == 1) {
            OK(MPI_Recv(got, 2, c16, 0, 7, MPI_COMM_WORLD, &st));
            EXPECT(got[0] == 0.5 && got[1] == 0 && got[2] == 3 && got[3] == 4, "f90 complex message");
            int n = -1;
            OK(MPI_Get_count(&st, c16, &n));
            EXPECT(n == 2, "Get_count of 2 f90 complex: %d", n);
        }
    }
    int32_t x = rank + 1, sum = 0;
    OK(MPI_Allreduce(&x, &sum, 1, i4, MPI_SUM, MPI_COMM_WORLD));
    EXPECT(sum == size * (size + 1) / 2, "Allreduce SUM over f90 integer: %d", (int)sum);
    double m = rank, mx = -1;
    OK(MPI_Allreduce(&m, &mx, 1, r8, MPI_MAX, MPI_COMM_WORLD));
    EXPECT(mx == size - 1, "Allreduce MAX over f90 real: %g", mx);
    /* MPI counts them as predefined: the one-element atomics take them. */
    int32_t* base = NULL;
    MPI_Win win;
    OK(MPI_Win_allocate(sizeof(int32_t), sizeof(int32_t), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win));
    *base = 100;
    OK(MPI_Win_fence(0, win));
    int32_t one = 1, old = -1, cmp = 100 + size, repl = -5, prev = -1;
    OK(MPI_Fetch_and_op(&one, &old, i4, 0, 0, MPI_SUM, win));
    OK(MPI_Win_fence(0, win));
    if (rank == 0) OK(MPI_Compare_and_swap(&repl, &cmp, &prev, i4, 0, 0, win));
    OK(MPI_Win_fence(0, win));
    EXPECT(old >= 100 && old < 100 + size, "Fetch_and_op with an f90 integer fetched %d", (int)old);
    if (rank == 0) {
        EXPECT(prev == 100 + size, "Compare_and_swap saw %d, want %d", (int)prev, 100 + size);
        EXPECT(*base == -5, "Compare_and_swap with an f90 integer left %d", (int)*base);
    }
    OK(MPI_Win_free(&win));
}

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    kinds();
    handles();
    errors();
    in_use(rank, size);
    return dt_finish("dt_f90");
}
