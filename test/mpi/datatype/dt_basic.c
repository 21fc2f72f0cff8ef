/* SPDX-License-Identifier: MIT */
/* Datatype API on one process: predefined sizes and extents, constructors,
 * envelope/contents, pack/unpack round trips, Get_elements, free while in use,
 * the MPI-3.0 _x query forms. */
#include <stddef.h>
#include <string.h>

#include "dtcheck.h"

static void check_type(MPI_Datatype t, const char* name, MPI_Count size, MPI_Aint extent) {
    MPI_Count sz = -1;
    MPI_Aint lb = -1, ext = -1;
    OK(MPI_Type_size_c(t, &sz));
    OK(MPI_Type_get_extent(t, &lb, &ext));
    EXPECT(sz == size && ext == extent && lb == 0, "%s: size %lld extent %ld lb %ld, want %lld %ld 0",
           name, (long long)sz, (long)ext, (long)lb, (long long)size, (long)extent);
}

static void predefined(void) {
    struct { double d; int i; } di;
    struct { long double d; int i; } ldi;
    check_type(MPI_CHAR, "MPI_CHAR", 1, 1);
    check_type(MPI_INT, "MPI_INT", sizeof(int), sizeof(int));
    check_type(MPI_LONG, "MPI_LONG", sizeof(long), sizeof(long));
    check_type(MPI_DOUBLE, "MPI_DOUBLE", 8, 8);
    check_type(MPI_LONG_DOUBLE, "MPI_LONG_DOUBLE", sizeof(long double), sizeof(long double));
    check_type(MPI_C_DOUBLE_COMPLEX, "MPI_C_DOUBLE_COMPLEX", 16, 16);
    check_type(MPI_DOUBLE_INT, "MPI_DOUBLE_INT", 12, sizeof di);
    check_type(MPI_SHORT_INT, "MPI_SHORT_INT", 6, 8);
    check_type(MPI_LONG_DOUBLE_INT, "MPI_LONG_DOUBLE_INT", sizeof(long double) + 4, sizeof ldi);
    check_type(MPI_2INT, "MPI_2INT", 8, 8);
    check_type(MPI_LOGICAL, "MPI_LOGICAL", 4, 4);
    check_type(MPI_DOUBLE_PRECISION, "MPI_DOUBLE_PRECISION", 8, 8);
    check_type(MPI_DOUBLE_COMPLEX, "MPI_DOUBLE_COMPLEX", 16, 16);
    check_type(MPI_CHARACTER, "MPI_CHARACTER", 1, 1);
    check_type(MPI_AINT, "MPI_AINT", 8, 8);
    check_type(MPI_COUNT, "MPI_COUNT", 8, 8);
    check_type(MPI_OFFSET, "MPI_OFFSET", 8, 8);
    check_type(MPI_PACKED, "MPI_PACKED", 1, 1);
    check_type(MPI_INTEGER8, "MPI_INTEGER8", 8, 8);
    check_type(MPI_COMPLEX32, "MPI_COMPLEX32", 32, 32);
    int ni, na, nd, comb;
    OK(MPI_Type_get_envelope(MPI_DOUBLE, &ni, &na, &nd, &comb));
    EXPECT(comb == MPI_COMBINER_NAMED && ni == 0 && na == 0 && nd == 0, "named envelope");
}

static void vector_roundtrip(void) {
    double a[10][6], b[10][6], packed[30];
    MPI_Datatype col, col3;
    for (int i = 0; i < 60; ++i) ((double*)a)[i] = i, ((double*)b)[i] = -1;
    OK(MPI_Type_vector(10, 3, 6, MPI_DOUBLE, &col));
    OK(MPI_Type_dup(col, &col3));
    OK(MPI_Type_free(&col)); /* col3 keeps what it needs */
    EXPECT(col == MPI_DATATYPE_NULL, "Type_free resets the handle");
    OK(MPI_Type_commit(&col3));
    int pos = 0, psize = 0;
    OK(MPI_Pack_size(1, col3, MPI_COMM_WORLD, &psize));
    EXPECT(psize == 240, "pack size %d", psize);
    OK(MPI_Pack(a, 1, col3, packed, sizeof packed, &pos, MPI_COMM_WORLD));
    EXPECT(pos == 240, "position after pack %d", pos);
    for (int r = 0; r < 10; ++r)
        for (int c = 0; c < 3; ++c) EXPECT(packed[r * 3 + c] == a[r][c], "packed[%d][%d]", r, c);
    pos = 0;
    OK(MPI_Unpack(packed, sizeof packed, &pos, b, 1, col3, MPI_COMM_WORLD));
    for (int r = 0; r < 10; ++r)
        for (int c = 0; c < 6; ++c) EXPECT(b[r][c] == (c < 3 ? a[r][c] : -1), "unpacked b[%d][%d]", r, c);
    int ni, na, nd, comb;
    OK(MPI_Type_get_envelope(col3, &ni, &na, &nd, &comb));
    EXPECT(comb == MPI_COMBINER_DUP && nd == 1, "dup envelope");
    MPI_Datatype inner;
    OK(MPI_Type_get_contents(col3, 0, 0, 1, NULL, NULL, &inner));
    OK(MPI_Type_get_envelope(inner, &ni, &na, &nd, &comb));
    EXPECT(comb == MPI_COMBINER_VECTOR && ni == 3 && na == 0 && nd == 1, "vector envelope");
    int ints[3];
    MPI_Datatype old;
    OK(MPI_Type_get_contents(inner, 3, 0, 1, ints, NULL, &old));
    EXPECT(ints[0] == 10 && ints[1] == 3 && ints[2] == 6 && old == MPI_DOUBLE, "vector contents");
    OK(MPI_Type_free(&inner));
    OK(MPI_Type_free(&col3));
}

