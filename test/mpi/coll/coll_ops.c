/* SPDX-License-Identifier: MIT */
/* Every predefined op on every predefined type it applies to (Allreduce,
 * plus Reduce/Scan for some), MINLOC/MAXLOC on every pair type, REPLACE and
 * NO_OP in rank order, user ops (commutative, non-commutative 2x2 matrix
 * products applied in rank order, the _c form, a noncontiguous type), and
 * MPI_ERR_OP for every op/type pair MPI does not define. */
#include <complex.h>
#include <stdbool.h>
#include <stdint.h>

#include "mpitest.h"

enum { N = 37 };
static int me, np;
/* The function an Allreduce error message names (nbc_ops.c runs these
 * checks through MPI_Iallreduce and MPI_Allreduce_init). */
#ifndef ALLREDUCE_NAME
#define ALLREDUCE_NAME "MPI_Allreduce"
#endif

/* Small values so sums and products stay exact; some zeros for LAND/LOR. */
static int val(int rank, int i) { return ((rank + 1) * (i + 3) + i / 4) % 5 - (i % 7 == 0 ? 0 : 0); }
static int pval(int rank, int i) { return 1 + ((rank + i) % 3 == 0); } /* 1 or 2 */

#define APPLY_INT(op, a, b)                                                                   \
    ((op) == MPI_SUM    ? (a) + (b)                                                           \
     : (op) == MPI_PROD ? (a) * (b)                                                           \
     : (op) == MPI_MIN  ? ((a) < (b) ? (a) : (b))                                             \
     : (op) == MPI_MAX  ? ((a) > (b) ? (a) : (b))                                             \
     : (op) == MPI_LAND ? ((a) && (b))                                                        \
     : (op) == MPI_LOR  ? ((a) || (b))                                                        \
     : (op) == MPI_LXOR ? (!(a) != !(b))                                                      \
     : (op) == MPI_BAND ? ((a) & (b))                                                         \
     : (op) == MPI_BOR  ? ((a) | (b))                                                         \
                        : ((a) ^ (b)))
#define APPLY_REAL(op, a, b)                                                                  \
    ((op) == MPI_SUM ? (a) + (b) : (op) == MPI_PROD ? (a) * (b)                               \
     : (op) == MPI_MIN ? ((a) < (b) ? (a) : (b)) : ((a) > (b) ? (a) : (b)))

/* Allreduce (all ops), Reduce to the last rank and Scan (first op only). */
#define DEFINE_CHECK(NAME, T, APPLY, VAL)                                                     \
    static void NAME(MPI_Datatype dt, const char* tn, const MPI_Op* ops, int nops) {         \
        T in[N], out[N], want[N];                                                             \
        for (int k = 0; k < nops; ++k) {                                                      \
            const MPI_Op op = ops[k];                                                         \
            for (int i = 0; i < N; ++i)                                                       \
                in[i] = (T)(op == MPI_PROD ? pval(me, i) : VAL(me, i)), out[i] = (T)99;       \
            CHECK_MPI(MPI_Allreduce(in, out, N, dt, op, MPI_COMM_WORLD));                     \
            for (int i = 0; i < N; ++i) {                                                     \
                want[i] = (T)(op == MPI_PROD ? pval(0, i) : VAL(0, i));                       \
                for (int q = 1; q < np; ++q) {                                                \
                    T x = (T)(op == MPI_PROD ? pval(q, i) : VAL(q, i));                       \
                    want[i] = (T)APPLY(op, want[i], x);                                       \
                }                                                                             \
                CHECK(out[i] == want[i], "Allreduce %s op #%d [%d]", tn, k, i);               \
            }                                                                                 \
            if (k == 0) {                                                                     \
                CHECK_MPI(MPI_Reduce(in, out, N, dt, op, np - 1, MPI_COMM_WORLD));            \
                if (me == np - 1)                                                             \
                    for (int i = 0; i < N; ++i) CHECK(out[i] == want[i], "Reduce %s [%d]", tn, i); \
                CHECK_MPI(MPI_Scan(in, out, N, dt, op, MPI_COMM_WORLD));                      \
                for (int i = 0; i < N; ++i) {                                                 \
                    T w = (T)(op == MPI_PROD ? pval(0, i) : VAL(0, i));                       \
                    for (int q = 1; q <= me; ++q)                                             \
                        w = (T)APPLY(op, w, (T)(op == MPI_PROD ? pval(q, i) : VAL(q, i)));    \
                    CHECK(out[i] == w, "Scan %s [%d]", tn, i);                                \
                }                                                                             \
            }                                                                                 \
        }                                                                                     \
    }

