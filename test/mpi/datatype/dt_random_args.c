/* SPDX-License-Identifier: MIT */
/* Random arguments, valid and not, to every datatype constructor, then the
 * queries, element counts, commit, pack/unpack, external32 and contents
 * of whatever was built, under MPI_ERRORS_RETURN. Every call must return MPI_SUCCESS or an
 * argument error class (never an internal one) with a message naming the
 * function; nothing may crash (the sanitizer build runs this too); a type
 * that was built round-trips through MPI_Pack/MPI_Unpack; MPI stays usable.
 * A fixed seed (argv[1] may give another) keeps a failure reproducible. */
#include <stdint.h>
#include <string.h>

#include "dtcheck.h"

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint64_t next(void) {
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return rng;
}
static int64_t pick(int64_t lo, int64_t hi) { return lo + (int64_t)(next() % (uint64_t)(hi - lo + 1)); }

/* A count, length or stride: mostly small, sometimes negative or huge. */
static int64_t num(void) {
    switch (next() % 10) {
        case 0: return pick(-3, -1);
        case 1: return pick(INT32_MAX - 2, INT32_MAX);
        case 2: return (int64_t)1 << pick(31, 62);
        case 3: return -((int64_t)1 << pick(31, 62));
        default: return pick(0, 6);
    }
}
static int inum(void) {
    int64_t v = num();
    return v > INT32_MAX ? INT32_MAX : v < INT32_MIN ? INT32_MIN : (int)v;
}

#define POOL 16
static MPI_Datatype pool[POOL]; /* derived types built so far (MPI_DATATYPE_NULL: empty) */
static MPI_Datatype freed = MPI_DATATYPE_NULL;
static const MPI_Datatype basics[] = {MPI_INT,         MPI_DOUBLE,           MPI_CHAR,
                                      MPI_SHORT_INT,   MPI_DOUBLE_INT,       MPI_LONG_DOUBLE,
                                      MPI_C_DOUBLE_COMPLEX, MPI_BYTE,       MPI_LONG};

static MPI_Datatype old_type(void) {
    switch (next() % 12) {
        case 0: return MPI_DATATYPE_NULL;
        case 1: return freed != MPI_DATATYPE_NULL ? freed : (MPI_Datatype)(uintptr_t)0x7777777;
        case 2: return (MPI_Datatype)(uintptr_t)pick(1, 0xffffff);
        case 3: case 4: case 5: case 6: {
            MPI_Datatype t = pool[next() % POOL];
            if (t != MPI_DATATYPE_NULL) return t;
        } /* fall through */
        default: return basics[next() % (sizeof basics / sizeof basics[0])];
    }
}

static long calls, built, errors_seen;

/* MPI_SUCCESS or an argument class, and a message naming fn. */
static int check(int rc, const char* fn) {
    ++calls;
    if (rc == MPI_SUCCESS) return 1;
    ++errors_seen;
    int cls = dt_class(rc), len = 0;
    char msg[MPI_MAX_ERROR_STRING] = "";
    MPI_Error_string(rc, msg, &len);
    EXPECT(cls == MPI_ERR_ARG || cls == MPI_ERR_COUNT || cls == MPI_ERR_TYPE || cls == MPI_ERR_TRUNCATE ||
               cls == MPI_ERR_DIMS || cls == MPI_ERR_RANK || cls == MPI_ERR_NO_MEM ||
               cls == MPI_ERR_VALUE_TOO_LARGE ||  /* a size output that cannot hold the value */
               (cls == MPI_ERR_CONVERSION && strcmp(fn, "MPI_Pack_external") == 0),
           "%s: class %d (%s)", fn, cls, msg);
    EXPECT(strstr(msg, fn) != NULL, "%s: message does not name it: %s", fn, msg);
    return 0;
}

static void keep(MPI_Datatype t) {
    int slot = (int)(next() % POOL);
    if (pool[slot] != MPI_DATATYPE_NULL) {
        MPI_Datatype old = pool[slot];
        if (check(MPI_Type_free(&pool[slot]), "MPI_Type_free")) freed = old;
    }
    pool[slot] = t;
    ++built;
}

