/* SPDX-License-Identifier: MIT */
/* Blocking MPI_Send / MPI_Recv of noncontiguous buffers small enough for one
 * shm message: packed straight into the ring and unpacked straight out of it
 * without a request (docs/ddt-wire.md, "Direct paths and staging on the node"), and every case that
 * must leave that path or take it correctly: a receive waiting at the ring
 * head, messages already queued unexpected (taken out of order), a typed
 * message into a contiguous receive and back, a partial receive (the right
 * MPI_Get_elements), a truncated one (MPI_ERR_TRUNCATE, no byte written past
 * the message's first ones), MPI_ANY_SOURCE / MPI_ANY_TAG, and zero counts.
 * Every received byte and every gap byte between blocks is checked. */
#include "mpitest.h"

enum { BLOCKS = 300, GAP = 3 }; /* vector of BLOCKS ints, stride GAP: 1200 packed bytes */
#define EXT (BLOCKS * GAP)

static void fill_vec(int* a, int n, int seed) {
    for (int i = 0; i < n * EXT; ++i) a[i] = -1;
    for (int k = 0; k < n * BLOCKS; ++k) a[(k / BLOCKS) * EXT + (k % BLOCKS) * GAP] = seed * 100000 + k;
}
/* First `got` elements of the stream hold seed's values, the rest and every gap -7. */
static void check_vec(const int* a, int n, int got, int seed, const char* what) {
    for (int i = 0; i < n * EXT; ++i) {
        const int k = (i / EXT) * BLOCKS + (i % EXT) / GAP;
        const int want = (i % EXT) % GAP == 0 && k < got ? seed * 100000 + k : -7;
        CHECK(a[i] == want, "%s: int %d is %d, expected %d", what, i, a[i], want);
    }
}