#define SVAL(r, i) (val(r, i) - 2) /* signed values, negative too */
DEFINE_CHECK(chk_short, short, APPLY_INT, SVAL)
DEFINE_CHECK(chk_int, int, APPLY_INT, SVAL)
DEFINE_CHECK(chk_long, long, APPLY_INT, SVAL)
DEFINE_CHECK(chk_llong, long long, APPLY_INT, SVAL)
DEFINE_CHECK(chk_schar, signed char, APPLY_INT, SVAL)
DEFINE_CHECK(chk_i8, int8_t, APPLY_INT, SVAL)
DEFINE_CHECK(chk_i16, int16_t, APPLY_INT, SVAL)
DEFINE_CHECK(chk_i64, int64_t, APPLY_INT, SVAL)
DEFINE_CHECK(chk_ushort, unsigned short, APPLY_INT, val)
DEFINE_CHECK(chk_uint, unsigned, APPLY_INT, val)
DEFINE_CHECK(chk_ulong, unsigned long, APPLY_INT, val)
DEFINE_CHECK(chk_ullong, unsigned long long, APPLY_INT, val)
DEFINE_CHECK(chk_uchar, unsigned char, APPLY_INT, val)
DEFINE_CHECK(chk_u8, uint8_t, APPLY_INT, val)
DEFINE_CHECK(chk_u16, uint16_t, APPLY_INT, val)
DEFINE_CHECK(chk_u32, uint32_t, APPLY_INT, val)
DEFINE_CHECK(chk_u64, uint64_t, APPLY_INT, val)
DEFINE_CHECK(chk_float, float, APPLY_REAL, SVAL)
DEFINE_CHECK(chk_double, double, APPLY_REAL, SVAL)
DEFINE_CHECK(chk_ldouble, long double, APPLY_REAL, SVAL)
#define APPLY_CPLX(op, a, b) ((op) == MPI_SUM ? (a) + (b) : (a) * (b))
#define CVAL(r, i) (SVAL(r, i) + (val(r, i + 1) - 1) * I)
DEFINE_CHECK(chk_fcplx, float _Complex, APPLY_CPLX, CVAL)
DEFINE_CHECK(chk_dcplx, double _Complex, APPLY_CPLX, CVAL)
DEFINE_CHECK(chk_ldcplx, long double _Complex, APPLY_CPLX, CVAL)
#define APPLY_LOG(op, a, b) ((op) == MPI_LAND ? ((a) && (b)) : (op) == MPI_LOR ? ((a) || (b)) : (!(a) != !(b)))
#define BVAL(r, i) ((val(r, i) + r) % 3 != 0)
DEFINE_CHECK(chk_bool, bool, APPLY_LOG, BVAL)
#define LVAL(r, i) (((val(r, i) + r) % 3 != 0) * (1 + r))
DEFINE_CHECK(chk_logical, int, APPLY_LOG, LVAL)
#define APPLY_BITS(op, a, b) ((op) == MPI_BAND ? ((a) & (b)) : (op) == MPI_BOR ? ((a) | (b)) : ((a) ^ (b)))
#define XVAL(r, i) ((r * 37 + i * 11) & 0xff)
DEFINE_CHECK(chk_byte, unsigned char, APPLY_BITS, XVAL)

static const MPI_Op int_ops[] = {MPI_SUM, MPI_PROD, MPI_MIN, MPI_MAX, MPI_LAND,
                                 MPI_LOR, MPI_LXOR, MPI_BAND, MPI_BOR, MPI_BXOR};
static const MPI_Op fint_ops[] = {MPI_SUM, MPI_PROD, MPI_MIN, MPI_MAX, MPI_BAND, MPI_BOR, MPI_BXOR};
static const MPI_Op real_ops[] = {MPI_SUM, MPI_PROD, MPI_MIN, MPI_MAX};
static const MPI_Op cplx_ops[] = {MPI_SUM, MPI_PROD};
static const MPI_Op log_ops[] = {MPI_LAND, MPI_LOR, MPI_LXOR};
static const MPI_Op bit_ops[] = {MPI_BAND, MPI_BOR, MPI_BXOR};

