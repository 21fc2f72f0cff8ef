/* SPDX-License-Identifier: MIT */
/* Communicator constructors and queries: dup, split (colors, keys,
 * MPI_UNDEFINED), split_type, create, compare, names, test_inter, groups of
 * communicators, and the isolation of their messages. */
#include "mpitest.h"

static int me, np;

static void check_isolation(MPI_Comm dup) {
    /* A wildcard receive on the dup must not match world messages. */
    MPI_Request r;
    int got = -1, flag = 0;
    if (me == 0) CHECK_MPI(MPI_Irecv(&got, 1, MPI_INT, MPI_ANY_SOURCE, 5, dup, &r));
    if (me == np - 1) CHECK_MPI(MPI_Send(&me, 1, MPI_INT, 0, 5, MPI_COMM_WORLD));
    if (me == 0) {
        int w = -1;
        CHECK_MPI(MPI_Recv(&w, 1, MPI_INT, MPI_ANY_SOURCE, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK(w == np - 1, "world receive got %d", w);
        CHECK_MPI(MPI_Test(&r, &flag, MPI_STATUS_IGNORE));
        CHECK(!flag, "a world message matched a receive on the dup");
    }
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    if (me == np - 1) CHECK_MPI(MPI_Send(&np, 1, MPI_INT, 0, 5, dup));
    if (me == 0) {
        MPI_Status st;
        CHECK_MPI(MPI_Wait(&r, &st));
        CHECK(got == np && st.MPI_SOURCE == np - 1, "dup receive got %d from %d", got, st.MPI_SOURCE);
    }
}

int main(int argc, char** argv) {
    mt_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    int res, r, s, flag, len;
    char name[MPI_MAX_OBJECT_NAME];

    /* names */
    CHECK_MPI(MPI_Comm_get_name(MPI_COMM_WORLD, name, &len));
    CHECK(strcmp(name, "MPI_COMM_WORLD") == 0 && len == 14, "world name '%s'", name);
    CHECK_MPI(MPI_Comm_get_name(MPI_COMM_SELF, name, &len));
    CHECK(strcmp(name, "MPI_COMM_SELF") == 0, "self name '%s'", name);

    /* dup */
    MPI_Comm dup;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    CHECK_MPI(MPI_Comm_rank(dup, &r));
    CHECK_MPI(MPI_Comm_size(dup, &s));
    CHECK(r == me && s == np, "dup rank/size %d/%d", r, s);
    CHECK_MPI(MPI_Comm_compare(dup, MPI_COMM_WORLD, &res));
    CHECK(res == MPI_CONGRUENT, "dup vs world: %d", res);
    CHECK_MPI(MPI_Comm_compare(dup, dup, &res));
    CHECK(res == MPI_IDENT, "dup vs itself: %d", res);
    CHECK_MPI(MPI_Comm_get_name(dup, name, &len));
    CHECK(len == 0 && name[0] == 0, "a dup starts unnamed, got '%s'", name);
    CHECK_MPI(MPI_Comm_set_name(dup, "my dup"));
    CHECK_MPI(MPI_Comm_get_name(dup, name, &len));
    CHECK(strcmp(name, "my dup") == 0 && len == 6, "name '%s'", name);
    {
        char longname[300];
        memset(longname, 'x', sizeof longname - 1);
        longname[sizeof longname - 1] = 0;
        CHECK_MPI(MPI_Comm_set_name(dup, longname));
        CHECK_MPI(MPI_Comm_get_name(dup, name, &len));
        CHECK(len == MPI_MAX_OBJECT_NAME - 1, "long name truncated to %d", len);
    }
    CHECK_MPI(MPI_Comm_test_inter(dup, &flag));
    CHECK(flag == 0, "test_inter");
    check_isolation(dup);
    MPI_Comm dup2;
    CHECK_MPI(MPI_Comm_dup_with_info(dup, MPI_INFO_NULL, &dup2));
    CHECK_MPI(MPI_Comm_compare(dup, dup2, &res));
    CHECK(res == MPI_CONGRUENT, "dup_with_info: %d", res);
    CHECK_MPI(MPI_Comm_free(&dup2));
    CHECK(dup2 == MPI_COMM_NULL, "Comm_free did not reset the handle");

    /* split: color rank % 3, reverse key order, rank 1 undefined */
    MPI_Comm sp;
    const int color = me == 1 ? MPI_UNDEFINED : me % 3;
    CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, color, -me, &sp));
    if (me == 1) {
        CHECK(sp == MPI_COMM_NULL, "MPI_UNDEFINED color got a communicator");
    } else {
        int members[64], n = 0, myidx = -1;
        for (int q = np - 1; q >= 0; --q)
            if (q != 1 && q % 3 == color) {
                if (q == me) myidx = n;
                members[n++] = q;
            }
        CHECK_MPI(MPI_Comm_rank(sp, &r));
        CHECK_MPI(MPI_Comm_size(sp, &s));
        CHECK(s == n && r == myidx, "split rank/size %d/%d, want %d/%d", r, s, myidx, n);
        MPI_Group gs, gw;
        CHECK_MPI(MPI_Comm_group(sp, &gs));
        CHECK_MPI(MPI_Comm_group(MPI_COMM_WORLD, &gw));
        int idx[64], out[64];
        for (int i = 0; i < n; ++i) idx[i] = i;
        CHECK_MPI(MPI_Group_translate_ranks(gs, n, idx, gw, out));
        for (int i = 0; i < n; ++i) CHECK(out[i] == members[i], "translate %d -> %d, want %d", i, out[i], members[i]);
        CHECK_MPI(MPI_Comm_compare(sp, MPI_COMM_WORLD, &res));
        CHECK(res == (n == np ? (np == 1 ? MPI_CONGRUENT : MPI_SIMILAR) : MPI_UNEQUAL), "split vs world: %d", res);
        /* a ring on the split communicator */
        int left = -1;
        CHECK_MPI(MPI_Sendrecv(&me, 1, MPI_INT, (r + 1) % s, 3, &left, 1, MPI_INT, (r - 1 + s) % s, 3, sp,
                               MPI_STATUS_IGNORE));
        CHECK(left == members[(r - 1 + s) % s], "ring on split got %d", left);
        MPI_Group_free(&gs);
        MPI_Group_free(&gw);
        CHECK_MPI(MPI_Comm_free(&sp));
    }
    /* same color, reversed keys: similar to the world */
    CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, 0, np - me, &sp));
    CHECK_MPI(MPI_Comm_rank(sp, &r));
    CHECK(r == np - 1 - me, "reversed split rank %d", r);
    CHECK_MPI(MPI_Comm_compare(sp, MPI_COMM_WORLD, &res));
    CHECK(res == (np == 1 ? MPI_CONGRUENT : MPI_SIMILAR), "reversed split vs world: %d", res);
    CHECK_MPI(MPI_Comm_free(&sp));

    /* split_type */
    CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, me, MPI_INFO_NULL, &sp));
    CHECK_MPI(MPI_Comm_size(sp, &s));
    CHECK(s == np, "every rank runs on this node, shared size %d", s); /* tests run on one node */
    CHECK_MPI(MPI_Comm_compare(sp, MPI_COMM_WORLD, &res));
    CHECK(res == MPI_CONGRUENT, "shared vs world: %d", res);
    CHECK_MPI(MPI_Comm_free(&sp));
    CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_UNDEFINED, 0, MPI_INFO_NULL, &sp));
    CHECK(sp == MPI_COMM_NULL, "split_type MPI_UNDEFINED");
    CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, 0, MPI_INFO_NULL, &sp));
    CHECK(sp == MPI_COMM_NULL, "split_type HW_GUIDED without a resource type");

    /* create: everyone but rank 0, in reverse order */
    MPI_Group gw, gx, gr;
    CHECK_MPI(MPI_Comm_group(MPI_COMM_WORLD, &gw));
    int zero = 0;
    CHECK_MPI(MPI_Group_excl(gw, 1, &zero, &gx));
    int rng[1][3] = {{np - 1, 1, -1}};
    if (np > 1) CHECK_MPI(MPI_Group_range_incl(gw, 1, rng, &gr));
    else gr = MPI_GROUP_EMPTY;
    CHECK_MPI(MPI_Group_compare(gx, gr, &res));
    CHECK(res == (np <= 2 ? MPI_IDENT : MPI_SIMILAR), "excl vs reversed range: %d", res);
    CHECK_MPI(MPI_Comm_create(MPI_COMM_WORLD, gr, &sp));
    if (me == 0) {
        CHECK(sp == MPI_COMM_NULL, "rank 0 is not in the group");
    } else {
        CHECK_MPI(MPI_Comm_rank(sp, &r));
        CHECK(r == np - 1 - me, "created comm rank %d", r);
        int sum = 0;
        CHECK_MPI(MPI_Allreduce(&me, &sum, 1, MPI_INT, MPI_SUM, sp));
        CHECK(sum == np * (np - 1) / 2, "allreduce on created comm %d", sum);
        /* a dup of it shares its rank map */
        MPI_Comm d2;
        CHECK_MPI(MPI_Comm_dup(sp, &d2));
        CHECK_MPI(MPI_Comm_compare(sp, d2, &res));
        CHECK(res == MPI_CONGRUENT, "dup of created");
        CHECK_MPI(MPI_Comm_free(&d2));
        CHECK_MPI(MPI_Comm_free(&sp));
    }
    MPI_Group_free(&gx);
    if (gr != MPI_GROUP_EMPTY) MPI_Group_free(&gr);
    MPI_Group_free(&gw);
    check_isolation(dup);
    CHECK_MPI(MPI_Comm_free(&dup));
    MPI_Finalize();
    return 0;
}