int main(int argc, char** argv) {
    mt_init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    MPI_Datatype vec0, vec; /* extent EXT ints: the trailing gap too */
    CHECK_MPI(MPI_Type_vector(BLOCKS, 1, GAP, MPI_INT, &vec0));
    CHECK_MPI(MPI_Type_create_resized(vec0, 0, (MPI_Aint)(EXT * sizeof(int)), &vec));
    CHECK_MPI(MPI_Type_free(&vec0));
    CHECK_MPI(MPI_Type_commit(&vec));
    int* s = malloc(sizeof(int) * 4 * EXT);
    int* r = malloc(sizeof(int) * 4 * EXT);
    int* flat = malloc(sizeof(int) * 4 * BLOCKS);
    CHECK(s && r && flat, "malloc");
    MPI_Status st;
    int n = -1;
    if (rank == 0) {
        /* 1. The receiver waits first (ring head). */
        CHECK_MPI(MPI_Recv(NULL, 0, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        fill_vec(s, 2, 1);
        CHECK_MPI(MPI_Send(s, 2, vec, 1, 1, MPI_COMM_WORLD));
        /* 2. Three messages that wait unexpected, taken in reverse. */
        for (int t = 2; t <= 4; ++t) {
            fill_vec(s, 1, t);
            CHECK_MPI(MPI_Send(s, 1, vec, 1, t, MPI_COMM_WORLD));
        }
        CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
        /* 3. Typed into contiguous, contiguous into typed. */
        fill_vec(s, 1, 5);
        CHECK_MPI(MPI_Send(s, 1, vec, 1, 5, MPI_COMM_WORLD));
        for (int k = 0; k < BLOCKS; ++k) flat[k] = 6 * 100000 + k;
        CHECK_MPI(MPI_Send(flat, BLOCKS, MPI_INT, 1, 6, MPI_COMM_WORLD));
        /* 4. Partial (1 element into room for 2), truncated (2 into 1). */
        fill_vec(s, 2, 7);
        CHECK_MPI(MPI_Send(s, 1, vec, 1, 7, MPI_COMM_WORLD));
        CHECK_MPI(MPI_Send(s, 2, vec, 1, 8, MPI_COMM_WORLD));
        /* 5. Wildcards, and a zero count. */
        fill_vec(s, 1, 9);
        CHECK_MPI(MPI_Send(s, 1, vec, 1, 9, MPI_COMM_WORLD));
        CHECK_MPI(MPI_Send(s, 0, vec, 1, 10, MPI_COMM_WORLD));
    } else if (rank == 1) {
        for (int i = 0; i < 4 * EXT; ++i) r[i] = -7;
        CHECK_MPI(MPI_Send(NULL, 0, MPI_INT, 0, 0, MPI_COMM_WORLD));
        CHECK_MPI(MPI_Recv(r, 2, vec, 0, 1, MPI_COMM_WORLD, &st));
        CHECK_MPI(MPI_Get_count(&st, vec, &n));
        CHECK(n == 2, "ring head: count %d, expected 2", n);
        check_vec(r, 2, 2 * BLOCKS, 1, "ring head");
        CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD)); /* its progress queues tags 2..4 */
        for (int t = 4; t >= 2; --t) {
            for (int i = 0; i < 4 * EXT; ++i) r[i] = -7;
            CHECK_MPI(MPI_Recv(r, 1, vec, 0, t, MPI_COMM_WORLD, &st));
            CHECK(st.MPI_TAG == t, "unexpected: tag %d, expected %d", st.MPI_TAG, t);
            check_vec(r, 1, BLOCKS, t, "unexpected");
        }
        CHECK_MPI(MPI_Recv(flat, BLOCKS, MPI_INT, 0, 5, MPI_COMM_WORLD, &st));
        for (int k = 0; k < BLOCKS; ++k) CHECK(flat[k] == 5 * 100000 + k, "typed -> contiguous: int %d", k);
        for (int i = 0; i < 4 * EXT; ++i) r[i] = -7;
        CHECK_MPI(MPI_Recv(r, 1, vec, 0, 6, MPI_COMM_WORLD, &st));
        check_vec(r, 1, BLOCKS, 6, "contiguous -> typed");
        for (int i = 0; i < 4 * EXT; ++i) r[i] = -7;
        CHECK_MPI(MPI_Recv(r, 2, vec, 0, 7, MPI_COMM_WORLD, &st));
        CHECK_MPI(MPI_Get_elements(&st, vec, &n));
        CHECK(n == BLOCKS, "partial: %d elements, expected %d", n, BLOCKS);
        CHECK_MPI(MPI_Get_count(&st, vec, &n));
        CHECK(n == 1, "partial: count %d, expected 1", n);
        check_vec(r, 2, BLOCKS, 7, "partial");
        for (int i = 0; i < 4 * EXT; ++i) r[i] = -7;
        const int rc = MPI_Recv(r, 1, vec, 0, 8, MPI_COMM_WORLD, &st);
        int cls = -1;
        MPI_Error_class(rc, &cls);
        CHECK(cls == MPI_ERR_TRUNCATE, "truncated: class %d, expected MPI_ERR_TRUNCATE", cls);
        for (int i = EXT; i < 4 * EXT; ++i) CHECK(r[i] == -7, "truncated: int %d written", i);
        for (int i = 0; i < 4 * EXT; ++i) r[i] = -7;
        CHECK_MPI(MPI_Recv(r, 1, vec, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
        CHECK(st.MPI_SOURCE == 0 && st.MPI_TAG == 9, "wildcards: source %d tag %d", st.MPI_SOURCE, st.MPI_TAG);
        check_vec(r, 1, BLOCKS, 9, "wildcards");
        for (int i = 0; i < 4 * EXT; ++i) r[i] = -7;
        CHECK_MPI(MPI_Recv(r, 1, vec, 0, 10, MPI_COMM_WORLD, &st));
        CHECK_MPI(MPI_Get_count(&st, vec, &n));
        CHECK(n == 0, "zero count: count %d", n);
        check_vec(r, 1, 0, 9, "zero count");
    } else {
        CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    }
    if (rank == 0) printf("ddt_direct: OK\n");
    MPI_Type_free(&vec);
    free(s);
    free(r);
    free(flat);
    MPI_Finalize();
    return 0;
}
