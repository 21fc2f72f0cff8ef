/* SPDX-License-Identifier: MIT */
/* Datatypes nested a million levels deep through the MPI API (docs/dame-types.md,
 * "Depth"). Contiguous of contiguous, struct of struct, every constructor in
 * turn (the _c forms among them) and a chain of MPI_Type_dup: each commits,
 * moves through MPI_Pack, a message to self and external32, answers its
 * queries, and MPI_Type_free releases the whole chain. Every level's handle
 * is freed as soon as the next level holds its type, as an application
 * building such a type would. A nest whose size overflows fails with
 * MPI_ERR_ARG at the level that overflows.
 *   dt_deep [levels]     (default 1000000)
 * Plain C: it also builds against MPICH (4.0.2 crashes committing about
 * 174 000 contiguous levels; Open MPI 4.1 has no _c constructors). */
#include <stdint.h>
#include <string.h>

#include "dtcheck.h"

typedef int (*level_fn)(MPI_Datatype prev, long level, MPI_Datatype* out);

static int contig(MPI_Datatype p, long i, MPI_Datatype* o) { return MPI_Type_contiguous(1, p, o); }
static int contig_c(MPI_Datatype p, long i, MPI_Datatype* o) { return MPI_Type_contiguous_c(1, p, o); }
static int vector(MPI_Datatype p, long i, MPI_Datatype* o) { return MPI_Type_vector(1, 1, 3, p, o); }
static int hvector(MPI_Datatype p, long i, MPI_Datatype* o) { return MPI_Type_create_hvector(1, 1, 64, p, o); }
static int indexed(MPI_Datatype p, long i, MPI_Datatype* o) {
    int b = 1, d = 0;
    return MPI_Type_indexed(1, &b, &d, p, o);
}
static int hindexed(MPI_Datatype p, long i, MPI_Datatype* o) {
    int b[2] = {1, 0}; /* an empty second block */
    MPI_Aint d[2] = {0, 16};
    return MPI_Type_create_hindexed(2, b, d, p, o);
}
static int block(MPI_Datatype p, long i, MPI_Datatype* o) {
    int d = 0;
    return MPI_Type_create_indexed_block(1, 1, &d, p, o);
}
static int hblock_c(MPI_Datatype p, long i, MPI_Datatype* o) {
    MPI_Count d = 0;
    return MPI_Type_create_hindexed_block_c(1, 1, &d, p, o);
}
static int strct(MPI_Datatype p, long i, MPI_Datatype* o) {
    int b = 1;
    MPI_Aint d = 0;
    return MPI_Type_create_struct(1, &b, &d, &p, o);
}
static int strct_shared(MPI_Datatype p, long i, MPI_Datatype* o) {
    int b[2] = {1, 0}; /* the level below twice, once empty: 2^n paths */
    MPI_Aint d[2] = {0, 8};
    MPI_Datatype t[2] = {p, p};
    return MPI_Type_create_struct(2, b, d, t, o);
}
static int resized(MPI_Datatype p, long i, MPI_Datatype* o) {
    MPI_Aint lb, ext;
    MPI_Type_get_extent(p, &lb, &ext);
    return MPI_Type_create_resized(p, lb, ext, o);
}
static int dup(MPI_Datatype p, long i, MPI_Datatype* o) { return MPI_Type_dup(p, o); }
static int subarray(MPI_Datatype p, long i, MPI_Datatype* o) {
    int s = 1, sub = 1, st = 0;
    return MPI_Type_create_subarray(1, &s, &sub, &st, MPI_ORDER_C, p, o);
}
static int darray(MPI_Datatype p, long i, MPI_Datatype* o) {
    int g = 1, d = MPI_DISTRIBUTE_BLOCK, a = MPI_DISTRIBUTE_DFLT_DARG, ps = 1;
    return MPI_Type_create_darray(1, 0, 1, &g, &d, &a, &ps, MPI_ORDER_FORTRAN, p, o);
}
static const level_fn every[] = {contig, contig_c, vector, hvector, indexed, hindexed, block,
                                 hblock_c, strct, strct_shared, resized, dup, subarray, darray};
#define NEVERY ((long)(sizeof every / sizeof every[0]))
static int mixed(MPI_Datatype p, long i, MPI_Datatype* o) { return every[i % NEVERY](p, i, o); }

