/* SPDX-License-Identifier: MIT */
/* Bad input around intercommunicators under MPI_ERRORS_RETURN: the class, a
 * message naming the function, nothing hung, and MPI usable after each. */
#include "inter_common.h"
#include "errcheck.h"

int main(int argc, char** argv) {
    mt_init(&argc, &argv);
    inter_setup();
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    MPI_Comm local, ic, c = MPI_COMM_NULL;
    CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, in_a, me, &local));
    MPI_Comm_set_errhandler(local, MPI_ERRORS_RETURN);

    /* MPI_Intercomm_create: arguments every member checks */
    EXPECT_LEAD(MPI_Intercomm_create(MPI_COMM_NULL, 0, MPI_COMM_WORLD, 0, 1, &c), MPI_ERR_COMM,
           "MPI_Intercomm_create");
    EXPECT_LEAD(MPI_Intercomm_create(local, local_n(), MPI_COMM_WORLD, 0, 1, &c), MPI_ERR_RANK,
           "MPI_Intercomm_create");
    EXPECT_LEAD(MPI_Intercomm_create(local, -1, MPI_COMM_WORLD, 0, 1, &c), MPI_ERR_RANK,
           "MPI_Intercomm_create");
    EXPECT_LEAD(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, in_a ? k : 0, -1, &c), MPI_ERR_TAG,
           "MPI_Intercomm_create");
    EXPECT_LEAD(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, in_a ? k : 0, 1, NULL), MPI_ERR_ARG,
           "MPI_Intercomm_create");
    /* overlapping groups: both "groups" are the whole world */
    EXPECT_LEAD(MPI_Intercomm_create(MPI_COMM_WORLD, 0, MPI_COMM_WORLD, 0, 2, &c), MPI_ERR_GROUP,
           "MPI_Intercomm_create");
    /* a bad remote leader at both leaders: each leader reports it, its group
     * learns that the leader failed (nobody waits for the other group) */
    int lr;
    MPI_Comm_rank(local, &lr);
    EXPECT_LEAD(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, np + 5, 3, &c), lr == 0 ? MPI_ERR_RANK : MPI_ERR_ARG,
           "MPI_Intercomm_create");
    EXPECT_LEAD(MPI_Intercomm_create(local, 0, lr == 0 ? MPI_COMM_NULL : MPI_COMM_WORLD, 0, 3, &c),
           lr == 0 ? MPI_ERR_COMM : MPI_ERR_ARG, "MPI_Intercomm_create");

    /* a good one, then misuse of it */
    CHECK_MPI(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, in_a ? k : 0, 4, &ic));
    MPI_Comm_set_errhandler(ic, MPI_ERRORS_RETURN);
    int x = 0, r;
    EXPECT_LEAD(MPI_Send(&x, 1, MPI_INT, remote_n(), 0, ic), MPI_ERR_RANK, "MPI_Send"); /* remote ranks */
    EXPECT_LEAD(MPI_Recv(&x, 1, MPI_INT, remote_n(), 0, ic, MPI_STATUS_IGNORE), MPI_ERR_RANK, "MPI_Recv");
    EXPECT_LEAD(MPI_Intercomm_create(ic, 0, MPI_COMM_WORLD, 0, 5, &c), MPI_ERR_COMM, "MPI_Intercomm_create");
    EXPECT_LEAD(MPI_Intercomm_merge(local, 0, &c), MPI_ERR_COMM, "MPI_Intercomm_merge");
    EXPECT_LEAD(MPI_Intercomm_merge(ic, 0, NULL), MPI_ERR_ARG, "MPI_Intercomm_merge");
    EXPECT_LEAD(MPI_Comm_remote_size(MPI_COMM_WORLD, &r), MPI_ERR_COMM, "MPI_Comm_remote_size");
    MPI_Group g;
    EXPECT_LEAD(MPI_Comm_remote_group(local, &g), MPI_ERR_COMM, "MPI_Comm_remote_group");
    EXPECT_LEAD(MPI_Comm_create_group(ic, MPI_GROUP_EMPTY, 0, &c), MPI_ERR_COMM, "MPI_Comm_create_group");
    EXPECT_LEAD(MPI_Comm_split_type(ic, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &c), MPI_ERR_COMM,
           "MPI_Comm_split_type");
    int dims[1] = {1}, periods[1] = {0};
    EXPECT_LEAD(MPI_Cart_create(ic, 1, dims, periods, 0, &c), MPI_ERR_COMM, "MPI_Cart_create");
    EXPECT_LEAD(MPI_Cart_coords(ic, 0, 1, dims), MPI_ERR_TOPOLOGY, "MPI_Cart_coords");
    int st;
    CHECK_MPI(MPI_Topo_test(ic, &st));
    CHECK(st == MPI_UNDEFINED, "intercommunicator topology %d", st);
    int sum = 0;
    EXPECT_LEAD(MPI_Scan(&x, &sum, 1, MPI_INT, MPI_SUM, ic), MPI_ERR_COMM, "MPI_Scan");
    EXPECT_LEAD(MPI_Exscan(&x, &sum, 1, MPI_INT, MPI_SUM, ic), MPI_ERR_COMM, "MPI_Exscan");
    /* collectives: roots, MPI_IN_PLACE */
    int buf[4] = {0, 0, 0, 0};
    EXPECT_LEAD(MPI_Bcast(buf, 1, MPI_INT, remote_n(), ic), MPI_ERR_ROOT, "MPI_Bcast");
    EXPECT_LEAD(MPI_Reduce(buf, buf + 1, 1, MPI_INT, MPI_SUM, -7, ic), MPI_ERR_ROOT, "MPI_Reduce");
    EXPECT_LEAD(MPI_Allreduce(MPI_IN_PLACE, buf, 1, MPI_INT, MPI_SUM, ic), MPI_ERR_BUFFER, "MPI_Allreduce");
    EXPECT_LEAD(MPI_Allgather(MPI_IN_PLACE, 1, MPI_INT, buf, 1, MPI_INT, ic), MPI_ERR_BUFFER, "MPI_Allgather");
    MPI_Request rq;
    EXPECT_LEAD(MPI_Igather(buf, 1, MPI_INT, buf, 1, MPI_INT, MPI_ROOT - 1, ic, &rq), MPI_ERR_ROOT, "MPI_Igather");
    EXPECT_LEAD(MPI_Neighbor_allgather(buf, 1, MPI_INT, buf, 1, MPI_INT, ic), MPI_ERR_TOPOLOGY,
           "MPI_Neighbor_allgather");
    EXPECT_LEAD(MPI_Comm_idup(ic, &c, NULL), MPI_ERR_ARG, "MPI_Comm_idup");
    EXPECT_LEAD(MPI_Comm_idup_with_info(ic, (MPI_Info)(intptr_t)0x4242, &c, &rq), MPI_ERR_INFO,
           "MPI_Comm_idup_with_info");
    MPI_Win w;
    EXPECT_LEAD(MPI_Win_create(&x, sizeof x, 1, MPI_INFO_NULL, ic, &w), MPI_ERR_COMM, "MPI_Win_create");
    /* MPI_Comm_create on an intercommunicator: a group outside the local group */
    MPI_Group wg, other;
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    int rw = in_a ? k : 0;
    MPI_Group_incl(wg, 1, &rw, &other);
    EXPECT_LEAD(MPI_Comm_create(ic, other, &c), MPI_ERR_GROUP, "MPI_Comm_create");

    /* from groups: overlap, not a member, bad leader, bad errhandler, NULL tag */
    MPI_Group a, b;
    int ra[1][3] = {{0, k - 1, 1}}, rb[1][3] = {{k, np - 1, 1}};
    MPI_Group_range_incl(wg, 1, ra, &a);
    MPI_Group_range_incl(wg, 1, rb, &b);
    MPI_Group mine = in_a ? a : b, theirs = in_a ? b : a;
    EXPECT_LEAD(MPI_Intercomm_create_from_groups(mine, 0, wg, 0, "x", MPI_INFO_NULL, MPI_ERRORS_RETURN, &c),
           MPI_ERR_GROUP, "MPI_Intercomm_create_from_groups");
    EXPECT_LEAD(MPI_Intercomm_create_from_groups(theirs, 0, mine, 0, "x", MPI_INFO_NULL, MPI_ERRORS_RETURN, &c),
           MPI_ERR_GROUP, "MPI_Intercomm_create_from_groups");
    EXPECT_LEAD(MPI_Intercomm_create_from_groups(mine, local_n(), theirs, 0, "x", MPI_INFO_NULL,
                                            MPI_ERRORS_RETURN, &c),
           MPI_ERR_RANK, "MPI_Intercomm_create_from_groups");
    EXPECT_LEAD(MPI_Intercomm_create_from_groups(mine, 0, theirs, remote_n(), "x", MPI_INFO_NULL,
                                            MPI_ERRORS_RETURN, &c),
           MPI_ERR_RANK, "MPI_Intercomm_create_from_groups");
    EXPECT_LEAD(MPI_Intercomm_create_from_groups(mine, 0, theirs, 0, NULL, MPI_INFO_NULL, MPI_ERRORS_RETURN, &c),
           MPI_ERR_ARG, "MPI_Intercomm_create_from_groups");
    EXPECT_LEAD(MPI_Intercomm_create_from_groups(mine, 0, theirs, 0, "x", MPI_INFO_NULL, MPI_ERRHANDLER_NULL, &c),
           MPI_ERR_ARG, "MPI_Intercomm_create_from_groups");
    EXPECT_LEAD(MPI_Comm_create_group(MPI_COMM_WORLD, wg, -2, &c), MPI_ERR_TAG, "MPI_Comm_create_group");
    EXPECT_LEAD(MPI_Comm_create_group(local, theirs, 0, &c), MPI_ERR_GROUP, "MPI_Comm_create_group");

    /* still usable: messages on the intercommunicator, a merge */
    int v = -1;
    if (lr == 0) {
        CHECK_MPI(MPI_Sendrecv(&me, 1, MPI_INT, 0, 9, &v, 1, MPI_INT, MPI_ANY_SOURCE, 9, ic,
                               MPI_STATUS_IGNORE));
        CHECK(v == remote_world(0), "message after errors: %d", v);
    }
    MPI_Comm m;
    CHECK_MPI(MPI_Intercomm_merge(ic, !in_a, &m));
    CHECK_MPI(MPI_Allreduce(&me, &sum, 1, MPI_INT, MPI_SUM, m));
    CHECK(sum == np * (np - 1) / 2, "allreduce after errors: %d", sum);
    MPI_Comm_free(&m);
    MPI_Group_free(&a);
    MPI_Group_free(&b);
    MPI_Group_free(&other);
    MPI_Group_free(&wg);
    MPI_Comm_free(&ic);
    MPI_Comm_free(&local);
    CHECK(mt_nerr == 0, "%d failed expectations", mt_nerr);
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == 0) printf("inter_errors: ok\n");
    MPI_Finalize();
    return 0;
}