struct particle {
    char tag;
    double x[3];
    int id;
};

static void struct_roundtrip(void) {
    struct particle p[4], q[4];
    memset(p, 0, sizeof p);
    int bl[3] = {1, 3, 1};
    MPI_Aint d[3], base;
    MPI_Datatype ts[3] = {MPI_CHAR, MPI_DOUBLE, MPI_INT}, t, tr;
    OK(MPI_Get_address(&p[0], &base));
    OK(MPI_Get_address(&p[0].tag, &d[0]));
    OK(MPI_Get_address(&p[0].x, &d[1]));
    OK(MPI_Get_address(&p[0].id, &d[2]));
    for (int i = 0; i < 3; ++i) d[i] = MPI_Aint_diff(d[i], base);
    OK(MPI_Type_create_struct(3, bl, d, ts, &t));
    MPI_Aint lb, ext;
    OK(MPI_Type_get_extent(t, &lb, &ext));
    EXPECT(ext == sizeof(struct particle), "struct extent %ld (C says %zu)", (long)ext, sizeof(struct particle));
    OK(MPI_Type_create_resized(t, 0, sizeof(struct particle), &tr));
    OK(MPI_Type_commit(&tr));
    for (int i = 0; i < 4; ++i) {
        p[i].tag = (char)('a' + i), p[i].id = 100 + i;
        for (int k = 0; k < 3; ++k) p[i].x[k] = i * 10 + k;
    }
    memset(q, 0, sizeof q);
    char buf[4 * 29];
    int pos = 0;
    OK(MPI_Pack(p, 4, tr, buf, sizeof buf, &pos, MPI_COMM_WORLD));
    EXPECT(pos == 4 * 29, "struct pack %d", pos);
    pos = 0;
    OK(MPI_Unpack(buf, sizeof buf, &pos, q, 4, tr, MPI_COMM_WORLD));
    for (int i = 0; i < 4; ++i)
        EXPECT(q[i].tag == p[i].tag && q[i].id == p[i].id && q[i].x[2] == p[i].x[2], "particle %d", i);
    MPI_Status st;
    OK(MPI_Status_set_elements(&st, tr, 7)); /* 1 particle (5 elements) + char + 1 double */
    int n = 0, cnt = 0;
    OK(MPI_Get_elements(&st, tr, &n));
    EXPECT(n == 7, "Get_elements %d", n);
    OK(MPI_Get_count(&st, tr, &cnt));
    EXPECT(cnt == MPI_UNDEFINED, "Get_count of a partial particle %d", cnt);
    OK(MPI_Type_free(&t));
    OK(MPI_Type_free(&tr));
}

