/* SPDX-License-Identifier: MIT */
/* MPI_Pack_external / MPI_Unpack_external / MPI_Pack_external_size ("external32",
 * MPI-4.1 section 13.5.2): sizes from the standard's table (MPI_LONG 4 bytes,
 * MPI_WCHAR 2, MPI_LONG_DOUBLE 16), exact big-endian bytes for each kind of
 * element (integers, IEEE floats, binary128, complex and pair types), derived
 * types walked in type-map order (struct, vector, resized, MPI_BOTTOM),
 * round trips, the _c forms, and every error: bad datarep, truncation, a
 * long or wchar_t that does not fit, each leaving the position alone and MPI
 * usable. Plain C. */
#include <float.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <wchar.h>

#include "dtcheck.h"

static const char* X32 = "external32";

/* Packs count elements of t from buf; the bytes must be want[0..n). */
static void expect_bytes(const char* what, const void* buf, int count, MPI_Datatype t,
                         const unsigned char* want, int n) {
    unsigned char out[256];
    memset(out, 0xEE, sizeof out);
    MPI_Aint pos = 3, size = -1;
    OK(MPI_Pack_external_size(X32, count, t, &size));
    EXPECT(size == n, "%s: external32 size %ld, want %d", what, (long)size, n);
    OK(MPI_Pack_external(X32, buf, count, t, out, (MPI_Aint)sizeof out, &pos));
    EXPECT(pos == 3 + n, "%s: position %ld, want %d", what, (long)pos, 3 + n);
    EXPECT(memcmp(out + 3, want, (size_t)n) == 0, "%s: bytes differ", what);
    for (int i = 0; i < n && memcmp(out + 3, want, (size_t)n) != 0; ++i)
        if (out[3 + i] != want[i]) {
            fprintf(stderr, "  byte %d: %02x, want %02x\n", i, out[3 + i], want[i]);
            break;
        }
    EXPECT(out[2] == 0xEE && out[3 + n] == 0xEE, "%s: wrote outside its bytes", what);
}

static void sizes(void) {
    const struct {
        MPI_Datatype t;
        const char* name;
        MPI_Aint size;
    } tab[] = {{MPI_CHAR, "MPI_CHAR", 1},
               {MPI_SHORT, "MPI_SHORT", 2},
               {MPI_INT, "MPI_INT", 4},
               {MPI_LONG, "MPI_LONG", 4},
               {MPI_UNSIGNED_LONG, "MPI_UNSIGNED_LONG", 4},
               {MPI_LONG_LONG, "MPI_LONG_LONG_INT", 8},
               {MPI_INT64_T, "MPI_INT64_T", 8},
               {MPI_WCHAR, "MPI_WCHAR", 2},
               {MPI_C_BOOL, "MPI_C_BOOL", 1},
               {MPI_FLOAT, "MPI_FLOAT", 4},
               {MPI_DOUBLE, "MPI_DOUBLE", 8},
               {MPI_LONG_DOUBLE, "MPI_LONG_DOUBLE", 16},
               {MPI_C_DOUBLE_COMPLEX, "MPI_C_DOUBLE_COMPLEX", 16},
               {MPI_C_LONG_DOUBLE_COMPLEX, "MPI_C_LONG_DOUBLE_COMPLEX", 32},
               {MPI_AINT, "MPI_AINT", 8},
               {MPI_COUNT, "MPI_COUNT", 8},
               {MPI_DOUBLE_INT, "MPI_DOUBLE_INT", 12},
               {MPI_LONG_INT, "MPI_LONG_INT", 8},
               {MPI_SHORT_INT, "MPI_SHORT_INT", 6},
               {MPI_LONG_DOUBLE_INT, "MPI_LONG_DOUBLE_INT", 20},
               {MPI_2INT, "MPI_2INT", 8},
               {MPI_INTEGER, "MPI_INTEGER", 4},
               {MPI_DOUBLE_COMPLEX, "MPI_DOUBLE_COMPLEX", 16}};
    for (size_t i = 0; i < sizeof tab / sizeof tab[0]; ++i) {
        MPI_Aint s = -1;
        OK(MPI_Pack_external_size(X32, 3, tab[i].t, &s));
        EXPECT(s == 3 * tab[i].size, "%s: external32 size of 3 is %ld, want %ld", tab[i].name, (long)s,
               (long)(3 * tab[i].size));
    }
    MPI_Count sc = -1;
    OK(MPI_Pack_external_size_c(X32, (MPI_Count)1 << 40, MPI_LONG, &sc));
    EXPECT(sc == (MPI_Count)4 << 40, "_c size of 2^40 longs: %lld", (long long)sc);
}

