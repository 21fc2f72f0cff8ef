/* SPDX-License-Identifier: MIT */
/* Process topologies against references computed here: MPI_Dims_create
 * (the standard's table of examples), Cartesian grids (coordinates, ranks,
 * shifts checked by messages to the neighbours, sub-grids, fewer processes
 * than the communicator, zero dimensions), graphs, distributed graphs (both
 * constructors, weighted and not), dup keeping the topology and split /
 * create dropping it. Bad input: topo_errors.c. */
#include "mpitest.h"

static int me, np;

/* row-major coordinates of r in dims[0..n) */
static void coords_of(int r, int n, const int* dims, int* c) {
    for (int i = n - 1; i >= 0; --i) {
        c[i] = r % dims[i];
        r /= dims[i];
    }
}
static int rank_of(int n, const int* dims, const int* c) {
    int r = 0;
    for (int i = 0; i < n; ++i) r = r * dims[i] + c[i];
    return r;
}

static void dims_table(void) {
    /* MPI-4.1 Example 8.1 */
    int a[2] = {0, 0};
    CHECK_MPI(MPI_Dims_create(6, 2, a));
    CHECK(a[0] == 3 && a[1] == 2, "Dims_create(6, 2) = (%d, %d)", a[0], a[1]);
    int b[2] = {0, 0};
    CHECK_MPI(MPI_Dims_create(7, 2, b));
    CHECK(b[0] == 7 && b[1] == 1, "Dims_create(7, 2) = (%d, %d)", b[0], b[1]);
    int c[3] = {0, 3, 0};
    CHECK_MPI(MPI_Dims_create(6, 3, c));
    CHECK(c[0] == 2 && c[1] == 3 && c[2] == 1, "Dims_create(6, 3, (0,3,0)) = (%d, %d, %d)", c[0],
          c[1], c[2]);
    int d[3] = {0, 3, 0};
    int rc = MPI_Dims_create(7, 3, d), cls = -1;
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_DIMS, "Dims_create(7, 3, (0,3,0)) must be erroneous: class %d", cls);
    /* every entry given: left alone */
    int e[2] = {2, 3};
    CHECK_MPI(MPI_Dims_create(6, 2, e));
    CHECK(e[0] == 2 && e[1] == 3, "fixed dims changed");
    CHECK_MPI(MPI_Dims_create(1, 0, NULL));
    /* products and order for a range of sizes */
    for (int n = 1; n <= 64; ++n) {
        int f[3] = {0, 0, 0};
        CHECK_MPI(MPI_Dims_create(n, 3, f));
        CHECK(f[0] * f[1] * f[2] == n && f[0] >= f[1] && f[1] >= f[2], "Dims_create(%d, 3) = %d %d %d",
              n, f[0], f[1], f[2]);
    }
}

