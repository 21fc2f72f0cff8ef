/* SPDX-License-Identifier: MIT */
/* Every predefined op on every type it applies to, checked against
 * MPI_Reduce_local; pairs the op does not apply to must fail with
 * MPI_ERR_OP. REPLACE and NO_OP on a pair type. */
#include "mpitest.h"

static int rank, size;
static int use_create; /* argument "create": a Win_create window instead of Win_allocate */

static MPI_Datatype types[] = {MPI_INT, MPI_UNSIGNED, MPI_LONG, MPI_SHORT, MPI_SIGNED_CHAR,
                               MPI_UNSIGNED_CHAR, MPI_LONG_LONG, MPI_INT8_T, MPI_UINT64_T,
                               MPI_FLOAT, MPI_DOUBLE, MPI_LONG_DOUBLE, MPI_C_BOOL, MPI_BYTE,
                               MPI_CHAR, MPI_C_DOUBLE_COMPLEX, MPI_2INT, MPI_FLOAT_INT};
static const char* tnames[] = {"INT", "UNSIGNED", "LONG", "SHORT", "SIGNED_CHAR", "UNSIGNED_CHAR",
                               "LONG_LONG", "INT8_T", "UINT64_T", "FLOAT", "DOUBLE", "LONG_DOUBLE",
                               "C_BOOL", "BYTE", "CHAR", "C_DOUBLE_COMPLEX", "2INT", "FLOAT_INT"};
static MPI_Op ops[] = {MPI_SUM, MPI_PROD, MPI_MIN, MPI_MAX, MPI_LAND, MPI_LOR, MPI_LXOR,
                       MPI_BAND, MPI_BOR, MPI_BXOR, MPI_MINLOC, MPI_MAXLOC};
enum { NT = sizeof types / sizeof types[0], NO = sizeof ops / sizeof ops[0], CNT = 5, SLOT = 128 };

/* Small positive values every type can hold (bools get 0/1). */
static void fill(unsigned char* p, MPI_Datatype t, int seed) {
    MPI_Aint lb, ext;
    MPI_Type_get_extent(t, &lb, &ext);
    for (int k = 0; k < CNT; ++k) {
        unsigned char* e = p + k * ext;
        int v = 1 + (seed * 3 + k) % 5;
        if (t == MPI_INT || t == MPI_INT32_T) *(int*)e = v;
        else if (t == MPI_UNSIGNED) *(unsigned*)e = v;
        else if (t == MPI_LONG) *(long*)e = v;
        else if (t == MPI_SHORT) *(short*)e = (short)v;
        else if (t == MPI_SIGNED_CHAR || t == MPI_INT8_T || t == MPI_CHAR) *(signed char*)e = (signed char)v;
        else if (t == MPI_UNSIGNED_CHAR || t == MPI_BYTE) *(unsigned char*)e = (unsigned char)v;
        else if (t == MPI_LONG_LONG) *(long long*)e = v;
        else if (t == MPI_UINT64_T) *(unsigned long long*)e = v;
        else if (t == MPI_FLOAT) *(float*)e = v;
        else if (t == MPI_DOUBLE) *(double*)e = v;
        else if (t == MPI_LONG_DOUBLE) *(long double*)e = v;
        else if (t == MPI_C_BOOL) *(_Bool*)e = v & 1;
        else if (t == MPI_C_DOUBLE_COMPLEX) { ((double*)e)[0] = v; ((double*)e)[1] = -v; }
        else if (t == MPI_2INT) { ((int*)e)[0] = v; ((int*)e)[1] = seed; }
        else if (t == MPI_FLOAT_INT) { *(float*)e = v; *(int*)(e + sizeof(float)) = seed; }
    }
}

static void all_ops(void) {
    /* window: NT x NO slots of SLOT bytes; rank r writes into the right neighbour. */
    const size_t bytes = (size_t)NT * NO * SLOT;
    unsigned char* mem;
    MPI_Win win;
    if (use_create) {
        mem = malloc(bytes);
        CHECK_MPI(MPI_Win_create(mem, (MPI_Aint)bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    } else {
        CHECK_MPI(MPI_Win_allocate(bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
    }
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    static int applies[NT][NO];
    for (int t = 0; t < NT; ++t)
        for (int o = 0; o < NO; ++o) fill(mem + (t * NO + o) * SLOT, types[t], 100 + o);
    CHECK_MPI(MPI_Win_fence(0, win));
    for (int t = 0; t < NT; ++t)
        for (int o = 0; o < NO; ++o) {
            unsigned char in[SLOT], probe[SLOT];
            fill(in, types[t], rank);
            fill(probe, types[t], 0);
            applies[t][o] = MPI_Reduce_local(in, probe, CNT, types[t], ops[o]) == MPI_SUCCESS;
            int rc = MPI_Accumulate(in, CNT, types[t], right, (t * NO + o) * SLOT, CNT, types[t], ops[o], win);
            if (applies[t][o]) {
                CHECK(rc == MPI_SUCCESS, "Accumulate(%s) failed on %s", tnames[t], "an applicable op");
            } else {
                int cls;
                MPI_Error_class(rc, &cls);
                CHECK(cls == MPI_ERR_OP, "Accumulate op %d on %s: class %d, want MPI_ERR_OP", o, tnames[t], cls);
            }
        }
    CHECK_MPI(MPI_Win_fence(0, win));
    for (int t = 0; t < NT; ++t)
        for (int o = 0; o < NO; ++o) {
            unsigned char in[SLOT], want[SLOT];
            fill(in, types[t], left);
            fill(want, types[t], 100 + o);
            if (applies[t][o]) CHECK_MPI(MPI_Reduce_local(in, want, CNT, types[t], ops[o]));
            MPI_Aint lb, ext;
            MPI_Type_get_extent(types[t], &lb, &ext);
            int sz;
            MPI_Type_size(types[t], &sz);
            for (int k = 0; k < CNT; ++k)
                CHECK(memcmp(mem + (t * NO + o) * SLOT + k * ext, want + k * ext, sz == 12 && ext == 16 ? 12 : (size_t)(sz < ext ? sz : ext)) == 0 ||
                          types[t] == MPI_LONG_DOUBLE && memcmp(mem + (t * NO + o) * SLOT + k * ext, want + k * ext, 10) == 0,
                      "accumulate op %d on %s, element %d differs", o, tnames[t], k);
        }
    /* REPLACE and NO_OP on a struct type (2INT) */
    int pair[2] = {rank, -rank}, *slot0 = (int*)mem;
    CHECK_MPI(MPI_Win_fence(0, win));
    CHECK_MPI(MPI_Accumulate(pair, 1, MPI_2INT, right, 0, 1, MPI_2INT, MPI_REPLACE, win));
    CHECK_MPI(MPI_Accumulate(pair, 1, MPI_2INT, right, 0, 1, MPI_2INT, MPI_NO_OP, win));
    CHECK_MPI(MPI_Win_fence(0, win));
    CHECK(slot0[0] == left && slot0[1] == -left, "REPLACE / NO_OP on MPI_2INT");
    CHECK_MPI(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
    CHECK_MPI(MPI_Win_free(&win));
    if (use_create) free(mem);
}

int main(int argc, char** argv) {
    mt_init(&argc, &argv);
    use_create = argc > 1 && strcmp(argv[1], "create") == 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    all_ops();
    if (rank == 0) printf("rma_acc_ops: OK\n");
    MPI_Finalize();
    return 0;
}
