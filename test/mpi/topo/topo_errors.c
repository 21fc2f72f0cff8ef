/* SPDX-License-Identifier: MIT */
/* Bad input to the topology functions under MPI_ERRORS_RETURN: the class,
 * a message naming the function, and MPI still usable after each. */
#include "errcheck.h"

int main(int argc, char** argv) {
    mt_init(&argc, &argv);
    int me, np, r, s, d;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    MPI_Comm c = MPI_COMM_NULL, cart, graph;

    /* MPI_Dims_create */
    int dims[3] = {0, 3, 0};
    EXPECT_LEAD(MPI_Dims_create(7, 3, dims), MPI_ERR_DIMS, "MPI_Dims_create"); /* not a multiple */
    int neg[2] = {0, -2};
    EXPECT_LEAD(MPI_Dims_create(4, 2, neg), MPI_ERR_DIMS, "MPI_Dims_create");
    EXPECT_LEAD(MPI_Dims_create(4, -1, neg), MPI_ERR_DIMS, "MPI_Dims_create");
    EXPECT_LEAD(MPI_Dims_create(0, 2, neg), MPI_ERR_ARG, "MPI_Dims_create");
    EXPECT_LEAD(MPI_Dims_create(4, 2, NULL), MPI_ERR_ARG, "MPI_Dims_create");
    int full[2] = {2, 2};
    EXPECT_LEAD(MPI_Dims_create(8, 2, full), MPI_ERR_DIMS, "MPI_Dims_create"); /* nothing to fill */

    /* MPI_Cart_create */
    int d2[2] = {np, 1}, p2[2] = {0, 0};
    EXPECT_LEAD(MPI_Cart_create(MPI_COMM_NULL, 2, d2, p2, 0, &c), MPI_ERR_COMM, "MPI_Cart_create");
    EXPECT_LEAD(MPI_Cart_create(MPI_COMM_WORLD, -1, d2, p2, 0, &c), MPI_ERR_DIMS, "MPI_Cart_create");
    int bad[2] = {np, -1};
    EXPECT_LEAD(MPI_Cart_create(MPI_COMM_WORLD, 2, bad, p2, 0, &c), MPI_ERR_DIMS, "MPI_Cart_create");
    bad[1] = 0;
    EXPECT_LEAD(MPI_Cart_create(MPI_COMM_WORLD, 2, bad, p2, 0, &c), MPI_ERR_DIMS, "MPI_Cart_create");
    int big[2] = {np, 2};
    EXPECT_LEAD(MPI_Cart_create(MPI_COMM_WORLD, 2, big, p2, 0, &c), MPI_ERR_ARG, "MPI_Cart_create");
    int huge[3] = {65536, 65536, 65536};
    int p3[3] = {0, 0, 0};
    EXPECT_LEAD(MPI_Cart_create(MPI_COMM_WORLD, 3, huge, p3, 0, &c), MPI_ERR_ARG, "MPI_Cart_create");
    EXPECT_LEAD(MPI_Cart_create(MPI_COMM_WORLD, 2, NULL, p2, 0, &c), MPI_ERR_ARG, "MPI_Cart_create");
    EXPECT_LEAD(MPI_Cart_create(MPI_COMM_WORLD, 2, d2, NULL, 0, &c), MPI_ERR_ARG, "MPI_Cart_create");
    EXPECT_LEAD(MPI_Cart_create(MPI_COMM_WORLD, 2, d2, p2, 0, NULL), MPI_ERR_ARG, "MPI_Cart_create");
    EXPECT_LEAD(MPI_Cart_map(MPI_COMM_WORLD, 2, big, p2, &r), MPI_ERR_ARG, "MPI_Cart_map");

    /* queries on a communicator without that topology */
    int coords[2] = {0, 0};
    EXPECT_LEAD(MPI_Cart_coords(MPI_COMM_WORLD, 0, 2, coords), MPI_ERR_TOPOLOGY, "MPI_Cart_coords");
    EXPECT_LEAD(MPI_Cart_rank(MPI_COMM_WORLD, coords, &r), MPI_ERR_TOPOLOGY, "MPI_Cart_rank");
    EXPECT_LEAD(MPI_Cart_shift(MPI_COMM_WORLD, 0, 1, &s, &d), MPI_ERR_TOPOLOGY, "MPI_Cart_shift");
    EXPECT_LEAD(MPI_Cartdim_get(MPI_COMM_WORLD, &r), MPI_ERR_TOPOLOGY, "MPI_Cartdim_get");
    EXPECT_LEAD(MPI_Graphdims_get(MPI_COMM_WORLD, &r, &s), MPI_ERR_TOPOLOGY, "MPI_Graphdims_get");
    EXPECT_LEAD(MPI_Dist_graph_neighbors_count(MPI_COMM_WORLD, &r, &s, &d), MPI_ERR_TOPOLOGY,
           "MPI_Dist_graph_neighbors_count");
    EXPECT_LEAD(MPI_Topo_test(MPI_COMM_NULL, &r), MPI_ERR_COMM, "MPI_Topo_test");

    /* a Cartesian communicator: out-of-range arguments */
    int pd[2] = {np, 1}, pp[2] = {0, 1};
    CHECK_MPI(MPI_Cart_create(MPI_COMM_WORLD, 2, pd, pp, 0, &cart));
    EXPECT_LEAD(MPI_Cart_coords(cart, np, 2, coords), MPI_ERR_RANK, "MPI_Cart_coords");
    EXPECT_LEAD(MPI_Cart_coords(cart, -1, 2, coords), MPI_ERR_RANK, "MPI_Cart_coords");
    EXPECT_LEAD(MPI_Cart_coords(cart, 0, 1, coords), MPI_ERR_ARG, "MPI_Cart_coords");
    int out_of_range[2] = {np, 0}; /* dimension 0 is not periodic */
    EXPECT_LEAD(MPI_Cart_rank(cart, out_of_range, &r), MPI_ERR_ARG, "MPI_Cart_rank");
    int below[2] = {-1, 0};
    EXPECT_LEAD(MPI_Cart_rank(cart, below, &r), MPI_ERR_ARG, "MPI_Cart_rank");
    int wraps[2] = {0, 5}; /* dimension 1 is periodic: fine */
    CHECK_MPI(MPI_Cart_rank(cart, wraps, &r));
    CHECK(r == 0, "wrapped rank %d", r);
    EXPECT_LEAD(MPI_Cart_shift(cart, 2, 1, &s, &d), MPI_ERR_ARG, "MPI_Cart_shift");
    EXPECT_LEAD(MPI_Cart_shift(cart, -1, 1, &s, &d), MPI_ERR_ARG, "MPI_Cart_shift");
    EXPECT_LEAD(MPI_Cart_shift(cart, 0, 1, NULL, &d), MPI_ERR_ARG, "MPI_Cart_shift");
    int gd[2], gp[2], gc[2];
    EXPECT_LEAD(MPI_Cart_get(cart, 1, gd, gp, gc), MPI_ERR_ARG, "MPI_Cart_get");
    EXPECT_LEAD(MPI_Cart_sub(cart, NULL, &c), MPI_ERR_ARG, "MPI_Cart_sub");
    EXPECT_LEAD(MPI_Graph_neighbors_count(cart, 0, &r), MPI_ERR_TOPOLOGY, "MPI_Graph_neighbors_count");
    EXPECT_LEAD(MPI_Dist_graph_neighbors(cart, 0, NULL, NULL, 0, NULL, NULL), MPI_ERR_TOPOLOGY,
           "MPI_Dist_graph_neighbors");

    /* MPI_Graph_create */
    int index[64], edges[64];
    for (int i = 0; i < np; ++i) index[i] = i + 1, edges[i] = (i + 1) % np;
    EXPECT_LEAD(MPI_Graph_create(MPI_COMM_WORLD, np + 1, index, edges, 0, &c), MPI_ERR_ARG, "MPI_Graph_create");
    EXPECT_LEAD(MPI_Graph_create(MPI_COMM_WORLD, -1, index, edges, 0, &c), MPI_ERR_ARG, "MPI_Graph_create");
    edges[0] = np; /* an edge to a node outside the graph */
    EXPECT_LEAD(MPI_Graph_create(MPI_COMM_WORLD, np, index, edges, 0, &c), MPI_ERR_TOPOLOGY, "MPI_Graph_create");
    edges[0] = -1;
    EXPECT_LEAD(MPI_Graph_create(MPI_COMM_WORLD, np, index, edges, 0, &c), MPI_ERR_TOPOLOGY, "MPI_Graph_create");
    EXPECT_LEAD(MPI_Graph_map(MPI_COMM_WORLD, np, index, edges, &r), MPI_ERR_TOPOLOGY, "MPI_Graph_map");
    edges[0] = 1 % np;
    index[0] = -1;
    EXPECT_LEAD(MPI_Graph_create(MPI_COMM_WORLD, np, index, edges, 0, &c), MPI_ERR_ARG, "MPI_Graph_create");
    index[0] = 1;
    if (np > 1) {
        index[1] = 0; /* decreasing */
        EXPECT_LEAD(MPI_Graph_create(MPI_COMM_WORLD, np, index, edges, 0, &c), MPI_ERR_ARG, "MPI_Graph_create");
        index[1] = 2;
    }
    CHECK_MPI(MPI_Graph_create(MPI_COMM_WORLD, np, index, edges, 0, &graph));
    EXPECT_LEAD(MPI_Graph_neighbors(graph, np, 1, edges), MPI_ERR_RANK, "MPI_Graph_neighbors");
    EXPECT_LEAD(MPI_Graph_neighbors(graph, 0, -1, edges), MPI_ERR_ARG, "MPI_Graph_neighbors");
    EXPECT_LEAD(MPI_Graph_neighbors_count(graph, -1, &r), MPI_ERR_RANK, "MPI_Graph_neighbors_count");
    EXPECT_LEAD(MPI_Graph_get(graph, -1, 1, index, edges), MPI_ERR_ARG, "MPI_Graph_get");
    EXPECT_LEAD(MPI_Cart_sub(graph, pp, &c), MPI_ERR_TOPOLOGY, "MPI_Cart_sub");

    /* distributed graphs */
    int src[2] = {0, np}, w[2] = {1, 1}, deg[2] = {1, -1};
    EXPECT_LEAD(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, src, MPI_UNWEIGHTED, 0, NULL,
                                          MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &c),
           MPI_ERR_TOPOLOGY, "MPI_Dist_graph_create_adjacent");
    EXPECT_LEAD(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, -1, src, MPI_UNWEIGHTED, 0, NULL,
                                          MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &c),
           MPI_ERR_ARG, "MPI_Dist_graph_create_adjacent");
    EXPECT_LEAD(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, src, w, 1, src, MPI_UNWEIGHTED,
                                          MPI_INFO_NULL, 0, &c),
           MPI_ERR_ARG, "MPI_Dist_graph_create_adjacent"); /* weighted on one side only */
    EXPECT_LEAD(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, src, MPI_WEIGHTS_EMPTY, 0, NULL,
                                          MPI_WEIGHTS_EMPTY, MPI_INFO_NULL, 0, &c),
           MPI_ERR_ARG, "MPI_Dist_graph_create_adjacent"); /* empty weights for an edge */
    int negw[1] = {-4};
    EXPECT_LEAD(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, src, negw, 0, NULL, MPI_WEIGHTS_EMPTY,
                                          MPI_INFO_NULL, 0, &c),
           MPI_ERR_ARG, "MPI_Dist_graph_create_adjacent");
    EXPECT_LEAD(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 0, NULL, MPI_UNWEIGHTED, 0, NULL,
                                          MPI_UNWEIGHTED, (MPI_Info)(intptr_t)0x4242, 0, &c),
           MPI_ERR_INFO, "MPI_Dist_graph_create_adjacent");
    EXPECT_LEAD(MPI_Dist_graph_create(MPI_COMM_WORLD, 2, src, deg, src, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &c),
           MPI_ERR_ARG, "MPI_Dist_graph_create"); /* negative degree */
    deg[1] = 1;
    EXPECT_LEAD(MPI_Dist_graph_create(MPI_COMM_WORLD, 2, src, deg, src, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &c),
           MPI_ERR_TOPOLOGY, "MPI_Dist_graph_create"); /* source np */
    int okdst[2] = {0, np};
    int oksrc[1] = {0}, onedeg[1] = {2};
    EXPECT_LEAD(MPI_Dist_graph_create(MPI_COMM_WORLD, 1, oksrc, onedeg, okdst, MPI_UNWEIGHTED, MPI_INFO_NULL,
                                 0, &c),
           MPI_ERR_TOPOLOGY, "MPI_Dist_graph_create"); /* destination np */
    EXPECT_LEAD(MPI_Dist_graph_create(MPI_COMM_WORLD, -1, src, deg, src, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &c),
           MPI_ERR_ARG, "MPI_Dist_graph_create");
    EXPECT_LEAD(MPI_Dist_graph_neighbors_count(graph, &r, &s, &d), MPI_ERR_TOPOLOGY,
           "MPI_Dist_graph_neighbors_count");

    /* neighbourhood collectives */
    int nb[16], nr[16];
    MPI_Request rq;
    EXPECT_LEAD(MPI_Neighbor_alltoall(nb, 1, MPI_INT, nr, 1, MPI_INT, MPI_COMM_WORLD), MPI_ERR_TOPOLOGY,
           "MPI_Neighbor_alltoall");
    EXPECT_LEAD(MPI_Ineighbor_allgather(nb, 1, MPI_INT, nr, 1, MPI_INT, MPI_COMM_WORLD, &rq), MPI_ERR_TOPOLOGY,
           "MPI_Ineighbor_allgather");
    EXPECT_LEAD(MPI_Neighbor_alltoall(MPI_IN_PLACE, 1, MPI_INT, nr, 1, MPI_INT, cart), MPI_ERR_BUFFER,
           "MPI_Neighbor_alltoall");
    EXPECT_LEAD(MPI_Neighbor_allgather(nb, -1, MPI_INT, nr, 1, MPI_INT, cart), MPI_ERR_COUNT,
           "MPI_Neighbor_allgather");
    EXPECT_LEAD(MPI_Neighbor_alltoall(nb, 1, MPI_DATATYPE_NULL, nr, 1, MPI_INT, graph), MPI_ERR_TYPE,
           "MPI_Neighbor_alltoall");
    int negc[4] = {1, -1, 1, 1}, zd[4] = {0, 0, 0, 0};
    EXPECT_LEAD(MPI_Neighbor_alltoallv(nb, negc, zd, MPI_INT, nr, negc, zd, MPI_INT, cart), MPI_ERR_COUNT,
           "MPI_Neighbor_alltoallv");
    EXPECT_LEAD(MPI_Ineighbor_alltoall(nb, 1, MPI_INT, nr, 1, MPI_INT, cart, NULL), MPI_ERR_ARG,
           "MPI_Ineighbor_alltoall");
    EXPECT_LEAD(MPI_Neighbor_alltoall_init(nb, 1, MPI_INT, nr, 1, MPI_INT, cart, (MPI_Info)(intptr_t)0x4242, &rq),
           MPI_ERR_INFO, "MPI_Neighbor_alltoall_init");

    /* still usable: a collective on each topology communicator */
    int sum = 0;
    CHECK_MPI(MPI_Allreduce(&me, &sum, 1, MPI_INT, MPI_SUM, cart));
    CHECK(sum == np * (np - 1) / 2, "allreduce after errors: %d", sum);
    CHECK_MPI(MPI_Allreduce(&me, &sum, 1, MPI_INT, MPI_SUM, graph));
    CHECK(sum == np * (np - 1) / 2, "allreduce after errors: %d", sum);
    CHECK_MPI(MPI_Comm_free(&cart));
    CHECK_MPI(MPI_Comm_free(&graph));
    CHECK(mt_nerr == 0, "%d failed expectations", mt_nerr);
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == 0) printf("topo_errors: ok\n");
    MPI_Finalize();
    return 0;
}
