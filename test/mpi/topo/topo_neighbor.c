/* SPDX-License-Identifier: MIT */
/* Neighbourhood collectives against references computed here, in their
 * blocking, nonblocking and persistent forms (the persistent one started
 * twice): a 2-D Cartesian halo exchange of a stencil array with
 * MPI_Cart_shift and MPI_Neighbor_alltoallw; alltoall / allgather(v) /
 * alltoallv on Cartesian grids with periodic dimensions of 1 and 2
 * processes (both neighbours the same process) and MPI_PROC_NULL edges; on
 * a graph with repeated edges and on distributed graphs. */
#include "mpitest.h"

static int me, np;

#define FORMS(f, blocking, nonblocking, init)                                   \
    do {                                                                        \
        MPI_Request rq_;                                                        \
        if ((f) == 0) {                                                         \
            CHECK_MPI(blocking);                                                \
        } else if ((f) == 1) {                                                  \
            CHECK_MPI(nonblocking);                                             \
            CHECK_MPI(MPI_Wait(&rq_, MPI_STATUS_IGNORE));                       \
        } else {                                                                \
            CHECK_MPI(init);                                                    \
            for (int s_ = 0; s_ < 2; ++s_) {                                    \
                CHECK_MPI(MPI_Start(&rq_));                                     \
                CHECK_MPI(MPI_Wait(&rq_, MPI_STATUS_IGNORE));                   \
            }                                                                   \
            CHECK_MPI(MPI_Request_free(&rq_));                                  \
        }                                                                       \
    } while (0)

/* The neighbour lists of any topology communicator, as MPI defines them
 * for the neighbourhood collectives. */
static int neighbours(MPI_Comm c, int* in, int* nin, int* out, int* nout) {
    int st;
    MPI_Topo_test(c, &st);
    if (st == MPI_CART) {
        int nd;
        MPI_Cartdim_get(c, &nd);
        for (int d = 0; d < nd; ++d) MPI_Cart_shift(c, d, 1, &in[2 * d], &in[2 * d + 1]);
        *nin = *nout = 2 * nd;
        memcpy(out, in, sizeof(int) * (size_t)(2 * nd));
    } else if (st == MPI_GRAPH) {
        MPI_Graph_neighbors_count(c, me, nin);
        MPI_Graph_neighbors(c, me, *nin, in);
        *nout = *nin;
        memcpy(out, in, sizeof(int) * (size_t)*nin);
    } else {
        int w;
        MPI_Dist_graph_neighbors_count(c, nin, nout, &w);
        MPI_Dist_graph_neighbors(c, *nin, in, MPI_UNWEIGHTED, *nout, out, MPI_UNWEIGHTED);
    }
    return st;
}

/* What I send to my i-th out-neighbour in test `salt`: element e. */
static int sent(int from, int i, int e, int salt) { return from * 100000 + i * 1000 + e * 10 + salt; }

/* For my j-th in-neighbour p: the index of the out-slot of p whose message
 * lands in slot j. Cartesian: the direction reverses (my slot 2d, "from
 * below", gets p's slot 2d+1, "up"). Otherwise the k-th slot naming p gets
 * p's k-th slot naming me (outs_of gives p's out list). */
static int source_slot(int st, const int* in, int j, const int* pout, int npout) {
    if (st == MPI_CART) return j ^ 1;
    int occ = 0;
    for (int k = 0; k < j; ++k) occ += in[k] == in[j];
    for (int i = 0; i < npout; ++i)
        if (pout[i] == me && occ-- == 0) return i;
    return -1;
}

typedef void (*outs_fn)(int rank, int* out, int* nout);