/* n levels of f over base; each level's handle is freed once the next holds it. */
static MPI_Datatype chain(long n, level_fn f, MPI_Datatype base, int commit_each) {
    MPI_Datatype cur = base;
    for (long i = 0; i < n; ++i) {
        MPI_Datatype next;
        OK(f(cur, i, &next));
        if (commit_each) OK(MPI_Type_commit(&next));
        if (cur != base) OK(MPI_Type_free(&cur));
        cur = next;
    }
    return cur;
}

/* The deep type t holds one element of base (MPI_INT or MPI_LONG) per
 * instance: it must move, count and convert as that element does. */
static void check_moves(MPI_Datatype t, MPI_Datatype base, const char* what) {
    const int n = 3;
    long in[3] = {11, -22, 33}, out[3] = {0, 0, 0};
    int in_i[3] = {11, -22, 33}, out_i[3] = {0, 0, 0};
    const int is_long = base == MPI_LONG;
    void* src = is_long ? (void*)in : (void*)in_i;
    void* dst = is_long ? (void*)out : (void*)out_i;
    const size_t bytes = is_long ? sizeof in : sizeof in_i;
    MPI_Count size = -1;
    MPI_Aint lb = -1, ext = -1, tlb = -1, text = -1;
    OK(MPI_Type_size_c(t, &size));
    OK(MPI_Type_get_extent(t, &lb, &ext));
    OK(MPI_Type_get_true_extent(t, &tlb, &text));
    EXPECT(size == (MPI_Count)(bytes / 3) && tlb == 0 && text == (MPI_Aint)(bytes / 3),
           "%s: size %lld true lb %ld true extent %ld", what, (long long)size, (long)tlb, (long)text);
    /* MPI_Pack / MPI_Unpack */
    char packed[64];
    int pos = 0, psize = 0;
    OK(MPI_Pack_size(n, t, MPI_COMM_WORLD, &psize));
    EXPECT(psize == (int)bytes, "%s: pack size %d", what, psize);
    /* the elements lie an extent apart: gather them to a strided buffer first */
    char typed[3 * 4096];
    EXPECT(ext <= 4096, "%s: extent %ld", what, (long)ext);
    if (ext > 4096) return;
    memset(typed, 0, sizeof typed);
    for (int i = 0; i < n; ++i) memcpy(typed + i * ext, (char*)src + i * (bytes / 3), bytes / 3);
    OK(MPI_Pack(typed, n, t, packed, sizeof packed, &pos, MPI_COMM_WORLD));
    EXPECT(pos == (int)bytes && memcmp(packed, src, bytes) == 0, "%s: MPI_Pack", what);
    char typed2[3 * 4096];
    memset(typed2, 0, sizeof typed2);
    pos = 0;
    OK(MPI_Unpack(packed, sizeof packed, &pos, typed2, n, t, MPI_COMM_WORLD));
    EXPECT(memcmp(typed, typed2, sizeof typed) == 0, "%s: MPI_Unpack", what);
    /* a message to self: the deep type on one side, the base on the other */
    MPI_Status st;
    memset(dst, 0, bytes);
    OK(MPI_Sendrecv(typed, n, t, 0, 5, dst, n, base, 0, 5, MPI_COMM_SELF, &st));
    EXPECT(memcmp(dst, src, bytes) == 0, "%s: send of the deep type", what);
    memset(typed2, 0, sizeof typed2);
    OK(MPI_Sendrecv(src, n, base, 0, 6, typed2, n, t, 0, 6, MPI_COMM_SELF, &st));
    EXPECT(memcmp(typed, typed2, sizeof typed) == 0, "%s: receive into the deep type", what);
    int count = -1, elements = -1;
    OK(MPI_Get_count(&st, t, &count));
    OK(MPI_Get_elements(&st, t, &elements));
    EXPECT(count == n && elements == n, "%s: count %d elements %d", what, count, elements);
    /* external32: 4 bytes per element (MPI_LONG narrows), big-endian */
    MPI_Aint esize = -1, epos = 0;
    OK(MPI_Pack_external_size("external32", n, t, &esize));
    EXPECT(esize == 12, "%s: external32 size %ld", what, (long)esize);
    unsigned char ebuf[12];
    OK(MPI_Pack_external("external32", typed, n, t, ebuf, sizeof ebuf, &epos));
    EXPECT(epos == 12 && ebuf[3] == 11 && ebuf[7] == (unsigned char)-22 && ebuf[11] == 33,
           "%s: external32 bytes", what);
    memset(typed2, 0, sizeof typed2);
    epos = 0;
    OK(MPI_Unpack_external("external32", ebuf, sizeof ebuf, &epos, typed2, n, t));
    EXPECT(memcmp(typed, typed2, sizeof typed) == 0, "%s: external32 round trip", what);
}

