/* SPDX-License-Identifier: MIT */
/* Every predefined op on every predefined type, pair types, REPLACE/NO_OP
 * order and non-commutative user ops (contiguous and with holes) through
 * the nonblocking and persistent reductions: the checks of coll_ops.c with
 * each reduction in the form NBC_FORM (environment, 0-3, nbcwrap.h;
 * default 0). Non-commutative ops exercise the schedules' rank-order
 * folds and the non-commutative Reduce's forwarding from rank 0. */
#include "nbcwrap.h"
#define ALLREDUCE_NAME (g_form < 2 ? "MPI_Iallreduce" : "MPI_Allreduce_init")
#define main ops_main
#include "coll_ops.c"
#undef main

int main(int argc, char** argv) {
    const char* f = getenv("NBC_FORM");
    g_form = f ? atoi(f) : 0;
    return ops_main(argc, argv);
}
