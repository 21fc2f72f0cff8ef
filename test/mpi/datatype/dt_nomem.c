/* SPDX-License-Identifier: MIT */
/* Out of memory in the datatype functions: the k-th allocation of a call
 * fails, for every k until the call needs no more. Each call must return
 * MPI_SUCCESS or an error of class MPI_ERR_NO_MEM (under MPI_ERRORS_RETURN),
 * never crash or abort, and the library must stay usable afterwards.
 * The failures come from nomem.h (it replaces malloc; only the main
 * thread's allocations fail). ch4lite only: other MPIs may handle this
 * differently. */
#include <string.h>

#include "dtcheck.h"
#include "nomem.h"

typedef int (*make_fn)(MPI_Datatype*);
static int mk_contig(MPI_Datatype* t) { return MPI_Type_contiguous(3, MPI_DOUBLE, t); }
static int mk_vector(MPI_Datatype* t) { return MPI_Type_vector(4, 2, 5, MPI_INT, t); }
static int mk_hvector(MPI_Datatype* t) { return MPI_Type_create_hvector(4, 2, 40, MPI_INT, t); }
static int mk_indexed(MPI_Datatype* t) {
    int bl[3] = {1, 2, 3}, d[3] = {0, 4, 9};
    return MPI_Type_indexed(3, bl, d, MPI_INT, t);
}
static int mk_block(MPI_Datatype* t) {
    int d[4] = {0, 7, 3, 12};
    return MPI_Type_create_indexed_block(4, 2, d, MPI_FLOAT, t);
}
static int mk_struct(MPI_Datatype* t) {
    int bl[2] = {1, 2};
    MPI_Aint d[2] = {0, 16};
    MPI_Datatype ty[2] = {MPI_DOUBLE, MPI_INT};
    return MPI_Type_create_struct(2, bl, d, ty, t);
}
static int mk_subarray(MPI_Datatype* t) {
    int sz[3] = {6, 5, 4}, sub[3] = {2, 3, 2}, st[3] = {1, 1, 2};
    return MPI_Type_create_subarray(3, sz, sub, st, MPI_ORDER_C, MPI_DOUBLE, t);
}
static int mk_darray(MPI_Datatype* t) {
    int g[3] = {5, 3, 4}, dist[3] = {MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_NONE, MPI_DISTRIBUTE_BLOCK};
    int darg[3] = {2, MPI_DISTRIBUTE_DFLT_DARG, MPI_DISTRIBUTE_DFLT_DARG}, p[3] = {2, 1, 2};
    return MPI_Type_create_darray(4, 1, 3, g, dist, darg, p, MPI_ORDER_FORTRAN, MPI_INT, t); /* 240 bytes */
}
static int mk_resized(MPI_Datatype* t) { return MPI_Type_create_resized(MPI_INT, -4, 16, t); }
static int mk_dup(MPI_Datatype* t) { return MPI_Type_dup(MPI_DOUBLE, t); }

int main(int argc, char** argv) {
    nomem_init();
    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    const struct {
        const char* name;
        make_fn make;
    } cases[] = {{"contiguous", mk_contig}, {"vector", mk_vector},   {"hvector", mk_hvector},
                 {"indexed", mk_indexed},   {"indexed_block", mk_block}, {"struct", mk_struct},
                 {"subarray", mk_subarray}, {"darray", mk_darray}, {"resized", mk_resized},
                 {"dup", mk_dup}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
        long k = 0, nomem = 0;
        for (;; ++k) {
            MPI_Datatype t = MPI_DATATYPE_NULL;
            arm(k);
            int rc = cases[c].make(&t);
            if (rc == MPI_SUCCESS) rc = MPI_Type_commit(&t);
            const long hit = failed;
            disarm();
            EXPECT(rc == MPI_SUCCESS || dt_class(rc) == MPI_ERR_NO_MEM,
                   "%s, allocation %ld failing: class %d, want success or MPI_ERR_NO_MEM",
                   cases[c].name, k, dt_class(rc));
            if (rc != MPI_SUCCESS) ++nomem;
            if (t != MPI_DATATYPE_NULL) MPI_Type_free(&t);
            if (!hit) break; /* the call needed fewer than k + 1 allocations */
        }
        EXPECT(nomem > 0, "%s: no allocation failure was reported (%ld tried)", cases[c].name, k);
        /* still usable: the same construction works and packs */
        MPI_Datatype t;
        OK(cases[c].make(&t));
        OK(MPI_Type_commit(&t));
        char in[512] = {0}, out[512];
        int pos = 0, size = 0;
        OK(MPI_Type_size(t, &size));
        OK(MPI_Pack(in + 64, 1, t, out, sizeof out, &pos, MPI_COMM_WORLD));
        EXPECT(pos == size, "%s: packed %d bytes, size %d", cases[c].name, pos, size);
        OK(MPI_Type_free(&t));
        printf("%s: %ld allocations failed in turn, %ld reported MPI_ERR_NO_MEM\n", cases[c].name, k,
               nomem);
    }
    return dt_finish("dt_nomem");
}