/* A million levels of one constructor (or of all in turn). */
static void deep(long n, level_fn f, MPI_Datatype base, const char* what) {
    MPI_Datatype t = chain(n, f, base, 0);
    OK(MPI_Type_commit(&t));
    check_moves(t, base, what);
    /* the envelope and contents of the top level */
    MPI_Count ni, na, nc, nd;
    int comb;
    OK(MPI_Type_get_envelope_c(t, &ni, &na, &nc, &nd, &comb));
    EXPECT(nd >= 1 && nd <= 2, "%s: %lld datatypes in the envelope", what, (long long)nd);
    if (nd >= 1 && nd <= 2 && ni <= 16 && na <= 16 && nc <= 16) {
        int ints[16];
        MPI_Aint aints[16];
        MPI_Count counts[16];
        MPI_Datatype kids[2];
        OK(MPI_Type_get_contents_c(t, 16, 16, 16, 2, ints, aints, counts, kids));
        for (int k = 0; k < (int)nd; ++k) {
            MPI_Count ks = -1;
            OK(MPI_Type_size_c(kids[k], &ks));
            EXPECT(ks == 4 || ks == 8, "%s: contents type %d of size %lld", what, k, (long long)ks);
            if (kids[k] != base) OK(MPI_Type_free(&kids[k]));
        }
    }
    OK(MPI_Type_free(&t)); /* the whole chain goes */
}

/* MPI_Type_dup of MPI_Type_dup ...: each level committed as it is made. */
static void dup_chain(long n) {
    MPI_Datatype v;
    OK(MPI_Type_vector(1, 1, 1, MPI_INT, &v));
    OK(MPI_Type_commit(&v));
    MPI_Datatype t = chain(n, dup, v, 1);
    OK(MPI_Type_free(&v));
    int ni, na, nd, comb;
    OK(MPI_Type_get_envelope(t, &ni, &na, &nd, &comb));
    EXPECT(comb == MPI_COMBINER_DUP && nd == 1, "dup chain: combiner %d", comb);
    check_moves(t, MPI_INT, "dup chain");
    OK(MPI_Type_free(&t));
}

/* contiguous(2, ...) doubles the size at every level: the level whose size
 * overflows is refused, with a message, and MPI stays usable. */
static void overflowing(void) {
    MPI_Datatype cur = MPI_INT;
    int rc = MPI_SUCCESS, level = 0;
    while (level < 200) {
        MPI_Datatype next;
        rc = MPI_Type_contiguous(2, cur, &next);
        if (rc != MPI_SUCCESS) break;
        if (cur != MPI_INT) MPI_Type_free(&cur);
        cur = next;
        ++level;
    }
    EXPECT(rc != MPI_SUCCESS && dt_class(rc) == MPI_ERR_ARG && level == 60,
           "overflowing nest: class %d at level %d", dt_class(rc), level);
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(rc, msg, &len);
    EXPECT(strstr(msg, "MPI_Type_contiguous") != NULL && strstr(msg, "overflow") != NULL, "message: %s", msg);
    OK(MPI_Type_commit(&cur));
    if (cur != MPI_INT) OK(MPI_Type_free(&cur));
}

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    const long n = argc > 1 ? atol(argv[1]) : 1000000;
    deep(n, contig, MPI_INT, "contiguous");
    deep(n, strct, MPI_INT, "struct");
    deep(n, mixed, MPI_INT, "every constructor");
    deep(n / 10, mixed, MPI_LONG, "every constructor over MPI_LONG");
    dup_chain(n);
    overflowing();
    return dt_finish("dt_deep");
}