/* MINLOC / MAXLOC on a pair type: ties resolved to the smaller index. */
#define DEFINE_PAIR(NAME, V, IDX)                                                             \
    static void NAME(MPI_Datatype dt, const char* tn) {                                       \
        struct { V v; IDX i; } in[N], out[N];                                                 \
        for (int o = 0; o < 2; ++o) {                                                         \
            const MPI_Op op = o ? MPI_MAXLOC : MPI_MINLOC;                                    \
            for (int k = 0; k < N; ++k) in[k].v = (V)val(me, k), in[k].i = (IDX)(me * 3 + k % 2); \
            CHECK_MPI(MPI_Allreduce(in, out, N, dt, op, MPI_COMM_WORLD));                     \
            for (int k = 0; k < N; ++k) {                                                     \
                V bv = (V)val(0, k);                                                          \
                IDX bi = (IDX)(k % 2);                                                        \
                for (int q = 1; q < np; ++q) {                                                \
                    V x = (V)val(q, k);                                                       \
                    IDX xi = (IDX)(q * 3 + k % 2);                                            \
                    if (o ? x > bv : x < bv) bv = x, bi = xi;                                 \
                    else if (x == bv && xi < bi) bi = xi;                                     \
                }                                                                             \
                CHECK(out[k].v == bv && out[k].i == bi, "%s %s [%d]", o ? "MAXLOC" : "MINLOC", tn, k); \
            }                                                                                 \
        }                                                                                     \
    }
DEFINE_PAIR(chk_float_int, float, int)
DEFINE_PAIR(chk_double_int, double, int)
DEFINE_PAIR(chk_long_int, long, int)
DEFINE_PAIR(chk_2int, int, int)
DEFINE_PAIR(chk_short_int, short, int)
DEFINE_PAIR(chk_ldouble_int, long double, int)
DEFINE_PAIR(chk_2real, float, float)
DEFINE_PAIR(chk_2dp, double, double)

/* ---- user ops ---- */
typedef struct { int a, b, c, d; } mat; /* 2x2 matrices mod 1000: associative, not commutative */
static mat mul(mat x, mat y) {
    mat r = {(x.a * y.a + x.b * y.c) % 1000, (x.a * y.b + x.b * y.d) % 1000,
             (x.c * y.a + x.d * y.c) % 1000, (x.c * y.b + x.d * y.d) % 1000};
    return r;
}
static mat mval(int rank, int i) {
    mat m = {1 + (rank + i) % 3, rank % 2, (i + 2 * rank) % 4, 1 + i % 2};
    return m;
}
static int user_calls = 0;
/* inout = in * inout: `in` holds the lower ranks. Handles any extent (the
 * stride type below places each matrix in 24 bytes). */
static void matmul_fn(void* in, void* inout, int* len, MPI_Datatype* dt) {
    MPI_Aint lb, ext;
    MPI_Type_get_extent(*dt, &lb, &ext);
    ++user_calls;
    for (int k = 0; k < *len; ++k) {
        mat* x = (mat*)((char*)in + k * ext);
        mat* y = (mat*)((char*)inout + k * ext);
        *y = mul(*x, *y);
    }
}
static void matmul_fn_c(void* in, void* inout, MPI_Count* len, MPI_Datatype* dt) {
    int n = (int)*len;
    matmul_fn(in, inout, &n, dt);
}
static void max_fn(void* in, void* inout, int* len, MPI_Datatype* dt) {
    (void)dt;
    for (int k = 0; k < *len; ++k)
        if (((int*)in)[k] > ((int*)inout)[k]) ((int*)inout)[k] = ((int*)in)[k];
}