/* alltoall, allgather, allgatherv, alltoallv on c, each form. */
static void exchange_all(MPI_Comm c, outs_fn outs_of, const char* what) {
    int in[64], out[64], nin, nout, pout[64], npout;
    const int st = neighbours(c, in, &nin, out, &nout);
    int* sb = malloc(sizeof(int) * 64 * 8);
    int* rb = malloc(sizeof(int) * 64 * 8 + sizeof(int));
    for (int f = 0; f < 3; ++f) {
        /* alltoall: 3 ints per neighbour */
        for (int i = 0; i < nout; ++i)
            for (int e = 0; e < 3; ++e) sb[i * 3 + e] = sent(me, i, e, f);
        for (int j = 0; j < nin * 3 + 1; ++j) rb[j] = -1;
        FORMS(f, MPI_Neighbor_alltoall(sb, 3, MPI_INT, rb, 3, MPI_INT, c),
              MPI_Ineighbor_alltoall(sb, 3, MPI_INT, rb, 3, MPI_INT, c, &rq_),
              MPI_Neighbor_alltoall_init(sb, 3, MPI_INT, rb, 3, MPI_INT, c, MPI_INFO_NULL, &rq_));
        for (int j = 0; j < nin; ++j) {
            const int p = in[j];
            if (p != MPI_PROC_NULL) outs_of(p, pout, &npout);
            const int i = p == MPI_PROC_NULL ? -1 : source_slot(st, in, j, pout, npout);
            for (int e = 0; e < 3; ++e) {
                const int want = p == MPI_PROC_NULL ? -1 : sent(p, i, e, f);
                CHECK(rb[j * 3 + e] == want, "%s alltoall f%d: slot %d (from %d) [%d] = %d, want %d", what, f,
                      j, p, e, rb[j * 3 + e], want);
            }
        }
        CHECK(rb[nin * 3] == -1, "%s alltoall wrote past the end", what);
        /* allgather: 2 ints, the same to everyone */
        for (int e = 0; e < 2; ++e) sb[e] = sent(me, 0, e, 10 + f);
        for (int j = 0; j < nin * 2; ++j) rb[j] = -1;
        FORMS(f, MPI_Neighbor_allgather(sb, 2, MPI_INT, rb, 2, MPI_INT, c),
              MPI_Ineighbor_allgather(sb, 2, MPI_INT, rb, 2, MPI_INT, c, &rq_),
              MPI_Neighbor_allgather_init(sb, 2, MPI_INT, rb, 2, MPI_INT, c, MPI_INFO_NULL, &rq_));
        for (int j = 0; j < nin; ++j)
            for (int e = 0; e < 2; ++e) {
                const int want = in[j] == MPI_PROC_NULL ? -1 : sent(in[j], 0, e, 10 + f);
                CHECK(rb[j * 2 + e] == want, "%s allgather f%d slot %d", what, f, j);
            }
        /* allgatherv: each sends (rank % 3) + 1 ints; stored backwards */
        int rc[64], rd[64], at = 0;
        for (int j = nin - 1; j >= 0; --j) {
            rc[j] = in[j] == MPI_PROC_NULL ? 0 : in[j] % 3 + 1;
            rd[j] = at, at += rc[j];
        }
        for (int e = 0; e < me % 3 + 1; ++e) sb[e] = sent(me, 0, e, 20 + f);
        for (int j = 0; j < at + 1; ++j) rb[j] = -1;
        FORMS(f, MPI_Neighbor_allgatherv(sb, me % 3 + 1, MPI_INT, rb, rc, rd, MPI_INT, c),
              MPI_Ineighbor_allgatherv(sb, me % 3 + 1, MPI_INT, rb, rc, rd, MPI_INT, c, &rq_),
              MPI_Neighbor_allgatherv_init(sb, me % 3 + 1, MPI_INT, rb, rc, rd, MPI_INT, c, MPI_INFO_NULL, &rq_));
        for (int j = 0; j < nin; ++j)
            for (int e = 0; e < rc[j]; ++e)
                CHECK(rb[rd[j] + e] == sent(in[j], 0, e, 20 + f), "%s allgatherv f%d slot %d [%d]", what, f, j, e);
        CHECK(rb[at] == -1, "%s allgatherv wrote past the end", what);
        /* alltoallv: slot i of rank r carries (r + i) % 4 ints */
        int sc[64], sd[64], sat = 0;
        for (int i = 0; i < nout; ++i) {
            sc[i] = (me + i) % 4, sd[i] = sat, sat += sc[i] + 1;
            for (int e = 0; e < sc[i]; ++e) sb[sd[i] + e] = sent(me, i, e, 30 + f);
        }
        at = 0;
        for (int j = 0; j < nin; ++j) {
            const int p = in[j];
            if (p != MPI_PROC_NULL) outs_of(p, pout, &npout);
            const int i = p == MPI_PROC_NULL ? -1 : source_slot(st, in, j, pout, npout);
            rc[j] = p == MPI_PROC_NULL ? 2 : (p + i) % 4;
            rd[j] = at, at += rc[j] + 2;
        }
        for (int j = 0; j < at; ++j) rb[j] = -1;
        FORMS(f, MPI_Neighbor_alltoallv(sb, sc, sd, MPI_INT, rb, rc, rd, MPI_INT, c),
              MPI_Ineighbor_alltoallv(sb, sc, sd, MPI_INT, rb, rc, rd, MPI_INT, c, &rq_),
              MPI_Neighbor_alltoallv_init(sb, sc, sd, MPI_INT, rb, rc, rd, MPI_INT, c, MPI_INFO_NULL, &rq_));
        for (int j = 0; j < nin; ++j) {
            const int p = in[j];
            if (p != MPI_PROC_NULL) outs_of(p, pout, &npout);
            const int i = p == MPI_PROC_NULL ? -1 : source_slot(st, in, j, pout, npout);
            for (int e = 0; e < rc[j]; ++e) {
                const int want = p == MPI_PROC_NULL ? -1 : sent(p, i, e, 30 + f);
                CHECK(rb[rd[j] + e] == want, "%s alltoallv f%d slot %d [%d] = %d, want %d", what, f, j, e,
                      rb[rd[j] + e], want);
            }
            CHECK(rb[rd[j] + rc[j]] == -1, "%s alltoallv wrote a gap", what);
        }
    }
    /* large count form, once */
    MPI_Count c3 = 3;
    for (int i = 0; i < nout; ++i)
        for (int e = 0; e < 3; ++e) sb[i * 3 + e] = sent(me, i, e, 99);
    CHECK_MPI(MPI_Neighbor_alltoall_c(sb, c3, MPI_INT, rb, c3, MPI_INT, c));
    for (int j = 0; j < nin; ++j)
        if (in[j] != MPI_PROC_NULL) {
            outs_of(in[j], pout, &npout);
            CHECK(rb[j * 3] == sent(in[j], source_slot(st, in, j, pout, npout), 0, 99), "%s alltoall_c", what);
        }
    free(sb);
    free(rb);
}