/* Everything one can ask of a type that was built. */
static void use(MPI_Datatype t) {
    MPI_Count size = 0, lb = 0, ext = 0, tlb = 0, text = 0;
    check(MPI_Type_size_c(t, &size), "MPI_Type_size_c");
    check(MPI_Type_get_extent_c(t, &lb, &ext), "MPI_Type_get_extent_c");
    check(MPI_Type_get_true_extent_c(t, &tlb, &text), "MPI_Type_get_true_extent_c");
    MPI_Count ni = 0, na = 0, nc = 0, nd = 0;
    int comb = 0;
    if (check(MPI_Type_get_envelope_c(t, &ni, &na, &nc, &nd, &comb), "MPI_Type_get_envelope_c") &&
        comb != MPI_COMBINER_NAMED && ni < 4096 && na < 4096 && nc < 4096 && nd < 4096) {
        int* is = malloc(sizeof(int) * (size_t)(ni + 1));
        MPI_Aint* as = malloc(sizeof(MPI_Aint) * (size_t)(na + 1));
        MPI_Count* cs = malloc(sizeof(MPI_Count) * (size_t)(nc + 1));
        MPI_Datatype* ds = malloc(sizeof(MPI_Datatype) * (size_t)(nd + 1));
        if (check(MPI_Type_get_contents_c(t, ni, na, nc, nd, is, as, cs, ds), "MPI_Type_get_contents_c"))
            for (MPI_Count i = 0; i < nd; ++i) {
                int c2 = 0;
                MPI_Count a, b, c, d;
                check(MPI_Type_get_envelope_c(ds[i], &a, &b, &c, &d, &c2), "MPI_Type_get_envelope_c");
                if (c2 != MPI_COMBINER_NAMED) check(MPI_Type_free(&ds[i]), "MPI_Type_free");
            }
        free(is), free(as), free(cs), free(ds);
    }
    /* elements: of one instance, then any number of them round-trips
     * through a status */
    MPI_Status st;
    memset(&st, 0, sizeof st);
    MPI_Count elems = -1, k = 0, back_k = -1;
    if (size > 0 && check(MPI_Status_set_elements_x(&st, MPI_BYTE, size), "MPI_Status_set_elements_x") &&
        check(MPI_Get_elements_x(&st, t, &elems), "MPI_Get_elements_x") && elems >= 0) {
        const uint64_t range = elems < INT64_MAX / 3 ? (uint64_t)elems * 3 + 1 : (uint64_t)elems;
        k = range ? (MPI_Count)(next() % range) : 0;
        if (check(MPI_Status_set_elements_x(&st, t, k), "MPI_Status_set_elements_x") &&
            check(MPI_Get_elements_x(&st, t, &back_k), "MPI_Get_elements_x"))
            EXPECT(back_k == k, "%lld elements set, %lld read back", (long long)k, (long long)back_k);
    }
    if (!check(MPI_Type_commit(&t), "MPI_Type_commit")) return;
    MPI_Count psize = 0;
    check(MPI_Pack_size_c(1, t, MPI_COMM_WORLD, &psize), "MPI_Pack_size_c");
    MPI_Aint esize = 0;
    check(MPI_Pack_external_size("external32", 1, t, &esize), "MPI_Pack_external_size");
    /* Move one instance when it is small enough to lay out in memory. */
    if (size <= 0 || size > 4096 || text > (1 << 20) || tlb < -(1 << 20) || tlb > (1 << 20)) return;
    char* mem = malloc((size_t)text + 1);
    char* back = malloc((size_t)text + 1);
    unsigned char* packed = malloc((size_t)size + (size_t)esize + 16);
    for (MPI_Count i = 0; i < text; ++i) mem[i] = (char)(i * 7 + 1);
    memcpy(back, mem, (size_t)text);
    char* base = mem - tlb; /* the type's data starts at base + true_lb */
    MPI_Count pos = 0;
    if (check(MPI_Pack_c(base, 1, t, packed, size, &pos, MPI_COMM_WORLD), "MPI_Pack_c")) {
        EXPECT(pos == size, "packed %lld bytes of a type of size %lld", (long long)pos, (long long)size);
        memset(mem, 0, (size_t)text);
        pos = 0;
        if (check(MPI_Unpack_c(packed, size, &pos, base, 1, t, MPI_COMM_WORLD), "MPI_Unpack_c")) {
            /* every byte of the type map is back; the gaps stay 0 */
            for (MPI_Count i = 0; i < text; ++i)
                if (mem[i] != 0 && mem[i] != back[i]) {
                    EXPECT(0, "unpack wrote byte %lld wrongly", (long long)i);
                    break;
                }
            MPI_Count pos2 = 0;
            unsigned char* again = malloc((size_t)size + 1);
            check(MPI_Pack_c(base, 1, t, again, size, &pos2, MPI_COMM_WORLD), "MPI_Pack_c");
            EXPECT(memcmp(again, packed, (size_t)size) == 0, "pack(unpack(pack)) differs");
            free(again);
        }
    }
    MPI_Aint epos = 0;
    if (esize > 0 && check(MPI_Pack_external("external32", base, 1, t, packed, esize, &epos),
                           "MPI_Pack_external"))
        EXPECT(epos == esize, "external32 packed %ld of %ld bytes", (long)epos, (long)esize);
    /* a buffer one byte short */
    pos = 0;
    EXPECT_CLASS(MPI_Pack_c(base, 1, t, packed, size - 1, &pos, MPI_COMM_WORLD), MPI_ERR_TRUNCATE);
    free(mem), free(back), free(packed);
}

