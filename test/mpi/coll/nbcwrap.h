/* SPDX-License-Identifier: MIT */
/* Wrappers that run a blocking collective call in one of the other forms
 * (g_form): 0 MPI_I<coll> + MPI_Wait; 1 MPI_I<coll> + MPI_Test loop with
 * computation between tests; 2 MPI_<coll>_init + MPI_Start + MPI_Wait +
 * MPI_Request_free; 3 the same started twice, the in/out buffer restored
 * in between (the schedule reused). Included before a file of blocking
 * checks, whose MPI_<coll> calls the #defines at the end redirect. */
#ifndef CH4LITE_NBCWRAP_H
#define CH4LITE_NBCWRAP_H
#include "mpitest.h"

static int g_form;

static volatile double g_sink;
static void compute(int us) {
    double t = MPI_Wtime(), x = 1;
    while ((MPI_Wtime() - t) * 1e6 < us) x = x * 1.0000001 + 1e-9;
    g_sink = x;
}

/* Completes r per form (0, 1); returns the MPI error code. */
static int finish(MPI_Request* r) {
    if (g_form == 1) {
        int flag = 0, rc;
        while ((rc = MPI_Test(r, &flag, MPI_STATUS_IGNORE)) == MPI_SUCCESS && !flag) compute(2);
        return rc;
    }
    return MPI_Wait(r, MPI_STATUS_IGNORE);
}

/* Persistent: start (twice in form 3, restoring the `len` bytes of the
 * buffer `io` that the operation may change, when given). */
static int run_persistent(MPI_Request* r, void* io, size_t len) {
    int rc = MPI_SUCCESS;
    void* save = NULL;
    if (g_form == 3 && io && len) {
        save = malloc(len);
        memcpy(save, io, len);
    }
    for (int k = 0; k < (g_form == 3 ? 2 : 1) && rc == MPI_SUCCESS; ++k) {
        if (k == 1 && save) memcpy(io, save, len);
        rc = MPI_Start(r);
        if (rc == MPI_SUCCESS) rc = MPI_Wait(r, MPI_STATUS_IGNORE);
        if (rc == MPI_SUCCESS && *r == MPI_REQUEST_NULL) rc = MPI_ERR_REQUEST;
    }
    free(save);
    int rc2 = MPI_Request_free(r);
    return rc != MPI_SUCCESS ? rc : rc2;
}

#define FORMS(icall, initcall, io, len)                        \
    do {                                                       \
        MPI_Request r_;                                        \
        int rc_;                                               \
        if (g_form < 2) {                                      \
            rc_ = icall;                                       \
            return rc_ != MPI_SUCCESS ? rc_ : finish(&r_);     \
        }                                                      \
        rc_ = initcall;                                        \
        return rc_ != MPI_SUCCESS ? rc_ : run_persistent(&r_, io, len); \
    } while (0)

/* Bytes a buffer of one instance spans (lower bound 0 in these tests). */
static size_t tsize(MPI_Datatype t) {
    MPI_Aint lb = 0, ext = 0;
    MPI_Type_get_extent(t, &lb, &ext);
    return ext > 0 ? (size_t)ext : 0;
}
static int csize(MPI_Comm c) {
    int p = 0;
    MPI_Comm_size(c, &p);
    return p;
}
static long vsum(const int* counts, const int* displs, int p) {
    long hi = 0;
    for (int q = 0; q < p; ++q)
        if (displs[q] + counts[q] > hi) hi = displs[q] + counts[q];
    return hi;
}