/* A 2-D grid over every process, periodic in dimension 0 only. */
static void cart_2d(void) {
    int dims[2] = {0, 0}, periods[2] = {1, 0};
    CHECK_MPI(MPI_Dims_create(np, 2, dims));
    MPI_Comm cart;
    CHECK_MPI(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 1, &cart));
    CHECK(cart != MPI_COMM_NULL, "every process is in the grid");
    int st, nd, r, sz;
    CHECK_MPI(MPI_Topo_test(cart, &st));
    CHECK(st == MPI_CART, "Topo_test = %d", st);
    CHECK_MPI(MPI_Cartdim_get(cart, &nd));
    CHECK(nd == 2, "Cartdim_get = %d", nd);
    CHECK_MPI(MPI_Comm_rank(cart, &r));
    CHECK_MPI(MPI_Comm_size(cart, &sz));
    CHECK(r == me && sz == np, "rank %d size %d (reorder is ignored)", r, sz);
    int gd[2], gp[2], gc[2], ref[2];
    CHECK_MPI(MPI_Cart_get(cart, 2, gd, gp, gc));
    coords_of(me, 2, dims, ref);
    CHECK(gd[0] == dims[0] && gd[1] == dims[1] && gp[0] == 1 && gp[1] == 0 && gc[0] == ref[0] &&
              gc[1] == ref[1],
          "Cart_get");
    for (int q = 0; q < np; ++q) {
        int cq[2], rq;
        CHECK_MPI(MPI_Cart_coords(cart, q, 2, cq));
        coords_of(q, 2, dims, ref);
        CHECK(cq[0] == ref[0] && cq[1] == ref[1], "Cart_coords(%d)", q);
        CHECK_MPI(MPI_Cart_rank(cart, cq, &rq));
        CHECK(rq == q, "Cart_rank(coords(%d)) = %d", q, rq);
    }
    /* periodic dimension 0 wraps in Cart_rank */
    int wrap[2] = {gc[0] - dims[0], gc[1]}, rw;
    CHECK_MPI(MPI_Cart_rank(cart, wrap, &rw));
    CHECK(rw == me, "Cart_rank wraps the periodic dimension: %d", rw);
    /* shifts against the reference, then a message along each */
    for (int dim = 0; dim < 2; ++dim)
        for (int disp = -2; disp <= 2; ++disp) {
            int src, dst, c[2], want_src, want_dst;
            CHECK_MPI(MPI_Cart_shift(cart, dim, disp, &src, &dst));
            coords_of(me, 2, dims, c);
            int s = c[dim] - disp, d = c[dim] + disp;
            if (periods[dim]) {
                s = ((s % dims[dim]) + dims[dim]) % dims[dim];
                d = ((d % dims[dim]) + dims[dim]) % dims[dim];
            }
            c[dim] = s;
            want_src = (s < 0 || s >= dims[dim]) ? MPI_PROC_NULL : rank_of(2, dims, c);
            c[dim] = d;
            want_dst = (d < 0 || d >= dims[dim]) ? MPI_PROC_NULL : rank_of(2, dims, c);
            CHECK(src == want_src && dst == want_dst, "Cart_shift(%d, %d) = (%d, %d), want (%d, %d)",
                  dim, disp, src, dst, want_src, want_dst);
            int got = -7;
            CHECK_MPI(MPI_Sendrecv(&me, 1, MPI_INT, dst, 5, &got, 1, MPI_INT, src, 5, cart,
                                   MPI_STATUS_IGNORE));
            CHECK(got == (src == MPI_PROC_NULL ? -7 : src), "shifted message: %d from %d", got, src);
        }
    /* a dup keeps the topology; split and create drop it */
    MPI_Comm dup, split, created;
    CHECK_MPI(MPI_Comm_dup(cart, &dup));
    CHECK_MPI(MPI_Topo_test(dup, &st));
    CHECK(st == MPI_CART, "dup: Topo_test = %d", st);
    CHECK_MPI(MPI_Cart_get(dup, 2, gd, gp, gc));
    CHECK(gd[0] == dims[0] && gd[1] == dims[1] && gp[0] == 1, "dup: Cart_get");
    CHECK_MPI(MPI_Comm_split(cart, 0, me, &split));
    CHECK_MPI(MPI_Topo_test(split, &st));
    CHECK(st == MPI_UNDEFINED, "split: Topo_test = %d", st);
    MPI_Group g;
    CHECK_MPI(MPI_Comm_group(cart, &g));
    CHECK_MPI(MPI_Comm_create(cart, g, &created));
    CHECK_MPI(MPI_Topo_test(created, &st));
    CHECK(st == MPI_UNDEFINED, "create: Topo_test = %d", st);
    CHECK_MPI(MPI_Group_free(&g));
    CHECK_MPI(MPI_Comm_free(&created));
    CHECK_MPI(MPI_Comm_free(&split));
    CHECK_MPI(MPI_Comm_free(&cart));
    /* the dup outlives its parent */
    CHECK_MPI(MPI_Cart_shift(dup, 0, 1, &r, &sz));
    CHECK_MPI(MPI_Comm_free(&dup));
}

/* Fewer processes than the communicator, and zero dimensions. */
static void cart_small(void) {
    MPI_Comm cart;
    int dims[1] = {np > 1 ? np - 1 : 1}, periods[1] = {0}, nr;
    CHECK_MPI(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &cart));
    CHECK((cart == MPI_COMM_NULL) == (me >= dims[0]), "rank %d: in the grid of %d?", me, dims[0]);
    CHECK_MPI(MPI_Cart_map(MPI_COMM_WORLD, 1, dims, periods, &nr));
    CHECK(nr == (me < dims[0] ? me : MPI_UNDEFINED), "Cart_map = %d", nr);
    if (cart != MPI_COMM_NULL) {
        int sum = 0, want = dims[0] * (dims[0] - 1) / 2;
        CHECK_MPI(MPI_Allreduce(&me, &sum, 1, MPI_INT, MPI_SUM, cart));
        CHECK(sum == want, "allreduce on the grid: %d, want %d", sum, want);
        CHECK_MPI(MPI_Comm_free(&cart));
    }
    CHECK_MPI(MPI_Cart_create(MPI_COMM_WORLD, 0, NULL, NULL, 0, &cart));
    CHECK((cart == MPI_COMM_NULL) == (me != 0), "zero dimensions: rank 0 alone");
    if (cart != MPI_COMM_NULL) {
        int nd = -1, sz = -1, r = -1;
        CHECK_MPI(MPI_Cartdim_get(cart, &nd));
        CHECK_MPI(MPI_Comm_size(cart, &sz));
        CHECK_MPI(MPI_Cart_rank(cart, NULL, &r));
        CHECK(nd == 0 && sz == 1 && r == 0, "zero dimensions: ndims %d size %d rank %d", nd, sz, r);
        CHECK_MPI(MPI_Comm_free(&cart));
    }
}