static void check_user_ops(void) {
    enum { M = 9 };
    MPI_Datatype tmat, tgap;
    CHECK_MPI(MPI_Type_contiguous(4, MPI_INT, &tmat));
    CHECK_MPI(MPI_Type_commit(&tmat));
    CHECK_MPI(MPI_Type_create_resized(tmat, 0, 24, &tgap)); /* 8-byte hole after each matrix */
    CHECK_MPI(MPI_Type_commit(&tgap));
    MPI_Op opm, opc, opmax;
    CHECK_MPI(MPI_Op_create(matmul_fn, 0, &opm));
    CHECK_MPI(MPI_Op_create_c(matmul_fn_c, 0, &opc));
    CHECK_MPI(MPI_Op_create(max_fn, 1, &opmax));
    int commute = -1;
    CHECK_MPI(MPI_Op_commutative(opm, &commute));
    CHECK(commute == 0, "matmul op reported commutative");
    CHECK_MPI(MPI_Op_commutative(MPI_SUM, &commute));
    CHECK(commute == 1, "MPI_SUM reported non-commutative");
    /* Sequential prefix products. */
    mat pre[8][M];
    for (int i = 0; i < M; ++i) {
        pre[0][i] = mval(0, i);
        for (int q = 1; q < np; ++q) pre[q][i] = mul(pre[q - 1][i], mval(q, i));
    }
    for (int variant = 0; variant < 3; ++variant) {
        const MPI_Op op = variant == 1 ? opc : opm;
        const MPI_Datatype dt = variant == 2 ? tgap : tmat;
        const int stride = variant == 2 ? 6 : 4; /* ints per element in memory */
        int in[M * 6], out[M * 6];
        for (int i = 0; i < M; ++i) {
            mat m = mval(me, i);
            memcpy(in + i * stride, &m, sizeof m);
        }
        for (int root = 0; root < np; ++root) {
            memset(out, 0, sizeof out);
            CHECK_MPI(MPI_Reduce(in, out, M, dt, op, root, MPI_COMM_WORLD));
            if (me == root)
                for (int i = 0; i < M; ++i)
                    CHECK(memcmp(out + i * stride, &pre[np - 1][i], sizeof(mat)) == 0,
                          "non-commutative Reduce variant %d root %d [%d]", variant, root, i);
        }
        memset(out, 0, sizeof out);
        CHECK_MPI(MPI_Allreduce(in, out, M, dt, op, MPI_COMM_WORLD));
        for (int i = 0; i < M; ++i)
            CHECK(memcmp(out + i * stride, &pre[np - 1][i], sizeof(mat)) == 0,
                  "non-commutative Allreduce variant %d [%d]", variant, i);
        CHECK_MPI(MPI_Scan(in, out, M, dt, op, MPI_COMM_WORLD));
        for (int i = 0; i < M; ++i)
            CHECK(memcmp(out + i * stride, &pre[me][i], sizeof(mat)) == 0,
                  "non-commutative Scan variant %d [%d]", variant, i);
        CHECK_MPI(MPI_Exscan(in, out, M, dt, op, MPI_COMM_WORLD));
        if (me > 0)
            for (int i = 0; i < M; ++i)
                CHECK(memcmp(out + i * stride, &pre[me - 1][i], sizeof(mat)) == 0,
                      "non-commutative Exscan variant %d [%d]", variant, i);
    }
    /* Reduce_scatter_block with the non-commutative op: one matrix each. */
    {
        int in[8 * 4], out[4];
        for (int q = 0; q < np; ++q) {
            mat m = mval(me, q);
            memcpy(in + q * 4, &m, sizeof m);
        }
        CHECK_MPI(MPI_Reduce_scatter_block(in, out, 1, tmat, opm, MPI_COMM_WORLD));
        CHECK(memcmp(out, &pre[np - 1][me], sizeof(mat)) == 0, "non-commutative Reduce_scatter_block");
    }
    /* A commutative user op on a long vector (the reduce-scatter algorithms). */
    {
        const int L = 50000;
        int* a = (int*)malloc(sizeof(int) * L);
        int* b = (int*)malloc(sizeof(int) * L);
        for (int i = 0; i < L; ++i) a[i] = (i * 13 + me * 7) % 1001;
        CHECK_MPI(MPI_Allreduce(a, b, L, MPI_INT, opmax, MPI_COMM_WORLD));
        for (int i = 0; i < L; ++i) {
            int w = 0;
            for (int q = 0; q < np; ++q) w = (i * 13 + q * 7) % 1001 > w ? (i * 13 + q * 7) % 1001 : w;
            CHECK(b[i] == w, "user max Allreduce [%d]", i);
        }
        free(a);
        free(b);
    }
    CHECK(np == 1 || user_calls > 0, "the user function was never called");
    CHECK_MPI(MPI_Op_free(&opm));
    CHECK(opm == MPI_OP_NULL, "MPI_Op_free did not reset the handle");
    CHECK_MPI(MPI_Op_free(&opc));
    CHECK_MPI(MPI_Op_free(&opmax));
    CHECK_MPI(MPI_Type_free(&tmat));
    CHECK_MPI(MPI_Type_free(&tgap));
}