static void one(void) {
    MPI_Datatype t = MPI_DATATYPE_NULL, o = old_type();
    int n = (int)pick(-1, 6), rc = MPI_SUCCESS;
    const char* fn = "";
    int ib[8], id[8];
    MPI_Aint ad[8];
    MPI_Count cb[8], cd[8];
    for (int i = 0; i < 8; ++i) ib[i] = inum() % 5, id[i] = inum(), ad[i] = (MPI_Aint)num(), cb[i] = num() % 5,
                              cd[i] = num();
    MPI_Datatype ts[8];
    for (int i = 0; i < 8; ++i) ts[i] = old_type();
    const int nulls = next() % 16 == 0; /* a NULL array now and then */
    switch (next() % 16) {
        case 0: fn = "MPI_Type_contiguous"; rc = MPI_Type_contiguous(inum(), o, &t); break;
        case 1: fn = "MPI_Type_contiguous_c"; rc = MPI_Type_contiguous_c(num(), o, &t); break;
        case 2: fn = "MPI_Type_vector"; rc = MPI_Type_vector(inum(), inum(), inum(), o, &t); break;
        case 3: fn = "MPI_Type_create_hvector_c";
            rc = MPI_Type_create_hvector_c(num(), num(), num(), o, &t); break;
        case 4: fn = "MPI_Type_indexed";
            rc = MPI_Type_indexed(n, nulls ? NULL : ib, id, o, &t); break;
        case 5: fn = "MPI_Type_create_hindexed";
            rc = MPI_Type_create_hindexed(n, ib, nulls ? NULL : ad, o, &t); break;
        case 6: fn = "MPI_Type_create_indexed_block";
            rc = MPI_Type_create_indexed_block(n, inum(), nulls ? NULL : id, o, &t); break;
        case 7: fn = "MPI_Type_create_hindexed_block";
            rc = MPI_Type_create_hindexed_block(n, inum(), ad, o, &t); break;
        case 8: fn = "MPI_Type_create_struct";
            rc = MPI_Type_create_struct(n, ib, ad, nulls ? NULL : ts, &t); break;
        case 9: fn = "MPI_Type_create_struct_c";
            rc = MPI_Type_create_struct_c(n, cb, cd, ts, &t); break;
        case 10: {
            fn = "MPI_Type_create_subarray";
            int sizes[8], subs[8], starts[8];
            for (int i = 0; i < 8; ++i) sizes[i] = (int)pick(-1, 6), subs[i] = (int)pick(-1, 6), starts[i] = (int)pick(-1, 6);
            rc = MPI_Type_create_subarray(n, sizes, subs, starts, next() % 2 ? MPI_ORDER_C : MPI_ORDER_FORTRAN, o, &t);
            break;
        }
        case 11: {
            fn = "MPI_Type_create_darray";
            int gs[8], ds[8], da[8], ps[8];
            for (int i = 0; i < 8; ++i) {
                gs[i] = (int)pick(-1, 9);
                ds[i] = (int)(next() % 4) == 3 ? 12345 : (int[]){MPI_DISTRIBUTE_NONE, MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC}[next() % 3];
                da[i] = next() % 3 ? MPI_DISTRIBUTE_DFLT_DARG : (int)pick(-1, 4);
                ps[i] = (int)pick(0, 3);
            }
            rc = MPI_Type_create_darray((int)pick(-1, 8), (int)pick(-1, 8), n, gs, ds, da, ps,
                                        next() % 2 ? MPI_ORDER_C : MPI_ORDER_FORTRAN, o, &t);
            break;
        }
        case 12: fn = "MPI_Type_create_resized_c"; rc = MPI_Type_create_resized_c(o, num(), num(), &t); break;
        case 13: fn = "MPI_Type_dup"; rc = MPI_Type_dup(o, &t); break;
        case 14: fn = "MPI_Type_create_f90_real";
            rc = MPI_Type_create_f90_real(next() % 4 ? (int)pick(-2, 40) : MPI_UNDEFINED,
                                          next() % 4 ? (int)pick(-2, 5000) : MPI_UNDEFINED, &t);
            if (rc == MPI_SUCCESS) { use(t); t = MPI_DATATYPE_NULL; } /* not freeable */
            break;
        default: fn = "MPI_Type_vector_c"; rc = MPI_Type_vector_c(num(), num(), num(), o, &t); break;
    }
    if (check(rc, fn) && t != MPI_DATATYPE_NULL) {
        use(t);
        keep(t);
    }
}

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    if (argc > 1) rng = strtoull(argv[1], NULL, 0) | 1;
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    const int rounds = 20000;
    for (int i = 0; i < rounds && dt_failures < 20; ++i) one();
    for (int i = 0; i < POOL; ++i)
        if (pool[i] != MPI_DATATYPE_NULL) check(MPI_Type_free(&pool[i]), "MPI_Type_free");
    /* still usable */
    MPI_Datatype v;
    OK(MPI_Type_vector(2, 1, 3, MPI_INT, &v));
    OK(MPI_Type_commit(&v));
    int src[6] = {1, 2, 3, 4, 5, 6}, out[2] = {0, 0}, pos = 0;
    OK(MPI_Pack(src, 1, v, out, sizeof out, &pos, MPI_COMM_WORLD));
    EXPECT(out[0] == 1 && out[1] == 4, "MPI after the random calls: %d %d", out[0], out[1]);
    OK(MPI_Type_free(&v));
    EXPECT(built > rounds / 10 && errors_seen > rounds / 10, "%ld types built, %ld errors: too few of either",
           built, errors_seen);
    printf("dt_random_args: %ld calls, %ld types built, %ld errors returned\n", calls, built, errors_seen);
    return dt_finish("dt_random_args");
}