/* MPI_Cart_sub of a 3-D grid. */
static void cart_sub(void) {
    int dims[3] = {0, 0, 0}, periods[3] = {0, 1, 1}, c[3];
    CHECK_MPI(MPI_Dims_create(np, 3, dims));
    MPI_Comm cart, sub, none;
    CHECK_MPI(MPI_Cart_create(MPI_COMM_WORLD, 3, dims, periods, 0, &cart));
    coords_of(me, 3, dims, c);
    const int remain[3] = {1, 0, 1};
    CHECK_MPI(MPI_Cart_sub(cart, remain, &sub));
    int sz, r, nd, gd[3], gp[3], gc[3];
    CHECK_MPI(MPI_Comm_size(sub, &sz));
    CHECK_MPI(MPI_Comm_rank(sub, &r));
    CHECK(sz == dims[0] * dims[2] && r == c[0] * dims[2] + c[2], "sub: size %d rank %d", sz, r);
    CHECK_MPI(MPI_Cartdim_get(sub, &nd));
    CHECK_MPI(MPI_Cart_get(sub, 3, gd, gp, gc));
    CHECK(nd == 2 && gd[0] == dims[0] && gd[1] == dims[2] && gp[0] == 0 && gp[1] == 1 &&
              gc[0] == c[0] && gc[1] == c[2],
          "sub: Cart_get");
    /* members: same coordinate in the dropped dimension */
    int sum = 0, want = 0, q;
    for (q = 0; q < np; ++q) {
        int cq[3];
        coords_of(q, 3, dims, cq);
        if (cq[1] == c[1]) want += q;
    }
    CHECK_MPI(MPI_Allreduce(&me, &sum, 1, MPI_INT, MPI_SUM, sub));
    CHECK(sum == want, "sub: members' world ranks sum %d, want %d", sum, want);
    const int nothing[3] = {0, 0, 0};
    CHECK_MPI(MPI_Cart_sub(cart, nothing, &none));
    CHECK_MPI(MPI_Comm_size(none, &sz));
    CHECK_MPI(MPI_Cartdim_get(none, &nd));
    CHECK(sz == 1 && nd == 0, "sub of no dimension: size %d ndims %d", sz, nd);
    CHECK_MPI(MPI_Comm_free(&none));
    CHECK_MPI(MPI_Comm_free(&sub));
    CHECK_MPI(MPI_Comm_free(&cart));
}

/* A ring with chords: i -- i+1, and i -- i+2 when np > 3. Symmetric, so a
 * message to each neighbour is answered by one from each. */