/* REPLACE keeps rank 0's data, NO_OP the last rank's (rank order). */
static void check_replace_noop(void) {
    double in[N], out[N];
    for (int i = 0; i < N; ++i) in[i] = me * 100 + i;
    CHECK_MPI(MPI_Allreduce(in, out, N, MPI_DOUBLE, MPI_REPLACE, MPI_COMM_WORLD));
    for (int i = 0; i < N; ++i) CHECK(out[i] == i, "REPLACE [%d] = %g", i, out[i]);
    CHECK_MPI(MPI_Allreduce(in, out, N, MPI_DOUBLE, MPI_NO_OP, MPI_COMM_WORLD));
    for (int i = 0; i < N; ++i) CHECK(out[i] == (np - 1) * 100 + i, "NO_OP [%d] = %g", i, out[i]);
    CHECK_MPI(MPI_Reduce(in, out, N, MPI_DOUBLE, MPI_REPLACE, np - 1, MPI_COMM_WORLD));
    if (me == np - 1)
        for (int i = 0; i < N; ++i) CHECK(out[i] == i, "REPLACE Reduce [%d]", i);
}

static void expect_op_error(MPI_Datatype dt, MPI_Op op, const char* what) {
    char buf[64] = {0}, out[64];
    int rc = MPI_Allreduce(buf, out, 1, dt, op, MPI_COMM_WORLD), cls = -1;
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_OP, "%s: class %d, expected MPI_ERR_OP", what, cls);
    rc = MPI_Reduce_local(buf, out, 1, dt, op);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_OP, "Reduce_local %s: class %d, expected MPI_ERR_OP", what, cls);
}