static void basic_bytes(void) {
    int i4[2] = {0x01020304, -2};
    expect_bytes("int", i4, 2, MPI_INT, (const unsigned char[]){1, 2, 3, 4, 0xFF, 0xFF, 0xFF, 0xFE}, 8);
    short s2 = -2;
    expect_bytes("short", &s2, 1, MPI_SHORT, (const unsigned char[]){0xFF, 0xFE}, 2);
    long l[2] = {-5, 0x7FFFFFFF};
    expect_bytes("long", l, 2, MPI_LONG, (const unsigned char[]){0xFF, 0xFF, 0xFF, 0xFB, 0x7F, 0xFF, 0xFF, 0xFF}, 8);
    unsigned long ul = 0x89ABCDEFul;
    expect_bytes("unsigned long", &ul, 1, MPI_UNSIGNED_LONG, (const unsigned char[]){0x89, 0xAB, 0xCD, 0xEF}, 4);
    long long ll = 0x0102030405060708LL;
    expect_bytes("long long", &ll, 1, MPI_LONG_LONG, (const unsigned char[]){1, 2, 3, 4, 5, 6, 7, 8}, 8);
    wchar_t w[2] = {L'A', 0xFFFF};
    expect_bytes("wchar", w, 2, MPI_WCHAR, (const unsigned char[]){0, 0x41, 0xFF, 0xFF}, 4);
    float f = 1.5f;
    expect_bytes("float", &f, 1, MPI_FLOAT, (const unsigned char[]){0x3F, 0xC0, 0, 0}, 4);
    double d = 1.0;
    expect_bytes("double", &d, 1, MPI_DOUBLE, (const unsigned char[]){0x3F, 0xF0, 0, 0, 0, 0, 0, 0}, 8);
    /* binary128: sign, 15-bit exponent (bias 16383), 112-bit fraction */
    long double ld[2] = {1.0L, -2.5L};
    expect_bytes("long double", ld, 2, MPI_LONG_DOUBLE,
                 (const unsigned char[]){0x3F, 0xFF, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                                         0xC0, 0x00, 0x40, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
                 32);
    double z[2] = {1.0, -2.0}; /* MPI_C_DOUBLE_COMPLEX: real, imaginary */
    expect_bytes("double complex", z, 1, MPI_C_DOUBLE_COMPLEX,
                 (const unsigned char[]){0x3F, 0xF0, 0, 0, 0, 0, 0, 0, 0xC0, 0, 0, 0, 0, 0, 0, 0}, 16);
    struct {
        double v;
        int i;
    } di = {3.0, 7};
    expect_bytes("MPI_DOUBLE_INT", &di, 1, MPI_DOUBLE_INT,
                 (const unsigned char[]){0x40, 0x08, 0, 0, 0, 0, 0, 0, 0, 0, 0, 7}, 12);
    struct {
        short v;
        int i;
    } si = {-1, 258};
    expect_bytes("MPI_SHORT_INT", &si, 1, MPI_SHORT_INT, (const unsigned char[]){0xFF, 0xFF, 0, 0, 1, 2}, 6);
    struct {
        long v;
        int i;
    } li = {-3, 9};
    expect_bytes("MPI_LONG_INT", &li, 1, MPI_LONG_INT, (const unsigned char[]){0xFF, 0xFF, 0xFF, 0xFD, 0, 0, 0, 9}, 8);
}

/* A struct {char c; int i; double d[2]; long l} with padding, resized, as 2
 * instances; a vector of shorts every third one. Bytes and round trips. */
struct rec {
    char c;
    int i;
    double d[2];
    long l;
};

static void derived(void) {
    struct rec r[2] = {{'x', 0x11223344, {1.0, -1.0}, -2}, {'y', -1, {0.5, 2.0}, 40000}};
    MPI_Datatype st, rs;
    int bl[4] = {1, 1, 2, 1};
    MPI_Aint disp[4] = {offsetof(struct rec, c), offsetof(struct rec, i), offsetof(struct rec, d),
                        offsetof(struct rec, l)};
    MPI_Datatype ty[4] = {MPI_CHAR, MPI_INT, MPI_DOUBLE, MPI_LONG};
    OK(MPI_Type_create_struct(4, bl, disp, ty, &st));
    OK(MPI_Type_create_resized(st, 0, sizeof(struct rec), &rs));
    OK(MPI_Type_commit(&rs));
    const unsigned char want[] = {
        'x', 0x11, 0x22, 0x33, 0x44, 0x3F, 0xF0, 0, 0, 0, 0, 0, 0, 0xBF, 0xF0, 0, 0, 0, 0, 0, 0,
        0xFF, 0xFF, 0xFF, 0xFE,
        'y', 0xFF, 0xFF, 0xFF, 0xFF, 0x3F, 0xE0, 0, 0, 0, 0, 0, 0, 0x40, 0, 0, 0, 0, 0, 0, 0,
        0, 0, 0x9C, 0x40};
    expect_bytes("struct rec x 2", r, 2, rs, want, (int)sizeof want);

    /* round trip into zeroed records: members equal, padding untouched */
    unsigned char out[128];
    MPI_Aint pos = 0;
    OK(MPI_Pack_external(X32, r, 2, rs, out, sizeof out, &pos));
    struct rec back[2];
    memset(back, 0, sizeof back);
    MPI_Aint upos = 0;
    OK(MPI_Unpack_external(X32, out, pos, &upos, back, 2, rs));
    EXPECT(upos == pos, "unpack position %ld, want %ld", (long)upos, (long)pos);
    for (int k = 0; k < 2; ++k)
        EXPECT(back[k].c == r[k].c && back[k].i == r[k].i && back[k].d[0] == r[k].d[0] &&
                   back[k].d[1] == r[k].d[1] && back[k].l == r[k].l,
               "record %d differs after the round trip", k);
    OK(MPI_Type_free(&st));
    OK(MPI_Type_free(&rs));

    /* vector: shorts 0, 3, 6 and 9 of twelve; the others stay as they were */
    short v[12], vb[12];
    for (int k = 0; k < 12; ++k) v[k] = (short)(k * 1000 - 3000), vb[k] = 77;
    MPI_Datatype vec;
    OK(MPI_Type_vector(4, 1, 3, MPI_SHORT, &vec));
    OK(MPI_Type_commit(&vec));
    const unsigned char vw[] = {0xF4, 0x48, 0, 0, 0x0B, 0xB8, 0x17, 0x70};
    expect_bytes("vector of shorts", v, 1, vec, vw, 8);
    pos = 0;
    OK(MPI_Pack_external(X32, v, 1, vec, out, sizeof out, &pos));
    upos = 0;
    OK(MPI_Unpack_external(X32, out, pos, &upos, vb, 1, vec));
    for (int k = 0; k < 12; ++k)
        EXPECT(vb[k] == (k % 3 == 0 ? v[k] : 77), "vector element %d is %d", k, vb[k]);
    OK(MPI_Type_free(&vec));

    /* blocks of two pair types, whose extent (8) is not their size (6):
     * elements 0, 1, 3 and 4 of six */
    struct {
        short v;
        int i;
    } p6[6];
    for (int k = 0; k < 6; ++k) p6[k].v = (short)(k + 1), p6[k].i = 100 + k;
    MPI_Datatype pv;
    OK(MPI_Type_vector(2, 2, 3, MPI_SHORT_INT, &pv));
    OK(MPI_Type_commit(&pv));
    const unsigned char pw[] = {0, 1, 0, 0, 0, 100, 0, 2, 0, 0, 0, 101,
                                0, 4, 0, 0, 0, 103, 0, 5, 0, 0, 0, 104};
    expect_bytes("vector(2, 2, 3) of MPI_SHORT_INT", p6, 1, pv, pw, 24);
    OK(MPI_Type_free(&pv));

    /* the other shapes, in type-map order (not memory order): a subarray of
     * ints, an indexed block of shorts and an hindexed of longs */
    int grid[16];
    for (int k = 0; k < 16; ++k) grid[k] = k;
    MPI_Datatype sub;
    int sz[2] = {4, 4}, subsz[2] = {2, 2}, starts[2] = {1, 1};
    OK(MPI_Type_create_subarray(2, sz, subsz, starts, MPI_ORDER_C, MPI_INT, &sub));
    OK(MPI_Type_commit(&sub));
    const unsigned char gw[] = {0, 0, 0, 5, 0, 0, 0, 6, 0, 0, 0, 9, 0, 0, 0, 10};
    expect_bytes("subarray 2x2 of 4x4 ints", grid, 1, sub, gw, 16);
    OK(MPI_Type_free(&sub));
    short sh[8] = {10, 11, 12, 13, 14, 15, 16, 17};
    int bd[3] = {0, 5, 2};
    MPI_Datatype ib;
    OK(MPI_Type_create_indexed_block(3, 2, bd, MPI_SHORT, &ib));
    OK(MPI_Type_commit(&ib));
    const unsigned char iw[] = {0, 10, 0, 11, 0, 15, 0, 16, 0, 12, 0, 13};
    expect_bytes("indexed_block of shorts", sh, 1, ib, iw, 12);
    OK(MPI_Type_free(&ib));
    long lg[6] = {-1, -2, -3, -4, -5, -6};
    int hl[2] = {1, 3};
    MPI_Aint hd[2] = {4 * sizeof(long), sizeof(long)};
    MPI_Datatype hi;
    OK(MPI_Type_create_hindexed(2, hl, hd, MPI_LONG, &hi));
    OK(MPI_Type_commit(&hi));
    const unsigned char hw[] = {0xFF, 0xFF, 0xFF, 0xFB, 0xFF, 0xFF, 0xFF, 0xFE,
                                0xFF, 0xFF, 0xFF, 0xFD, 0xFF, 0xFF, 0xFF, 0xFC};
    expect_bytes("hindexed of longs", lg, 1, hi, hw, 16);
    long lgb[6] = {0, 0, 0, 0, 0, 0};
    pos = 0;
    OK(MPI_Pack_external(X32, lg, 1, hi, out, sizeof out, &pos));
    upos = 0;
    OK(MPI_Unpack_external(X32, out, pos, &upos, lgb, 1, hi));
    for (int k = 0; k < 6; ++k) EXPECT(lgb[k] == (k == 0 || k == 5 ? 0 : lg[k]), "hindexed long %d: %ld", k, lgb[k]);
    OK(MPI_Type_free(&hi));

    /* MPI_BOTTOM: one long double and one wchar_t at absolute addresses */
    long double lv = 3.0L;
    wchar_t wv = L'z';
    MPI_Aint a[2];
    OK(MPI_Get_address(&lv, &a[0]));
    OK(MPI_Get_address(&wv, &a[1]));
    int one[2] = {1, 1};
    MPI_Datatype tys[2] = {MPI_LONG_DOUBLE, MPI_WCHAR}, abs_t;
    OK(MPI_Type_create_struct(2, one, a, tys, &abs_t));
    OK(MPI_Type_commit(&abs_t));
    const unsigned char aw[] = {0x40, 0x00, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 'z'};
    expect_bytes("MPI_BOTTOM long double, wchar", MPI_BOTTOM, 1, abs_t, aw, 18);
    pos = 0;
    OK(MPI_Pack_external(X32, MPI_BOTTOM, 1, abs_t, out, sizeof out, &pos));
    lv = 0, wv = 0;
    upos = 0;
    OK(MPI_Unpack_external(X32, out, pos, &upos, MPI_BOTTOM, 1, abs_t));
    EXPECT(lv == 3.0L && wv == L'z', "MPI_BOTTOM round trip: %Lg, %d", lv, (int)wv);
    OK(MPI_Type_free(&abs_t));
}

/* Values at the edges of the narrowed types, and long doubles that
 * binary128 holds exactly (every x87 value), round trip. */
static void round_trips(void) {
    long l[4] = {INT32_MIN, INT32_MAX, -1, 0};
    unsigned long ul[3] = {0, 0xFFFFFFFFul, 12345};
    long double ld[5] = {LDBL_MAX, LDBL_MIN, -LDBL_TRUE_MIN, 1.0L / 3.0L, -0.0L};
    unsigned char out[256];
    MPI_Aint pos = 0, upos = 0;
    OK(MPI_Pack_external(X32, l, 4, MPI_LONG, out, sizeof out, &pos));
    OK(MPI_Pack_external(X32, ul, 3, MPI_UNSIGNED_LONG, out, sizeof out, &pos));
    OK(MPI_Pack_external(X32, ld, 5, MPI_LONG_DOUBLE, out, sizeof out, &pos));
    EXPECT(pos == 16 + 12 + 80, "packed %ld bytes", (long)pos);
    long lb[4];
    unsigned long ulb[3];
    long double ldb[5];
    OK(MPI_Unpack_external(X32, out, pos, &upos, lb, 4, MPI_LONG));
    OK(MPI_Unpack_external(X32, out, pos, &upos, ulb, 3, MPI_UNSIGNED_LONG));
    OK(MPI_Unpack_external(X32, out, pos, &upos, ldb, 5, MPI_LONG_DOUBLE));
    for (int k = 0; k < 4; ++k) EXPECT(lb[k] == l[k], "long %d: %ld, want %ld", k, lb[k], l[k]);
    for (int k = 0; k < 3; ++k) EXPECT(ulb[k] == ul[k], "unsigned long %d: %lu", k, ulb[k]);
    for (int k = 0; k < 5; ++k) EXPECT(ldb[k] == ld[k], "long double %d: %Lg, want %Lg", k, ldb[k], ld[k]);
    EXPECT(ldb[4] == 0 && 1.0L / ldb[4] < 0, "-0.0 lost its sign");

    /* the _c forms give the same bytes */
    unsigned char out_c[256];
    MPI_Count pc = 0, upc = 0;
    OK(MPI_Pack_external_c(X32, l, 4, MPI_LONG, out_c, sizeof out_c, &pc));
    EXPECT(pc == 16 && memcmp(out, out_c, 16) == 0, "_c pack: %lld bytes", (long long)pc);
    OK(MPI_Unpack_external_c(X32, out_c, pc, &upc, lb, 4, MPI_LONG));
    EXPECT(upc == 16 && lb[0] == INT32_MIN, "_c unpack");
}

static void errors(void) {
    unsigned char out[64];
    int v[4] = {1, 2, 3, 4};
    MPI_Aint pos = 0, size = 0;
    EXPECT_CLASS(MPI_Pack_external("native", v, 1, MPI_INT, out, 64, &pos), MPI_ERR_UNSUPPORTED_DATAREP);
    EXPECT_CLASS(MPI_Pack_external(NULL, v, 1, MPI_INT, out, 64, &pos), MPI_ERR_ARG);
    EXPECT_CLASS(MPI_Pack_external_size("internal", 1, MPI_INT, &size), MPI_ERR_UNSUPPORTED_DATAREP);
    EXPECT_CLASS(MPI_Pack_external_size(X32, 1, MPI_INT, NULL), MPI_ERR_ARG);
    EXPECT_CLASS(MPI_Pack_external_size(X32, -1, MPI_INT, &size), MPI_ERR_COUNT);
    EXPECT_CLASS(MPI_Pack_external(X32, v, -1, MPI_INT, out, 64, &pos), MPI_ERR_COUNT);
    EXPECT_CLASS(MPI_Pack_external(X32, v, 1, MPI_DATATYPE_NULL, out, 64, &pos), MPI_ERR_TYPE);
    EXPECT_CLASS(MPI_Pack_external(X32, v, 1, MPI_INT, out, 64, NULL), MPI_ERR_ARG);
    EXPECT_CLASS(MPI_Pack_external(X32, v, 1, MPI_INT, NULL, 64, &pos), MPI_ERR_BUFFER);
    MPI_Datatype un;
    OK(MPI_Type_contiguous(2, MPI_INT, &un));
    EXPECT_CLASS(MPI_Pack_external(X32, v, 1, un, out, 64, &pos), MPI_ERR_TYPE); /* uncommitted */
    OK(MPI_Type_free(&un));
    pos = 2;
    EXPECT_CLASS(MPI_Pack_external(X32, v, 4, MPI_INT, out, 17, &pos), MPI_ERR_TRUNCATE);
    EXPECT(pos == 2, "a truncated pack moved the position to %ld", (long)pos);
    pos = 65;
    EXPECT_CLASS(MPI_Pack_external(X32, v, 1, MPI_INT, out, 64, &pos), MPI_ERR_ARG);
    pos = 0;
    EXPECT_CLASS(MPI_Unpack_external(X32, out, 15, &pos, v, 4, MPI_INT), MPI_ERR_TRUNCATE);
    EXPECT(pos == 0, "a truncated unpack moved the position to %ld", (long)pos);
    EXPECT_CLASS(MPI_Unpack_external("external64", out, 64, &pos, v, 1, MPI_INT), MPI_ERR_UNSUPPORTED_DATAREP);
    EXPECT_CLASS(MPI_Unpack_external(X32, out, -1, &pos, v, 1, MPI_INT), MPI_ERR_ARG);

    /* values external32 cannot hold: MPI_ERR_CONVERSION, position unchanged */
    long big[3] = {1, (long)1 << 40, 2};
    pos = 4;
    EXPECT_CLASS(MPI_Pack_external(X32, big, 3, MPI_LONG, out, 64, &pos), MPI_ERR_CONVERSION);
    EXPECT(pos == 4, "a failed conversion moved the position to %ld", (long)pos);
    long neg = (long)INT32_MIN - 1;
    EXPECT_CLASS(MPI_Pack_external(X32, &neg, 1, MPI_LONG, out, 64, &pos), MPI_ERR_CONVERSION);
    unsigned long ubig = 0x100000000ul;
    EXPECT_CLASS(MPI_Pack_external(X32, &ubig, 1, MPI_UNSIGNED_LONG, out, 64, &pos), MPI_ERR_CONVERSION);
    wchar_t wbig = 0x10000;
    EXPECT_CLASS(MPI_Pack_external(X32, &wbig, 1, MPI_WCHAR, out, 64, &pos), MPI_ERR_CONVERSION);
    struct {
        long v;
        int i;
    } li = {(long)1 << 35, 1};
    EXPECT_CLASS(MPI_Pack_external(X32, &li, 1, MPI_LONG_INT, out, 64, &pos), MPI_ERR_CONVERSION);
    EXPECT(pos == 4, "position moved to %ld", (long)pos);

    /* count 0 moves nothing, even with NULL buffers */
    OK(MPI_Pack_external(X32, NULL, 0, MPI_INT, NULL, 0, &(MPI_Aint){0}));
    /* still usable */
    int x = 0x0A0B0C0D;
    expect_bytes("after the errors", &x, 1, MPI_INT, (const unsigned char[]){10, 11, 12, 13}, 4);
}

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    sizes();
    basic_bytes();
    derived();
    round_trips();
    errors();
    return dt_finish("dt_external32");
}