static void graph(void) {
    int index[64], edges[256], ne = 0;
    for (int i = 0; i < np; ++i) {
        if (np > 1) {
            edges[ne++] = (i + 1) % np;
            edges[ne++] = (i + np - 1) % np;
        }
        if (np > 3) {
            edges[ne++] = (i + 2) % np;
            edges[ne++] = (i + np - 2) % np;
        }
        index[i] = ne;
    }
    MPI_Comm gc;
    CHECK_MPI(MPI_Graph_create(MPI_COMM_WORLD, np, index, edges, 0, &gc));
    int st, nn, nedges, cnt, nr;
    CHECK_MPI(MPI_Topo_test(gc, &st));
    CHECK(st == MPI_GRAPH, "Topo_test = %d", st);
    CHECK_MPI(MPI_Graphdims_get(gc, &nn, &nedges));
    CHECK(nn == np && nedges == ne, "Graphdims_get = %d %d", nn, nedges);
    int gi[64], ge[256];
    CHECK_MPI(MPI_Graph_get(gc, np, ne, gi, ge));
    CHECK(memcmp(gi, index, sizeof(int) * (size_t)np) == 0 && memcmp(ge, edges, sizeof(int) * (size_t)ne) == 0,
          "Graph_get");
    for (int q = 0; q < np; ++q) {
        int nb[8];
        CHECK_MPI(MPI_Graph_neighbors_count(gc, q, &cnt));
        const int first = q ? index[q - 1] : 0;
        CHECK(cnt == index[q] - first, "Graph_neighbors_count(%d) = %d", q, cnt);
        CHECK_MPI(MPI_Graph_neighbors(gc, q, 8, nb));
        CHECK(memcmp(nb, edges + first, sizeof(int) * (size_t)cnt) == 0, "Graph_neighbors(%d)", q);
    }
    CHECK_MPI(MPI_Graph_map(MPI_COMM_WORLD, np, index, edges, &nr));
    CHECK(nr == me, "Graph_map = %d", nr);
    /* a message to every neighbour, one from every neighbour */
    const int first = me ? index[me - 1] : 0;
    cnt = index[me] - first;
    MPI_Request rq[16];
    int got[8], n = 0;
    for (int i = 0; i < cnt; ++i) {
        CHECK_MPI(MPI_Irecv(&got[i], 1, MPI_INT, edges[first + i], 9, gc, &rq[n++]));
        CHECK_MPI(MPI_Isend(&me, 1, MPI_INT, edges[first + i], 9, gc, &rq[n++]));
    }
    CHECK_MPI(MPI_Waitall(n, rq, MPI_STATUSES_IGNORE));
    for (int i = 0; i < cnt; ++i) {
        int seen = 0;
        for (int j = 0; j < cnt; ++j) seen += got[j] == edges[first + i];
        CHECK(seen >= 1, "no message from neighbour %d", edges[first + i]);
    }
    CHECK_MPI(MPI_Comm_free(&gc));
    /* fewer nodes than processes: the rest get MPI_COMM_NULL */
    int idx1[1] = {0};
    CHECK_MPI(MPI_Graph_create(MPI_COMM_WORLD, 1, idx1, NULL, 0, &gc));
    CHECK((gc == MPI_COMM_NULL) == (me != 0), "one-node graph");
    if (gc != MPI_COMM_NULL) CHECK_MPI(MPI_Comm_free(&gc));
    CHECK_MPI(MPI_Graph_create(MPI_COMM_WORLD, 0, NULL, NULL, 0, &gc));
    CHECK(gc == MPI_COMM_NULL, "empty graph");
}

/* What rank q names in MPI_Dist_graph_create, variant v (a function of q
 * alone, so every process can replay every specification). */
static int spec(int v, int q, int* src, int* deg, int* dst, int* w) {
    if (v == 0) { /* rank 0 names every edge i -> i+1, i -> i+2 */
        if (q != 0) return 0;
        int k = 0;
        for (int i = 0; i < np; ++i) {
            src[i] = i;
            deg[i] = 2;
            dst[k] = (i + 1) % np, w[k] = 10 * i + 1, ++k;
            dst[k] = (i + 2) % np, w[k] = 10 * i + 2, ++k;
        }
        return np;
    }
    if (v == 1) { /* each names its own out-edges, one to itself */
        src[0] = q;
        deg[0] = 3;
        dst[0] = (q + 1) % np, dst[1] = q, dst[2] = (q + np - 1) % np;
        w[0] = q, w[1] = 100 + q, w[2] = 200 + q;
        return 1;
    }
    /* v == 2: each names edges into itself from everyone (parallel edges
     * from rank 0 twice) */
    int k = 0;
    for (int s = 0; s < np; ++s) {
        src[s] = s;
        deg[s] = s == 0 ? 2 : 1;
        for (int j = 0; j < deg[s]; ++j) dst[k] = q, w[k] = 1000 * q + 10 * s + j, ++k;
    }
    return np;
}