static int w_Barrier(MPI_Comm c) { FORMS(MPI_Ibarrier(c, &r_), MPI_Barrier_init(c, MPI_INFO_NULL, &r_), NULL, 0); }
static int w_Bcast(void* b, int n, MPI_Datatype t, int root, MPI_Comm c) {
    FORMS(MPI_Ibcast(b, n, t, root, c, &r_), MPI_Bcast_init(b, n, t, root, c, MPI_INFO_NULL, &r_), NULL, 0);
}
static int w_Reduce(const void* s, void* r, int n, MPI_Datatype t, MPI_Op op, int root, MPI_Comm c) {
    FORMS(MPI_Ireduce(s, r, n, t, op, root, c, &r_), MPI_Reduce_init(s, r, n, t, op, root, c, MPI_INFO_NULL, &r_),
          s == MPI_IN_PLACE ? r : NULL, (size_t)n * tsize(t));
}
static int w_Allreduce(const void* s, void* r, int n, MPI_Datatype t, MPI_Op op, MPI_Comm c) {
    FORMS(MPI_Iallreduce(s, r, n, t, op, c, &r_), MPI_Allreduce_init(s, r, n, t, op, c, MPI_INFO_NULL, &r_),
          s == MPI_IN_PLACE ? r : NULL, (size_t)n * tsize(t));
}
static int w_Scan(const void* s, void* r, int n, MPI_Datatype t, MPI_Op op, MPI_Comm c) {
    FORMS(MPI_Iscan(s, r, n, t, op, c, &r_), MPI_Scan_init(s, r, n, t, op, c, MPI_INFO_NULL, &r_),
          s == MPI_IN_PLACE ? r : NULL, (size_t)n * tsize(t));
}
static int w_Exscan(const void* s, void* r, int n, MPI_Datatype t, MPI_Op op, MPI_Comm c) {
    FORMS(MPI_Iexscan(s, r, n, t, op, c, &r_), MPI_Exscan_init(s, r, n, t, op, c, MPI_INFO_NULL, &r_),
          s == MPI_IN_PLACE ? r : NULL, (size_t)n * tsize(t));
}
static int w_Reduce_scatter(const void* s, void* r, const int* counts, MPI_Datatype t, MPI_Op op, MPI_Comm c) {
    long total = 0;
    for (int q = 0; q < csize(c); ++q) total += counts[q];
    FORMS(MPI_Ireduce_scatter(s, r, counts, t, op, c, &r_),
          MPI_Reduce_scatter_init(s, r, counts, t, op, c, MPI_INFO_NULL, &r_), s == MPI_IN_PLACE ? r : NULL,
          (size_t)total * tsize(t));
}
static int w_Reduce_scatter_block(const void* s, void* r, int n, MPI_Datatype t, MPI_Op op, MPI_Comm c) {
    FORMS(MPI_Ireduce_scatter_block(s, r, n, t, op, c, &r_),
          MPI_Reduce_scatter_block_init(s, r, n, t, op, c, MPI_INFO_NULL, &r_), s == MPI_IN_PLACE ? r : NULL,
          (size_t)n * csize(c) * tsize(t));
}
static int w_Gather(const void* s, int sn, MPI_Datatype st, void* r, int rn, MPI_Datatype rt, int root, MPI_Comm c) {
    FORMS(MPI_Igather(s, sn, st, r, rn, rt, root, c, &r_),
          MPI_Gather_init(s, sn, st, r, rn, rt, root, c, MPI_INFO_NULL, &r_), NULL, 0);
}
static int w_Scatter(const void* s, int sn, MPI_Datatype st, void* r, int rn, MPI_Datatype rt, int root, MPI_Comm c) {
    FORMS(MPI_Iscatter(s, sn, st, r, rn, rt, root, c, &r_),
          MPI_Scatter_init(s, sn, st, r, rn, rt, root, c, MPI_INFO_NULL, &r_), NULL, 0);
}
static int w_Gatherv(const void* s, int sn, MPI_Datatype st, void* r, const int* rc, const int* d, MPI_Datatype rt,
                     int root, MPI_Comm c) {
    FORMS(MPI_Igatherv(s, sn, st, r, rc, d, rt, root, c, &r_),
          MPI_Gatherv_init(s, sn, st, r, rc, d, rt, root, c, MPI_INFO_NULL, &r_), NULL, 0);
}
static int w_Scatterv(const void* s, const int* sc, const int* d, MPI_Datatype st, void* r, int rn, MPI_Datatype rt,
                      int root, MPI_Comm c) {
    FORMS(MPI_Iscatterv(s, sc, d, st, r, rn, rt, root, c, &r_),
          MPI_Scatterv_init(s, sc, d, st, r, rn, rt, root, c, MPI_INFO_NULL, &r_), NULL, 0);
}
static int w_Allgather(const void* s, int sn, MPI_Datatype st, void* r, int rn, MPI_Datatype rt, MPI_Comm c) {
    FORMS(MPI_Iallgather(s, sn, st, r, rn, rt, c, &r_),
          MPI_Allgather_init(s, sn, st, r, rn, rt, c, MPI_INFO_NULL, &r_), NULL, 0);
}
static int w_Allgatherv(const void* s, int sn, MPI_Datatype st, void* r, const int* rc, const int* d, MPI_Datatype rt,
                        MPI_Comm c) {
    FORMS(MPI_Iallgatherv(s, sn, st, r, rc, d, rt, c, &r_),
          MPI_Allgatherv_init(s, sn, st, r, rc, d, rt, c, MPI_INFO_NULL, &r_), NULL, 0);
}
static int w_Alltoall(const void* s, int sn, MPI_Datatype st, void* r, int rn, MPI_Datatype rt, MPI_Comm c) {
    FORMS(MPI_Ialltoall(s, sn, st, r, rn, rt, c, &r_),
          MPI_Alltoall_init(s, sn, st, r, rn, rt, c, MPI_INFO_NULL, &r_), s == MPI_IN_PLACE ? r : NULL,
          (size_t)rn * csize(c) * tsize(rt));
}
static int w_Alltoallv(const void* s, const int* sc, const int* sd, MPI_Datatype st, void* r, const int* rc,
                       const int* rd, MPI_Datatype rt, MPI_Comm c) {
    FORMS(MPI_Ialltoallv(s, sc, sd, st, r, rc, rd, rt, c, &r_),
          MPI_Alltoallv_init(s, sc, sd, st, r, rc, rd, rt, c, MPI_INFO_NULL, &r_), s == MPI_IN_PLACE ? r : NULL,
          (size_t)vsum(rc, rd, csize(c)) * tsize(rt));
}

#define MPI_Barrier w_Barrier
#define MPI_Bcast w_Bcast
#define MPI_Reduce w_Reduce
#define MPI_Allreduce w_Allreduce
#define MPI_Scan w_Scan
#define MPI_Exscan w_Exscan
#define MPI_Reduce_scatter w_Reduce_scatter
#define MPI_Reduce_scatter_block w_Reduce_scatter_block
#define MPI_Gather w_Gather
#define MPI_Scatter w_Scatter
#define MPI_Gatherv w_Gatherv
#define MPI_Scatterv w_Scatterv
#define MPI_Allgather w_Allgather
#define MPI_Allgatherv w_Allgatherv
#define MPI_Alltoall w_Alltoall
#define MPI_Alltoallv w_Alltoallv
#endif