static void subarray_large(void) {
    int sizes[3] = {4, 5, 6}, sub[3] = {2, 3, 4}, starts[3] = {1, 1, 2};
    MPI_Datatype t;
    OK(MPI_Type_create_subarray(3, sizes, sub, starts, MPI_ORDER_C, MPI_INT, &t));
    OK(MPI_Type_commit(&t));
    MPI_Aint lb, ext;
    OK(MPI_Type_get_extent(t, &lb, &ext));
    EXPECT(lb == 0 && ext == 4 * 5 * 6 * 4, "subarray extent %ld", (long)ext);
    int a[4][5][6], out[24], pos = 0;
    for (int i = 0; i < 120; ++i) ((int*)a)[i] = i;
    OK(MPI_Pack(a, 1, t, out, sizeof out, &pos, MPI_COMM_WORLD));
    int k = 0;
    for (int i = 1; i < 3; ++i)
        for (int j = 1; j < 4; ++j)
            for (int l = 2; l < 6; ++l, ++k) EXPECT(out[k] == a[i][j][l], "subarray element %d", k);
    OK(MPI_Type_free(&t));
    /* A large-count type: 3 GiB of bytes (never touched). */
    MPI_Datatype big;
    MPI_Count sz, lbc, extc;
    OK(MPI_Type_contiguous_c((MPI_Count)3 << 30, MPI_BYTE, &big));
    OK(MPI_Type_size_c(big, &sz));
    OK(MPI_Type_get_extent_c(big, &lbc, &extc));
    EXPECT(sz == ((MPI_Count)3 << 30) && extc == sz, "3 GiB type size %lld", (long long)sz);
    int isz = 0;
    OK(MPI_Type_size(big, &isz));
    EXPECT(isz == MPI_UNDEFINED, "int size of a 3 GiB type is MPI_UNDEFINED, got %d", isz);
    MPI_Count ni, na, nc, nd;
    int comb;
    OK(MPI_Type_get_envelope_c(big, &ni, &na, &nc, &nd, &comb));
    EXPECT(comb == MPI_COMBINER_CONTIGUOUS && nc == 1 && ni == 0, "large-count envelope");
    OK(MPI_Type_free(&big));
}

/* Contiguous types (one block, extent == size) pack as one copy: from
 * their true lower bound, `count` instances back to back, at `position`. */
static void contiguous_offsets(void) {
    int a[16], b[16], packed[16];
    for (int i = 0; i < 16; ++i) a[i] = 100 + i;
    /* One block of 3 ints at displacement 2 ints: lb = true_lb = 8 bytes. */
    int bl = 3, disp = 2;
    MPI_Datatype t;
    OK(MPI_Type_indexed(1, &bl, &disp, MPI_INT, &t));
    OK(MPI_Type_commit(&t));
    MPI_Aint lb, ext;
    OK(MPI_Type_get_extent(t, &lb, &ext));
    EXPECT(lb == 8 && ext == 12, "indexed block: lb %ld extent %ld, want 8 12", (long)lb, (long)ext);
    memset(packed, 0, sizeof packed);
    int pos = 4; /* after one int already in the buffer */
    OK(MPI_Pack(a, 3, t, packed, sizeof packed, &pos, MPI_COMM_WORLD));
    EXPECT(pos == 4 + 36, "contiguous pack position %d, want 40", pos);
    EXPECT(packed[0] == 0, "pack wrote before position");
    for (int i = 0; i < 9; ++i) EXPECT(packed[1 + i] == 102 + i, "contiguous pack element %d: %d", i, packed[1 + i]);
    EXPECT(packed[10] == 0, "pack wrote past its bytes");
    for (int i = 0; i < 16; ++i) b[i] = -1;
    pos = 4;
    OK(MPI_Unpack(packed, sizeof packed, &pos, b, 3, t, MPI_COMM_WORLD));
    EXPECT(pos == 40, "contiguous unpack position %d, want 40", pos);
    for (int i = 0; i < 16; ++i)
        EXPECT(b[i] == (i >= 2 && i < 11 ? 100 + i : -1), "contiguous unpack element %d: %d", i, b[i]);
    /* Too small a buffer: MPI_ERR_TRUNCATE, nothing written. */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    pos = 0;
    memset(packed, 0x7f, sizeof packed);
    int rc = MPI_Pack(a, 3, t, packed, 32, &pos, MPI_COMM_WORLD), cls = -1;
    MPI_Error_class(rc, &cls);
    EXPECT(cls == MPI_ERR_TRUNCATE && pos == 0, "36 bytes into 32: class %d position %d", cls, pos);
    for (int i = 0; i < 16; ++i) EXPECT(packed[i] == 0x7f7f7f7f, "a refused pack wrote element %d", i);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    OK(MPI_Type_free(&t));
}

/* The MPI-3.0 _x forms: the same numbers as the int/MPI_Aint and _c forms,
 * counts beyond INT_MAX, and their errors named after themselves. */
