/* SPDX-License-Identifier: MIT */
/* Derived (noncontiguous) datatypes in every nonblocking and persistent
 * collective: the checks of coll_derived.c with each blocking call in the
 * form NBC_FORM (environment, 0-3, nbcwrap.h; default 0): the schedules'
 * pack and unpack steps, holes left untouched. */
#include "nbcwrap.h"
#define main derived_main
#include "coll_derived.c"
#undef main

int main(int argc, char** argv) {
    const char* f = getenv("NBC_FORM");
    g_form = f ? atoi(f) : 0;
    return derived_main(argc, argv);
}
