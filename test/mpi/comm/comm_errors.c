/* SPDX-License-Identifier: MIT */
/* Bad arguments of the communicator and group functions under
 * MPI_ERRORS_RETURN: the right class and a message naming the function. */
#include "errcheck.h"

int main(int argc, char** argv) {
    mt_init(&argc, &argv);
    int me, np, res;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    MPI_Comm c = MPI_COMM_NULL, world = MPI_COMM_WORLD, self = MPI_COMM_SELF;
    MPI_Group g, w;
    MPI_Comm_group(MPI_COMM_WORLD, &w);

    EXPECT(MPI_Comm_dup(MPI_COMM_NULL, &c), MPI_ERR_COMM, "MPI_Comm_dup");
    EXPECT(MPI_Comm_dup(MPI_COMM_WORLD, NULL), MPI_ERR_ARG, "MPI_Comm_dup");
    EXPECT(MPI_Comm_free(&world), MPI_ERR_COMM, "MPI_Comm_free");
    EXPECT(MPI_Comm_free(&self), MPI_ERR_COMM, "MPI_Comm_free");
    EXPECT(MPI_Comm_free(&c), MPI_ERR_COMM, "MPI_Comm_free");
    EXPECT(MPI_Comm_split(MPI_COMM_WORLD, -5, 0, &c), MPI_ERR_ARG, "MPI_Comm_split");
    EXPECT(MPI_Comm_split_type(MPI_COMM_WORLD, 12345, 0, MPI_INFO_NULL, &c), MPI_ERR_ARG,
           "MPI_Comm_split_type");
    EXPECT(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, (MPI_Info)(intptr_t)0x4242, &c),
           MPI_ERR_INFO, "MPI_Comm_split_type");
    EXPECT(MPI_Comm_dup_with_info(MPI_COMM_WORLD, (MPI_Info)(intptr_t)0x4242, &c), MPI_ERR_INFO,
           "MPI_Comm_dup_with_info");
    EXPECT(MPI_Comm_create(MPI_COMM_WORLD, MPI_GROUP_NULL, &c), MPI_ERR_GROUP, "MPI_Comm_create");
    EXPECT(MPI_Comm_compare(MPI_COMM_WORLD, (MPI_Comm)0x1234567, &res), MPI_ERR_COMM, "MPI_Comm_compare");
    EXPECT(MPI_Comm_group(MPI_COMM_NULL, &g), MPI_ERR_COMM, "MPI_Comm_group");
    EXPECT(MPI_Comm_set_name(MPI_COMM_WORLD, NULL), MPI_ERR_ARG, "MPI_Comm_set_name");
    EXPECT(MPI_Comm_test_inter(MPI_COMM_NULL, &res), MPI_ERR_COMM, "MPI_Comm_test_inter");
    /* A group that is not a subgroup of the communicator. */
    if (np > 1) {
        MPI_Comm mine;
        CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, me, 0, &mine)); /* just me */
        EXPECT(MPI_Comm_create(mine, w, &c), MPI_ERR_GROUP, "MPI_Comm_create");
        CHECK_MPI(MPI_Comm_free(&mine));
    }
    /* groups */
    int ranks[4] = {0, np, 0, 0};
    EXPECT(MPI_Group_incl(w, 2, ranks, &g), np > 1 ? MPI_ERR_RANK : MPI_ERR_ARG, "MPI_Group_incl");
    EXPECT(MPI_Group_incl(w, 1, ranks + 1, &g), MPI_ERR_RANK, "MPI_Group_incl");
    ranks[1] = 0;
    EXPECT(MPI_Group_incl(w, 2, ranks, &g), np > 1 ? MPI_ERR_RANK : MPI_ERR_ARG, "MPI_Group_incl");
    EXPECT(MPI_Group_excl(w, np + 1, ranks, &g), MPI_ERR_ARG, "MPI_Group_excl");
    EXPECT(MPI_Group_excl(w, -1, ranks, &g), MPI_ERR_ARG, "MPI_Group_excl");
    int r0[1][3] = {{0, 0, 0}};
    EXPECT(MPI_Group_range_incl(w, 1, r0, &g), MPI_ERR_ARG, "MPI_Group_range_incl");
    int r1[1][3] = {{0, np, 1}};
    EXPECT(MPI_Group_range_excl(w, 1, r1, &g), MPI_ERR_RANK, "MPI_Group_range_excl");
    if (np > 1) {
        int r2[1][3] = {{1, 0, 1}}; /* never reaches last */
        EXPECT(MPI_Group_range_incl(w, 1, r2, &g), MPI_ERR_ARG, "MPI_Group_range_incl");
        int r3[2][3] = {{0, 1, 1}, {1, 1, 1}}; /* rank 1 twice */
        EXPECT(MPI_Group_range_incl(w, 2, r3, &g), MPI_ERR_RANK, "MPI_Group_range_incl");
    }
    int in[2] = {0, np + 2}, out[2];
    EXPECT(MPI_Group_translate_ranks(w, 2, in, w, out), MPI_ERR_RANK, "MPI_Group_translate_ranks");
    EXPECT(MPI_Group_size(MPI_GROUP_NULL, &res), MPI_ERR_GROUP, "MPI_Group_size");
    EXPECT(MPI_Group_rank((MPI_Group)0x2345678, &res), MPI_ERR_GROUP, "MPI_Group_rank");
    EXPECT(MPI_Group_compare(w, MPI_GROUP_NULL, &res), MPI_ERR_GROUP, "MPI_Group_compare");
    EXPECT(MPI_Group_union(w, MPI_GROUP_NULL, &g), MPI_ERR_GROUP, "MPI_Group_union");
    g = MPI_GROUP_NULL;
    EXPECT(MPI_Group_free(&g), MPI_ERR_GROUP, "MPI_Group_free");
    /* a freed group handle is invalid */
    MPI_Group w2;
    CHECK_MPI(MPI_Comm_group(MPI_COMM_WORLD, &w2));
    MPI_Group stale = w2;
    CHECK_MPI(MPI_Group_free(&w2));
    EXPECT(MPI_Group_size(stale, &res), MPI_ERR_GROUP, "MPI_Group_size");
    /* a freed communicator handle is invalid */
    MPI_Comm d;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &d));
    MPI_Comm stale_c = d;
    CHECK_MPI(MPI_Comm_free(&d));
    EXPECT(MPI_Comm_rank(stale_c, &res), MPI_ERR_COMM, "MPI_Comm_rank");
    EXPECT(MPI_Barrier(stale_c), MPI_ERR_COMM, "MPI_Barrier");
    MPI_Group_free(&w);
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    CHECK(mt_nerr == 0, "%d wrong error classes", mt_nerr);
    MPI_Finalize();
    return 0;
}