static void x_forms(void) {
    MPI_Datatype r, big;
    OK(MPI_Type_create_resized(MPI_INT, -8, 24, &r));
    MPI_Count sx = -1, lbx = 0, extx = 0, tlbx = 0, textx = 0, sc = -2, lbc = 1, extc = 1;
    MPI_Aint lb = 0, ext = 0, tlb = 0, text = 0;
    OK(MPI_Type_size_x(r, &sx));
    OK(MPI_Type_size_c(r, &sc));
    OK(MPI_Type_get_extent_x(r, &lbx, &extx));
    OK(MPI_Type_get_extent_c(r, &lbc, &extc));
    OK(MPI_Type_get_extent(r, &lb, &ext));
    OK(MPI_Type_get_true_extent_x(r, &tlbx, &textx));
    OK(MPI_Type_get_true_extent(r, &tlb, &text));
    EXPECT(sx == 4 && sc == 4, "resized int: size_x %lld size_c %lld, want 4", (long long)sx, (long long)sc);
    EXPECT(lbx == -8 && extx == 24 && lbc == lbx && extc == extx && lb == lbx && ext == extx,
           "resized int: extent_x lb %lld extent %lld, want -8 24", (long long)lbx, (long long)extx);
    EXPECT(tlbx == 0 && textx == 4 && tlb == 0 && text == 4, "resized int: true extent_x %lld %lld, want 0 4",
           (long long)tlbx, (long long)textx);
    OK(MPI_Type_contiguous_c((MPI_Count)5 << 30, MPI_BYTE, &big));
    OK(MPI_Type_size_x(big, &sx));
    OK(MPI_Type_get_extent_x(big, &lbx, &extx));
    OK(MPI_Type_get_true_extent_x(big, &tlbx, &textx));
    EXPECT(sx == ((MPI_Count)5 << 30) && lbx == 0 && extx == sx && tlbx == 0 && textx == sx,
           "5 GiB type: size_x %lld extent_x %lld true_extent_x %lld", (long long)sx, (long long)extx,
           (long long)textx);
    /* An element count beyond INT_MAX: the int form says MPI_UNDEFINED. */
    MPI_Status st;
    memset(&st, 0, sizeof st);
    MPI_Count n = 0;
    int ni = 0;
    OK(MPI_Status_set_elements_x(&st, MPI_BYTE, (MPI_Count)5 << 30));
    OK(MPI_Get_elements_x(&st, MPI_BYTE, &n));
    OK(MPI_Get_elements(&st, MPI_BYTE, &ni));
    EXPECT(n == ((MPI_Count)5 << 30) && ni == MPI_UNDEFINED, "5 Gi elements: Get_elements_x %lld, int form %d",
           (long long)n, ni);
    OK(MPI_Get_elements_x(&st, big, &n));
    EXPECT(n == ((MPI_Count)5 << 30), "5 GiB of the 5 GiB type: Get_elements_x %lld", (long long)n);
    /* 3 basic elements of MPI_DOUBLE_INT: one whole pair and a double. */
    OK(MPI_Status_set_elements_x(&st, MPI_DOUBLE_INT, 3));
    OK(MPI_Get_elements_x(&st, MPI_DOUBLE_INT, &n));
    MPI_Count cnt = 0;
    OK(MPI_Get_count_c(&st, MPI_DOUBLE_INT, &cnt));
    EXPECT(n == 3 && cnt == MPI_UNDEFINED, "3 elements of MPI_DOUBLE_INT: %lld elements, count %lld", (long long)n,
           (long long)cnt);
    /* Errors, under MPI_ERRORS_RETURN, naming the _x function. */
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int rc = MPI_Status_set_elements_x(&st, MPI_INT, -1), len = 0;
    char msg[MPI_MAX_ERROR_STRING] = "";
    MPI_Error_string(rc, msg, &len);
    EXPECT(dt_class(rc) == MPI_ERR_COUNT, "Status_set_elements_x count -1: class %d", dt_class(rc));
    EXPECT(strstr(msg, "MPI_Status_set_elements_x") != NULL, "message names the function: %s", msg);
    rc = MPI_Type_size_x(r, NULL);
    MPI_Error_string(rc, msg, &len);
    EXPECT(dt_class(rc) == MPI_ERR_ARG, "Type_size_x NULL size: class %d", dt_class(rc));
    EXPECT(strstr(msg, "MPI_Type_size_x") != NULL, "message names the function: %s", msg);
    EXPECT_CLASS(MPI_Type_get_extent_x(MPI_DATATYPE_NULL, &lbx, &extx), MPI_ERR_TYPE);
    EXPECT_CLASS(MPI_Type_get_true_extent_x(r, &tlbx, NULL), MPI_ERR_ARG);
    EXPECT_CLASS(MPI_Get_elements_x(NULL, MPI_INT, &n), MPI_ERR_ARG);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL);
    /* and MPI is still usable */
    OK(MPI_Type_size_x(MPI_DOUBLE, &sx));
    EXPECT(sx == 8, "MPI_DOUBLE size_x %lld after the errors", (long long)sx);
    OK(MPI_Type_free(&big));
    OK(MPI_Type_free(&r));
}

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    predefined();
    contiguous_offsets();
    vector_roundtrip();
    struct_roundtrip();
    subarray_large();
    x_forms();
    return dt_finish("dt_basic");
}