/* ---- Cartesian grids: the out list of any rank from its coordinates */
static MPI_Comm g_cart;
static void cart_outs(int rank, int* out, int* nout) {
    int nd, dims[8], periods[8], coords[8];
    MPI_Cartdim_get(g_cart, &nd);
    MPI_Cart_get(g_cart, nd, dims, periods, coords);
    MPI_Cart_coords(g_cart, rank, nd, coords);
    for (int d = 0; d < nd; ++d)
        for (int s = 0; s < 2; ++s) {
            int c2[8];
            memcpy(c2, coords, sizeof(int) * (size_t)nd);
            c2[d] += s ? 1 : -1;
            if (!periods[d] && (c2[d] < 0 || c2[d] >= dims[d])) {
                out[2 * d + s] = MPI_PROC_NULL;
                continue;
            }
            c2[d] = (c2[d] + dims[d]) % dims[d];
            MPI_Cart_rank(g_cart, c2, &out[2 * d + s]);
        }
    *nout = 2 * nd;
}

static void cart(int d0, int d1, int p0, int p1) {
    int dims[2] = {d0, d1}, periods[2] = {p0, p1};
    CHECK_MPI(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &g_cart));
    char what[64];
    snprintf(what, sizeof what, "cart %dx%d periods %d%d", d0, d1, p0, p1);
    exchange_all(g_cart, cart_outs, what);
    MPI_Comm_free(&g_cart);
}

/* ---- a 2-D stencil halo exchange: a (NX+2) x (NY+2) block of doubles per
 * process, global cell (gx, gy) holds gx * 1000 + gy; each process sends its
 * four edges with MPI_Neighbor_alltoallw (row = contiguous, column = vector)
 * and checks its ghost cells against the global function. */
#define NX 4
#define NY 3
static double cell(int gx, int gy) { return gx * 1000.0 + gy; }

