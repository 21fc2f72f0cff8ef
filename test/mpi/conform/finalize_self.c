/* SPDX-License-Identifier: MIT */
/* MPI-4.1 §11.2.4, "Allowing User Functions at Process Termination":
 * MPI_Finalize first frees MPI_COMM_SELF's attributes, running their delete
 * callbacks in the reverse order in which they were set, before any other
 * part of MPI is torn down. So a callback sees MPI_Finalized() false and
 * may still communicate (a library flushing its buffers through MPI).
 *
 * 20 attributes under 20 keyvals (set in an order the keyval numbers do not
 * follow), one of them overwritten (the overwrite runs the old value's
 * callback at once and keeps its place), one of them deleted from inside
 * another's callback, one under a keyval the user freed before
 * MPI_Finalize; each
 * callback checks the order, MPI_Finalized, and runs an MPI_Allreduce on
 * MPI_COMM_WORLD. Checked after MPI_Finalize returns (exit status 1 on a
 * failure, "finalize_self: OK" otherwise). */
#include <stdint.h>

#include "mpitest.h"

#define N 20
static int keyval[N];
static int seen[N], nseen = 0, errors = 0, np = 0;
static int expect_next = N - 1; /* values deleted: N-1 down to 0 */

static void bad(const char* what, int v) {
    fprintf(stderr, "finalize_self: rank %d: attribute %d: %s\n", mt_rank, v, what);
    ++errors;
}

static int del_fn(MPI_Comm c, int k, void* val, void* extra) {
    const int v = (int)(intptr_t)val;
    (void)extra;
    if (c != MPI_COMM_SELF) bad("callback not on MPI_COMM_SELF", v);
    if (v >= 100) return MPI_SUCCESS; /* the overwritten value (see main) */
    if (k != keyval[v]) bad("callback got another keyval", v);
    if (nseen < N) seen[nseen++] = v;
    int fin = 1;
    MPI_Finalized(&fin);
    if (fin) bad("MPI_Finalized is true inside the callback", v);
    /* Still a working MPI: a collective on MPI_COMM_WORLD. */
    int one = 1, sum = 0;
    if (MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD) != MPI_SUCCESS || sum != np)
        bad("MPI_Allreduce inside the callback failed", v);
    /* 19, 18, ..., 8, then 7 from inside 8's callback (which deletes it),
     * then 6 ... 0: the reverse order of setting either way. */
    if (v == expect_next)
        --expect_next;
    else
        bad("callback out of order (reverse order of setting expected)", v);
    /* Attribute 8 deletes attribute 7 of the same communicator. */
    if (v == 8 && MPI_Comm_delete_attr(MPI_COMM_SELF, keyval[7]) != MPI_SUCCESS)
        bad("deleting another attribute from a callback failed", v);
    return MPI_SUCCESS;
}

int main(int argc, char** argv) {
    mt_init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    /* Keyvals created in reverse, so the order of setting is not theirs. */
    for (int i = N - 1; i >= 0; --i)
        CHECK_MPI(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, del_fn, &keyval[i], NULL));
    for (int i = 0; i < N; ++i) {
        if (i == 5) /* set 5 with another value first, overwritten below */
            CHECK_MPI(MPI_Comm_set_attr(MPI_COMM_SELF, keyval[i], (void*)(intptr_t)(100 + i)));
        else
            CHECK_MPI(MPI_Comm_set_attr(MPI_COMM_SELF, keyval[i], (void*)(intptr_t)i));
    }
    CHECK_MPI(MPI_Comm_set_attr(MPI_COMM_SELF, keyval[5], (void*)(intptr_t)5));
    CHECK(nseen == 0, "an overwrite ran a callback of another attribute");
    /* A keyval freed by the user still deletes its attribute at the end. */
    int k12 = keyval[12];
    CHECK_MPI(MPI_Comm_free_keyval(&k12));
    CHECK(k12 == MPI_KEYVAL_INVALID, "MPI_Comm_free_keyval did not reset the handle");
    MPI_Finalize();
    if (nseen != N) {
        fprintf(stderr, "finalize_self: rank %d: %d delete callbacks ran at MPI_Finalize, expected %d\n",
                mt_rank, nseen, N);
        ++errors;
    }
    if (errors) return 1;
    if (mt_rank == 0) printf("finalize_self: OK\n");
    return 0;
}