static void dist_graph(void) {
    MPI_Comm dg;
    int src[64], deg[64], dst[256], w[256];
    int st, in, out, wt;
    /* adjacent: ring neighbours with weights, then unweighted */
    for (int weighted = 1; weighted >= 0; --weighted) {
        const int s[2] = {(me + np - 1) % np, (me + 1) % np}, d[3] = {(me + 1) % np, me, (me + 2) % np};
        const int sw[2] = {7, 8}, dw[3] = {1, 2, 3};
        CHECK_MPI(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, s, weighted ? sw : MPI_UNWEIGHTED, 3,
                                                 d, weighted ? dw : MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &dg));
        CHECK_MPI(MPI_Topo_test(dg, &st));
        CHECK(st == MPI_DIST_GRAPH, "Topo_test = %d", st);
        CHECK_MPI(MPI_Dist_graph_neighbors_count(dg, &in, &out, &wt));
        CHECK(in == 2 && out == 3 && wt == weighted, "neighbors_count = %d %d %d", in, out, wt);
        int gs[2], gsw[2] = {-1, -1}, gd[3], gdw[3] = {-1, -1, -1};
        CHECK_MPI(MPI_Dist_graph_neighbors(dg, 2, gs, weighted ? gsw : MPI_UNWEIGHTED, 3, gd,
                                           weighted ? gdw : MPI_UNWEIGHTED));
        CHECK(memcmp(gs, s, sizeof s) == 0 && memcmp(gd, d, sizeof d) == 0, "adjacent neighbours");
        if (weighted) CHECK(memcmp(gsw, sw, sizeof sw) == 0 && memcmp(gdw, dw, sizeof dw) == 0, "weights");
        MPI_Comm dup;
        CHECK_MPI(MPI_Comm_dup(dg, &dup));
        CHECK_MPI(MPI_Dist_graph_neighbors_count(dup, &in, &out, &wt));
        CHECK(in == 2 && out == 3 && wt == weighted, "dup keeps the graph");
        CHECK_MPI(MPI_Comm_free(&dup));
        CHECK_MPI(MPI_Comm_free(&dg));
    }
    /* a process with no neighbours at all, weighted: MPI_WEIGHTS_EMPTY */
    CHECK_MPI(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 0, NULL, MPI_WEIGHTS_EMPTY, 0, NULL,
                                             MPI_WEIGHTS_EMPTY, MPI_INFO_NULL, 0, &dg));
    CHECK_MPI(MPI_Dist_graph_neighbors_count(dg, &in, &out, &wt));
    CHECK(in == 0 && out == 0 && wt == 1, "empty weighted graph: %d %d %d", in, out, wt);
    CHECK_MPI(MPI_Comm_free(&dg));
    /* general constructor: replay every rank's specification, in rank order */
    for (int v = 0; v < 3; ++v)
        for (int weighted = 1; weighted >= 0; --weighted) {
            const int n = spec(v, me, src, deg, dst, w);
            int nedges = 0;
            for (int i = 0; i < n; ++i) nedges += deg[i];
            CHECK_MPI(MPI_Dist_graph_create(MPI_COMM_WORLD, n, src, deg, dst,
                                            weighted ? (nedges ? w : MPI_WEIGHTS_EMPTY) : MPI_UNWEIGHTED,
                                            MPI_INFO_NULL, 0, &dg));
            int ws[256], wsw[256], wd[256], wdw[256], nin = 0, nout = 0;
            for (int q = 0; q < np; ++q) {
                int qs[64], qd[64], qdst[256], qw[256], k = 0;
                const int qn = spec(v, q, qs, qd, qdst, qw);
                for (int i = 0; i < qn; ++i)
                    for (int j = 0; j < qd[i]; ++j, ++k) {
                        if (qs[i] == me) wd[nout] = qdst[k], wdw[nout++] = qw[k];
                        if (qdst[k] == me) ws[nin] = qs[i], wsw[nin++] = qw[k];
                    }
            }
            CHECK_MPI(MPI_Dist_graph_neighbors_count(dg, &in, &out, &wt));
            CHECK(in == nin && out == nout && wt == weighted, "variant %d: count %d %d %d, want %d %d %d",
                  v, in, out, wt, nin, nout, weighted);
            int gs[256], gsw[256], gd[256], gdw[256];
            CHECK_MPI(MPI_Dist_graph_neighbors(dg, in, gs, gsw, out, gd, gdw));
            /* order: by the naming rank, then its order */
            for (int i = 0; i < in; ++i)
                CHECK(gs[i] == ws[i] && (!weighted || gsw[i] == wsw[i]),
                      "variant %d: source %d = %d (w %d), want %d (w %d)", v, i, gs[i], gsw[i], ws[i], wsw[i]);
            for (int i = 0; i < out; ++i)
                CHECK(gd[i] == wd[i] && (!weighted || gdw[i] == wdw[i]),
                      "variant %d: destination %d = %d (w %d), want %d (w %d)", v, i, gd[i], gdw[i], wd[i], wdw[i]);
            CHECK_MPI(MPI_Comm_free(&dg));
        }
}

int main(int argc, char** argv) {
    mt_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    CHECK(np <= 64, "at most 64 ranks");
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN); /* Dims_create's erroneous call */
    int st;
    CHECK_MPI(MPI_Topo_test(MPI_COMM_WORLD, &st));
    CHECK(st == MPI_UNDEFINED, "world has no topology");
    dims_table();
    cart_2d();
    cart_small();
    cart_sub();
    graph();
    dist_graph();
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == 0) printf("topo_basic: ok\n");
    MPI_Finalize();
    return 0;
}
