/* SPDX-License-Identifier: MIT */
/* Group operations on the world group and on a split communicator's group,
 * checked against lists: incl, excl, range_incl/excl, union, intersection,
 * difference, translate_ranks, compare, rank, size, MPI_GROUP_EMPTY. */
#include "mpitest.h"

static int me, np;

static void expect_members(MPI_Group g, const int* want, int n, const char* what) {
    int s, r;
    MPI_Group w;
    CHECK_MPI(MPI_Group_size(g, &s));
    CHECK(s == n, "%s: size %d, want %d", what, s, n);
    CHECK_MPI(MPI_Comm_group(MPI_COMM_WORLD, &w));
    int idx[64], out[64], mine = MPI_UNDEFINED;
    for (int i = 0; i < n; ++i) {
        idx[i] = i;
        if (want[i] == me) mine = i;
    }
    CHECK_MPI(MPI_Group_translate_ranks(g, n, idx, w, out));
    for (int i = 0; i < n; ++i) CHECK(out[i] == want[i], "%s: member %d is %d, want %d", what, i, out[i], want[i]);
    CHECK_MPI(MPI_Group_rank(g, &r));
    CHECK(r == mine, "%s: my rank %d, want %d", what, r, mine);
    MPI_Group_free(&w);
}

int main(int argc, char** argv) {
    mt_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    MPI_Group w, a, b, c;
    int want[64], n, res;
    CHECK_MPI(MPI_Comm_group(MPI_COMM_WORLD, &w));
    for (int i = 0; i < np; ++i) want[i] = i;
    expect_members(w, want, np, "world");

    /* incl in a scrambled order */
    int sel[64];
    n = 0;
    for (int i = np - 1; i >= 0; i -= 2) sel[n++] = i;
    for (int i = (np - 2 >= 0 ? np - 2 : 0); i >= 0 && np > 1; i -= 2) sel[n++] = i;
    CHECK_MPI(MPI_Group_incl(w, n, sel, &a));
    expect_members(a, sel, n, "incl");
    CHECK_MPI(MPI_Group_compare(a, w, &res));
    CHECK(res == (np <= 1 ? MPI_IDENT : MPI_SIMILAR), "incl permutation vs world: %d", res);
    /* excl of the odd ranks */
    int odd[64], no = 0, even[64], ne = 0;
    for (int i = 0; i < np; ++i) {
        if (i % 2) odd[no++] = i;
        else even[ne++] = i;
    }
    CHECK_MPI(MPI_Group_excl(w, no, odd, &b));
    expect_members(b, even, ne, "excl odd");
    /* range_incl of the odd ranks, range_excl of them */
    if (np > 1) {
        int rr[1][3] = {{1, np - 1, 2}};
        CHECK_MPI(MPI_Group_range_incl(w, 1, rr, &c));
        expect_members(c, odd, no, "range_incl odd");
        /* union(even, odd) = even then odd; intersection(a, odd) in a's order */
        MPI_Group u, x, d;
        CHECK_MPI(MPI_Group_union(b, c, &u));
        int eo[64];
        memcpy(eo, even, ne * sizeof(int));
        memcpy(eo + ne, odd, no * sizeof(int));
        expect_members(u, eo, np, "union");
        CHECK_MPI(MPI_Group_intersection(a, c, &x));
        int ax[64], nax = 0;
        for (int i = 0; i < n; ++i)
            if (sel[i] % 2) ax[nax++] = sel[i];
        expect_members(x, ax, nax, "intersection");
        CHECK_MPI(MPI_Group_difference(w, c, &d));
        expect_members(d, even, ne, "difference");
        CHECK_MPI(MPI_Group_compare(d, b, &res));
        CHECK(res == MPI_IDENT, "difference vs excl: %d", res);
        MPI_Group e;
        CHECK_MPI(MPI_Group_range_excl(w, 1, rr, &e));
        expect_members(e, even, ne, "range_excl odd");
        MPI_Group_free(&u), MPI_Group_free(&x), MPI_Group_free(&d), MPI_Group_free(&e), MPI_Group_free(&c);
    }
    /* translate with MPI_PROC_NULL and non-members */
    {
        int in[3] = {MPI_PROC_NULL, 0, np - 1}, out[3];
        CHECK_MPI(MPI_Group_translate_ranks(w, 3, in, b, out));
        CHECK(out[0] == MPI_PROC_NULL && out[1] == 0, "translate PROC_NULL / 0: %d %d", out[0], out[1]);
        CHECK(out[2] == ((np - 1) % 2 ? MPI_UNDEFINED : (np - 1) / 2), "translate last: %d", out[2]);
    }
    /* empty results are MPI_GROUP_EMPTY */
    MPI_Group empty;
    CHECK_MPI(MPI_Group_difference(w, w, &empty));
    CHECK(empty == MPI_GROUP_EMPTY, "an empty difference is MPI_GROUP_EMPTY");
    CHECK_MPI(MPI_Group_size(MPI_GROUP_EMPTY, &n));
    CHECK(n == 0, "GROUP_EMPTY size %d", n);
    CHECK_MPI(MPI_Group_rank(MPI_GROUP_EMPTY, &n));
    CHECK(n == MPI_UNDEFINED, "GROUP_EMPTY rank %d", n);
    CHECK_MPI(MPI_Group_incl(w, 0, NULL, &c));
    CHECK(c == MPI_GROUP_EMPTY, "incl of nothing");
    CHECK_MPI(MPI_Group_compare(MPI_GROUP_EMPTY, c, &res));
    CHECK(res == MPI_IDENT, "empty vs empty: %d", res);
    CHECK_MPI(MPI_Group_free(&empty));
    CHECK(empty == MPI_GROUP_NULL, "Group_free did not reset the handle");
    /* The group of a split communicator. */
    MPI_Comm sp;
    CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, me % 2, -me, &sp));
    MPI_Group gs;
    CHECK_MPI(MPI_Comm_group(sp, &gs));
    int mine[64], nm = 0;
    for (int i = np - 1; i >= 0; --i)
        if (i % 2 == me % 2) mine[nm++] = i;
    expect_members(gs, mine, nm, "split group");
    CHECK(MPI_Group_fromint(MPI_Group_toint(gs)) == gs, "Group_toint round trip");
    MPI_Group_free(&gs);
    CHECK_MPI(MPI_Comm_free(&sp));
    MPI_Group_free(&a), MPI_Group_free(&b), MPI_Group_free(&w);
    MPI_Finalize();
    return 0;
}