static void halo(int f) {
    int dims[2] = {0, 0}, periods[2] = {1, 0}, coords[2];
    MPI_Dims_create(np, 2, dims);
    MPI_Comm c;
    CHECK_MPI(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &c));
    MPI_Cart_coords(c, me, 2, coords);
    double a[NX + 2][NY + 2];
    for (int x = 0; x < NX + 2; ++x)
        for (int y = 0; y < NY + 2; ++y)
            a[x][y] = (x == 0 || y == 0 || x == NX + 1 || y == NY + 1) ? -1.0
                                                                       : cell(coords[0] * NX + x - 1, coords[1] * NY + y - 1);
    MPI_Datatype row, col; /* x fixed: NY contiguous; y fixed: NX strided */
    MPI_Type_contiguous(NY, MPI_DOUBLE, &row);
    MPI_Type_vector(NX, 1, NY + 2, MPI_DOUBLE, &col);
    MPI_Type_commit(&row);
    MPI_Type_commit(&col);
    /* slots: 0 = x-1, 1 = x+1, 2 = y-1, 3 = y+1 (MPI's order) */
    const MPI_Aint d = sizeof(double);
    MPI_Aint sd[4] = {(1 * (NY + 2) + 1) * d, (NX * (NY + 2) + 1) * d, (1 * (NY + 2) + 1) * d, (1 * (NY + 2) + NY) * d};
    MPI_Aint rd[4] = {(0 * (NY + 2) + 1) * d, ((NX + 1) * (NY + 2) + 1) * d, (1 * (NY + 2) + 0) * d,
                      (1 * (NY + 2) + NY + 1) * d};
    int counts[4] = {1, 1, 1, 1};
    MPI_Datatype types[4] = {row, row, col, col};
    FORMS(f, MPI_Neighbor_alltoallw(a, counts, sd, types, a, counts, rd, types, c),
          MPI_Ineighbor_alltoallw(a, counts, sd, types, a, counts, rd, types, c, &rq_),
          MPI_Neighbor_alltoallw_init(a, counts, sd, types, a, counts, rd, types, c, MPI_INFO_NULL, &rq_));
    int src, dst;
    for (int dim = 0; dim < 2; ++dim) {
        MPI_Cart_shift(c, dim, 1, &src, &dst);
        const int ext = dim ? NY : NX, gdim = dims[dim] * ext;
        for (int s = 0; s < 2; ++s) {
            const int nb = s ? dst : src;
            for (int t = 1; t <= (dim ? NX : NY); ++t) {
                const int x = dim ? t : (s ? NX + 1 : 0), y = dim ? (s ? NY + 1 : 0) : t;
                double want = -1.0;
                if (nb != MPI_PROC_NULL) {
                    int gx = coords[0] * NX + x - 1, gy = coords[1] * NY + y - 1;
                    if (dim == 0) gx = (gx + gdim) % gdim;
                    else gy = (gy + gdim) % gdim;
                    want = cell(gx, gy);
                }
                CHECK(a[x][y] == want, "halo f%d: ghost (%d, %d) = %g, want %g", f, x, y, a[x][y], want);
            }
        }
    }
    /* corners untouched */
    CHECK(a[0][0] == -1.0 && a[NX + 1][NY + 1] == -1.0, "halo: corners written");
    MPI_Type_free(&row);
    MPI_Type_free(&col);
    MPI_Comm_free(&c);
}

/* ---- a graph: the ring with chords (repeated edges when np is small) */
static int g_index[64], g_edges[256];
static void graph_outs(int rank, int* out, int* nout) {
    const int first = rank ? g_index[rank - 1] : 0;
    *nout = g_index[rank] - first;
    memcpy(out, g_edges + first, sizeof(int) * (size_t)*nout);
}

static void graph(void) {
    int ne = 0;
    for (int i = 0; i < np; ++i) {
        g_edges[ne++] = (i + 1) % np;
        g_edges[ne++] = (i + np - 1) % np;
        if (np > 2) g_edges[ne++] = (i + 2) % np, g_edges[ne++] = (i + np - 2) % np;
        g_index[i] = ne;
    }
    MPI_Comm c;
    CHECK_MPI(MPI_Graph_create(MPI_COMM_WORLD, np, g_index, g_edges, 0, &c));
    exchange_all(c, graph_outs, "graph");
    MPI_Comm_free(&c);
}

/* ---- distributed graphs: out = {r+1, r+3, r} and in = {r-1, r-3, r}
 * (mod np), weighted; then one named by rank 0 alone */
static void dist_outs(int rank, int* out, int* nout) {
    out[0] = (rank + 1) % np, out[1] = (rank + 3) % np, out[2] = rank;
    *nout = 3;
}

static void dist_graph(void) {
    const int in[3] = {(me + np - 1) % np, (me + 3 * np - 3) % np, me};
    int out[3], nout, w[3] = {1, 2, 3};
    dist_outs(me, out, &nout);
    MPI_Comm c;
    CHECK_MPI(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 3, in, w, 3, out, w, MPI_INFO_NULL, 0, &c));
    exchange_all(c, dist_outs, "dist graph adjacent");
    MPI_Comm_free(&c);
}

int main(int argc, char** argv) {
    mt_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    CHECK(np <= 64, "at most 64 ranks");
    cart(np, 1, 1, 1); /* a periodic dimension of one process */
    cart(np, 1, 0, 0); /* MPI_PROC_NULL at both ends */
    if (np % 2 == 0) cart(2, np / 2, 1, 0); /* a periodic dimension of two */
    for (int f = 0; f < 3; ++f) halo(f);
    graph();
    dist_graph();
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == 0) printf("topo_neighbor: ok\n");
    MPI_Finalize();
    return 0;
}
