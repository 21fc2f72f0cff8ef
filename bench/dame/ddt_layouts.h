/* SPDX-License-Identifier: MIT */
/*
 * The DDTBench layouts (shared/bench/ddtbench-layouts.md), re-created from
 * their published construction: for each one the MPI datatype exactly as the
 * application builds it, and the application-style hand-written pack and
 * unpack loops producing the same byte stream. Plain C + MPI, so the
 * benchmark (bench/dame) and the round-trip test (test/mpi/datatype) build
 * against ch4lite, MPICH and Open MPI alike.
 */
#ifndef DDT_LAYOUTS_H
#define DDT_LAYOUTS_H
#include "ddt_grid.h"
#include "ddt_struct.h"

/* ---- the catalogue: every layout at every listed size -------------------- */
static int ddt_make(int i, ddt *L) {
    static const long lu[] = {12, 33, 64, 102, 162, 408, 1020};
    static const long mg[][3] = {{34, 18, 18}, {130, 66, 66}, {258, 130, 130}, {514, 258, 258}};
    static const long milc[][4] = {{16, 16, 16, 16}, {8, 16, 16, 16}, {8, 8, 8, 16}, {8, 8, 8, 8}};
    static const long fft[] = {256, 512, 768, 1024, 1536};
    static const long wy[][3] = {{32, 52, 23}, {27, 41, 19}, {24, 34, 16}, {22, 30, 14}, {19, 24, 11}};
    static const long wx[][3] = {{32, 52, 44}, {24, 34, 26}, {19, 24, 16}};
    static const long lf[][2] = {{3062, 3534}, {2243, 2597}, {1662, 1907}};
    static const long la[][2] = {{243, 4084}, {145, 2157}, {114, 1217}};
    static const long oc[][2] = {{3225, 88881}, {1897, 38585}, {877, 12857}, {493, 3697}};
    static const long cm[][4] = {{11797, 3009, 834917, 51153}, {7125, 1729, 396849, 22477},
                                 {3801, 801, 152001, 7209}, {1957, 245, 39929, 1225}};
    static const long mt[] = {7600, 6400, 5600, 6200};
    static const long vb[] = {1, 2, 3, 5, 8, 16, 64, 512};
    memset(L, 0, sizeof *L);
    L->count = 1;
#define DDT_RANGE(n, stmt) \
    if (i < (n)) {         \
        stmt;              \
        return 1;          \
    }                      \
    i -= (n);
    DDT_RANGE(7, make_lu_y(L, lu[i]))
    DDT_RANGE(7, make_lu_x(L, lu[i]))
    DDT_RANGE(4, make_mg(L, 'x', mg[i][0], mg[i][1], mg[i][2]))
    DDT_RANGE(4, make_mg(L, 'y', mg[i][0], mg[i][1], mg[i][2]))
    DDT_RANGE(4, make_mg(L, 'z', mg[i][0], mg[i][1], mg[i][2]))
    DDT_RANGE(4, make_milc(L, milc[i][0], milc[i][1], milc[i][2], milc[i][3]))
    DDT_RANGE(5, make_fft(L, fft[i], 0))
    DDT_RANGE(5, make_fft(L, fft[i], 1))
    DDT_RANGE(5, make_wrf(L, 'y', 0, wy[i][0], wy[i][1], wy[i][2]))
    DDT_RANGE(3, make_wrf(L, 'x', 0, wx[i][0], wx[i][1], wx[i][2]))
    DDT_RANGE(5, make_wrf(L, 'y', 1, wy[i][0], wy[i][1], wy[i][2]))
    DDT_RANGE(3, make_wrf(L, 'x', 1, wx[i][0], wx[i][1], wx[i][2]))
    DDT_RANGE(3, make_lammps(L, 1, lf[i][0], lf[i][1]))
    DDT_RANGE(3, make_lammps(L, 0, la[i][0], la[i][1]))
    DDT_RANGE(4, make_sf_oc(L, oc[i][0], oc[i][1]))
    DDT_RANGE(4, make_sf_cm(L, cm[i][0], cm[i][1], cm[i][2], cm[i][3]))
    DDT_RANGE(4, make_sf_mt(L, mt[i]))
    DDT_RANGE(8, make_vec(L, vb[i]))
#undef DDT_RANGE
    return 0;
}
#endif /* DDT_LAYOUTS_H */