int main(int argc, char** argv) {
    mt_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
#define ALL(a) a, (int)(sizeof a / sizeof a[0])
    chk_short(MPI_SHORT, "MPI_SHORT", ALL(int_ops));
    chk_int(MPI_INT, "MPI_INT", ALL(int_ops));
    chk_long(MPI_LONG, "MPI_LONG", ALL(int_ops));
    chk_llong(MPI_LONG_LONG, "MPI_LONG_LONG_INT", ALL(int_ops));
    chk_schar(MPI_SIGNED_CHAR, "MPI_SIGNED_CHAR", ALL(int_ops));
    chk_i8(MPI_INT8_T, "MPI_INT8_T", ALL(int_ops));
    chk_i16(MPI_INT16_T, "MPI_INT16_T", ALL(int_ops));
    chk_int(MPI_INT32_T, "MPI_INT32_T", ALL(int_ops));
    chk_i64(MPI_INT64_T, "MPI_INT64_T", ALL(int_ops));
    chk_ushort(MPI_UNSIGNED_SHORT, "MPI_UNSIGNED_SHORT", ALL(int_ops));
    chk_uint(MPI_UNSIGNED, "MPI_UNSIGNED", ALL(int_ops));
    chk_ulong(MPI_UNSIGNED_LONG, "MPI_UNSIGNED_LONG", ALL(int_ops));
    chk_ullong(MPI_UNSIGNED_LONG_LONG, "MPI_UNSIGNED_LONG_LONG", ALL(int_ops));
    chk_uchar(MPI_UNSIGNED_CHAR, "MPI_UNSIGNED_CHAR", ALL(int_ops));
    chk_u8(MPI_UINT8_T, "MPI_UINT8_T", ALL(int_ops));
    chk_u16(MPI_UINT16_T, "MPI_UINT16_T", ALL(int_ops));
    chk_u32(MPI_UINT32_T, "MPI_UINT32_T", ALL(int_ops));
    chk_u64(MPI_UINT64_T, "MPI_UINT64_T", ALL(int_ops));
    chk_i64(MPI_AINT, "MPI_AINT", ALL(int_ops));
    chk_i64(MPI_COUNT, "MPI_COUNT", ALL(int_ops));
    chk_i64(MPI_OFFSET, "MPI_OFFSET", ALL(int_ops));
    chk_int(MPI_INTEGER, "MPI_INTEGER", ALL(fint_ops));
    chk_i8(MPI_INTEGER1, "MPI_INTEGER1", ALL(fint_ops));
    chk_i16(MPI_INTEGER2, "MPI_INTEGER2", ALL(fint_ops));
    chk_int(MPI_INTEGER4, "MPI_INTEGER4", ALL(fint_ops));
    chk_i64(MPI_INTEGER8, "MPI_INTEGER8", ALL(fint_ops));
    chk_float(MPI_FLOAT, "MPI_FLOAT", ALL(real_ops));
    chk_double(MPI_DOUBLE, "MPI_DOUBLE", ALL(real_ops));
    chk_ldouble(MPI_LONG_DOUBLE, "MPI_LONG_DOUBLE", ALL(real_ops));
    chk_float(MPI_REAL, "MPI_REAL", ALL(real_ops));
    chk_double(MPI_DOUBLE_PRECISION, "MPI_DOUBLE_PRECISION", ALL(real_ops));
    chk_float(MPI_REAL4, "MPI_REAL4", ALL(real_ops));
    chk_double(MPI_REAL8, "MPI_REAL8", ALL(real_ops));
    chk_fcplx(MPI_C_FLOAT_COMPLEX, "MPI_C_COMPLEX", ALL(cplx_ops));
    chk_dcplx(MPI_C_DOUBLE_COMPLEX, "MPI_C_DOUBLE_COMPLEX", ALL(cplx_ops));
    chk_ldcplx(MPI_C_LONG_DOUBLE_COMPLEX, "MPI_C_LONG_DOUBLE_COMPLEX", ALL(cplx_ops));
    chk_fcplx(MPI_COMPLEX, "MPI_COMPLEX", ALL(cplx_ops));
    chk_dcplx(MPI_DOUBLE_COMPLEX, "MPI_DOUBLE_COMPLEX", ALL(cplx_ops));
    chk_fcplx(MPI_COMPLEX8, "MPI_COMPLEX8", ALL(cplx_ops));
    chk_bool(MPI_C_BOOL, "MPI_C_BOOL", ALL(log_ops));
    chk_logical(MPI_LOGICAL, "MPI_LOGICAL", ALL(log_ops));
    chk_byte(MPI_BYTE, "MPI_BYTE", ALL(bit_ops));
    chk_float_int(MPI_FLOAT_INT, "MPI_FLOAT_INT");
    chk_double_int(MPI_DOUBLE_INT, "MPI_DOUBLE_INT");
    chk_long_int(MPI_LONG_INT, "MPI_LONG_INT");
    chk_2int(MPI_2INT, "MPI_2INT");
    chk_short_int(MPI_SHORT_INT, "MPI_SHORT_INT");
    chk_ldouble_int(MPI_LONG_DOUBLE_INT, "MPI_LONG_DOUBLE_INT");
    chk_2real(MPI_2REAL, "MPI_2REAL");
    chk_2dp(MPI_2DOUBLE_PRECISION, "MPI_2DOUBLE_PRECISION");
    chk_2int(MPI_2INTEGER, "MPI_2INTEGER");
    check_replace_noop();
    check_user_ops();

    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    expect_op_error(MPI_DOUBLE, MPI_BAND, "BAND on MPI_DOUBLE");
    expect_op_error(MPI_FLOAT, MPI_LAND, "LAND on MPI_FLOAT");
    expect_op_error(MPI_C_DOUBLE_COMPLEX, MPI_MAX, "MAX on a complex type");
    expect_op_error(MPI_CHAR, MPI_BAND, "BAND on MPI_CHAR"); /* SUM/PROD/MIN/MAX: extension */
    expect_op_error(MPI_INT, MPI_MINLOC, "MINLOC on MPI_INT");
    expect_op_error(MPI_2INT, MPI_SUM, "SUM on MPI_2INT");
    expect_op_error(MPI_BYTE, MPI_SUM, "SUM on MPI_BYTE");
    expect_op_error(MPI_C_BOOL, MPI_BAND, "BAND on MPI_C_BOOL");
    expect_op_error(MPI_INT, MPI_OP_NULL, "MPI_OP_NULL");
    expect_op_error(MPI_INT, (MPI_Op)0x7654321, "a garbage op");
    {
        MPI_Op sum = MPI_SUM;
        int rc = MPI_Op_free(&sum), cls;
        MPI_Error_class(rc, &cls);
        CHECK(cls == MPI_ERR_OP, "freeing MPI_SUM: class %d", cls);
        char msg[MPI_MAX_ERROR_STRING];
        int len;
        rc = MPI_Allreduce(&rc, &cls, 1, MPI_DOUBLE, MPI_BXOR, MPI_COMM_WORLD);
        MPI_Error_string(rc, msg, &len);
        CHECK(strstr(msg, ALLREDUCE_NAME) && strstr(msg, "MPI_BXOR") && strstr(msg, "MPI_DOUBLE"),
              "message does not name the function, op and type: %s", msg);
    }
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    MPI_Finalize();
    return 0;
}
