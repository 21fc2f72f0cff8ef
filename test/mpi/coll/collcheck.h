/* SPDX-License-Identifier: MIT */
/* Every collective on one communicator with MPI_INT data, checked against
 * the result computed sequentially from the value function v(rank, i):
 * each root, counts from 0 to past the long-message switch points,
 * MPI_IN_PLACE wherever MPI allows it, uneven v-counts. Shared by the tests
 * on MPI_COMM_WORLD and on split / created communicators. */
#ifndef CH4LITE_COLLCHECK_H
#define CH4LITE_COLLCHECK_H
#include "mpitest.h"

static int v(int rank, long i) { return (int)((rank * 7919L + i * 31L) % 100003L); }
/* Uneven per-rank counts for the v-collectives: rank r holds vcount(r, n). */
static int vcount(int r, int n) { return (n * (r % 3 + 1)) / 2 + (r == 1 ? 0 : r); }
/* Ints for a buffer of n * p elements that also holds any vcount(). */
static size_t room(int n, int p) { return (size_t)n * p + 2 * (size_t)n + 2 * (size_t)p + 8; }

static void check_bcast(MPI_Comm comm, int n) {
    int me, p;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &p);
    int* b = (int*)malloc(sizeof(int) * (n + 1));
    for (int root = 0; root < p; ++root) {
        for (int i = 0; i < n; ++i) b[i] = me == root ? v(root, i) : -1;
        CHECK_MPI(MPI_Bcast(b, n, MPI_INT, root, comm));
        for (int i = 0; i < n; ++i) CHECK(b[i] == v(root, i), "bcast n=%d root=%d [%d]=%d", n, root, i, b[i]);
    }
    free(b);
}

static void check_reduce(MPI_Comm comm, int n) {
    int me, p;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &p);
    int *s = (int*)malloc(sizeof(int) * (n + 1)), *r = (int*)malloc(sizeof(int) * (n + 1));
    for (int root = 0; root < p; root += (p > 3 ? p - 1 : 1)) {
        for (int inplace = 0; inplace < 2; ++inplace) {
            for (int i = 0; i < n; ++i) s[i] = v(me, i), r[i] = (inplace && me == root) ? v(me, i) : -1;
            CHECK_MPI(MPI_Reduce(inplace && me == root ? MPI_IN_PLACE : s, r, n, MPI_INT, MPI_SUM, root, comm));
            if (me == root)
                for (int i = 0; i < n; ++i) {
                    long want = 0;
                    for (int q = 0; q < p; ++q) want += v(q, i);
                    CHECK(r[i] == want, "reduce n=%d root=%d inplace=%d [%d]=%d want %ld", n, root, inplace, i, r[i], want);
                }
        }
    }
    for (int inplace = 0; inplace < 2; ++inplace) {
        for (int i = 0; i < n; ++i) s[i] = v(me, i), r[i] = inplace ? v(me, i) : -1;
        CHECK_MPI(MPI_Allreduce(inplace ? MPI_IN_PLACE : s, r, n, MPI_INT, MPI_MAX, comm));
        for (int i = 0; i < n; ++i) {
            int want = v(0, i);
            for (int q = 1; q < p; ++q) want = v(q, i) > want ? v(q, i) : want;
            CHECK(r[i] == want, "allreduce n=%d inplace=%d [%d]=%d want %d", n, inplace, i, r[i], want);
        }
        /* Scan / Exscan */
        for (int i = 0; i < n; ++i) s[i] = v(me, i), r[i] = inplace ? v(me, i) : -7;
        CHECK_MPI(MPI_Scan(inplace ? MPI_IN_PLACE : s, r, n, MPI_INT, MPI_SUM, comm));
        for (int i = 0; i < n; ++i) {
            long want = 0;
            for (int q = 0; q <= me; ++q) want += v(q, i);
            CHECK(r[i] == want, "scan n=%d inplace=%d [%d]=%d want %ld", n, inplace, i, r[i], want);
        }
        for (int i = 0; i < n; ++i) s[i] = v(me, i), r[i] = inplace ? v(me, i) : -7;
        CHECK_MPI(MPI_Exscan(inplace ? MPI_IN_PLACE : s, r, n, MPI_INT, MPI_SUM, comm));
        if (me > 0)
            for (int i = 0; i < n; ++i) {
                long want = 0;
                for (int q = 0; q < me; ++q) want += v(q, i);
                CHECK(r[i] == want, "exscan n=%d inplace=%d [%d]=%d want %ld", n, inplace, i, r[i], want);
            }
    }
    free(s);
    free(r);
}

static void check_reduce_scatter(MPI_Comm comm, int n) {
    int me, p;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &p);
    int* counts = (int*)malloc(sizeof(int) * p);
    long total = 0;
    for (int q = 0; q < p; ++q) total += (counts[q] = vcount(q, n));
    long first = 0;
    for (int q = 0; q < me; ++q) first += counts[q];
    int *s = (int*)malloc(sizeof(int) * (total + 1)), *r = (int*)malloc(sizeof(int) * (total + 1));
    for (int inplace = 0; inplace < 2; ++inplace) {
        for (long i = 0; i < total; ++i) s[i] = v(me, i), r[i] = inplace ? v(me, i) : -1;
        CHECK_MPI(MPI_Reduce_scatter(inplace ? MPI_IN_PLACE : s, r, counts, MPI_INT, MPI_SUM, comm));
        for (int i = 0; i < counts[me]; ++i) {
            long want = 0;
            for (int q = 0; q < p; ++q) want += v(q, first + i);
            CHECK(r[i] == want, "reduce_scatter n=%d inplace=%d [%d]=%d want %ld", n, inplace, i, r[i], want);
        }
        long bt = (long)n * p;
        int* bs = (int*)malloc(sizeof(int) * (bt + 1));
        int* br = (int*)malloc(sizeof(int) * (bt + 1));
        for (long i = 0; i < bt; ++i) bs[i] = v(me, i), br[i] = inplace ? v(me, i) : -1;
        CHECK_MPI(MPI_Reduce_scatter_block(inplace ? MPI_IN_PLACE : bs, br, n, MPI_INT, MPI_SUM, comm));
        for (int i = 0; i < n; ++i) {
            long want = 0;
            for (int q = 0; q < p; ++q) want += v(q, (long)me * n + i);
            CHECK(br[i] == want, "reduce_scatter_block n=%d inplace=%d [%d]=%d", n, inplace, i, br[i]);
        }
        free(bs);
        free(br);
    }
    free(counts);
    free(s);
    free(r);
}

static void check_gather_scatter(MPI_Comm comm, int n) {
    int me, p;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &p);
    long all = (long)n * p;
    int *s = (int*)malloc(sizeof(int) * room(n, p)), *r = (int*)malloc(sizeof(int) * room(n, p));
    int *counts = (int*)malloc(sizeof(int) * p), *displs = (int*)malloc(sizeof(int) * p);
    long vtotal = 0;
    for (int q = 0; q < p; ++q) counts[q] = vcount(q, n);
    for (int q = p - 1; q >= 0; --q) displs[q] = (int)vtotal, vtotal += counts[q] + 1; /* reversed, gaps */
    int* vr = (int*)malloc(sizeof(int) * (vtotal + 1));
    for (int root = 0; root < p; ++root) {
        for (int inplace = 0; inplace < 2; ++inplace) {
            const int ip = inplace && me == root;
            /* Gather */
            for (int i = 0; i < n; ++i) s[i] = v(me, i);
            for (long i = 0; i < all; ++i) r[i] = ip ? v((int)(i / (n ? n : 1)), i % (n ? n : 1)) : -1;
            CHECK_MPI(MPI_Gather(ip ? MPI_IN_PLACE : s, n, MPI_INT, r, n, MPI_INT, root, comm));
            if (me == root)
                for (long i = 0; i < all; ++i)
                    CHECK(r[i] == v((int)(i / n), i % n), "gather n=%d root=%d ip=%d [%ld]", n, root, ip, i);
            /* Scatter */
            for (long i = 0; i < all; ++i) s[i] = v((int)(i / (n ? n : 1)), i % (n ? n : 1)) + 1;
            for (int i = 0; i < n; ++i) r[i] = -1;
            CHECK_MPI(MPI_Scatter(s, n, MPI_INT, ip ? MPI_IN_PLACE : r, n, MPI_INT, root, comm));
            if (!ip)
                for (int i = 0; i < n; ++i) CHECK(r[i] == v(me, i) + 1, "scatter n=%d root=%d [%d]", n, root, i);
            /* Gatherv */
            for (int i = 0; i < counts[me]; ++i) s[i] = v(me, i) + 2;
            for (long i = 0; i < vtotal; ++i) vr[i] = -1;
            if (ip)
                for (int i = 0; i < counts[me]; ++i) vr[displs[me] + i] = v(me, i) + 2;
            CHECK_MPI(MPI_Gatherv(ip ? MPI_IN_PLACE : s, counts[me], MPI_INT, vr, counts, displs, MPI_INT, root, comm));
            if (me == root)
                for (int q = 0; q < p; ++q) {
                    for (int i = 0; i < counts[q]; ++i)
                        CHECK(vr[displs[q] + i] == v(q, i) + 2, "gatherv n=%d root=%d from %d [%d]", n, root, q, i);
                    CHECK(vr[displs[q] + counts[q]] == -1, "gatherv wrote into a gap");
                }
            /* Scatterv */
            for (int q = 0; q < p; ++q)
                for (int i = 0; i < counts[q]; ++i) vr[displs[q] + i] = v(q, i) + 3;
            for (int i = 0; i < counts[me]; ++i) r[i] = -1;
            CHECK_MPI(MPI_Scatterv(vr, counts, displs, MPI_INT, ip ? MPI_IN_PLACE : r, counts[me], MPI_INT, root, comm));
            if (!ip)
                for (int i = 0; i < counts[me]; ++i) CHECK(r[i] == v(me, i) + 3, "scatterv n=%d root=%d [%d]", n, root, i);
        }
    }
    free(s);
    free(r);
    free(vr);
    free(counts);
    free(displs);
}

static void check_allgather_alltoall(MPI_Comm comm, int n) {
    int me, p;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &p);
    long all = (long)n * p;
    int *s = (int*)malloc(sizeof(int) * room(n, p)), *r = (int*)malloc(sizeof(int) * room(n, p));
    int *counts = (int*)malloc(sizeof(int) * p), *displs = (int*)malloc(sizeof(int) * p);
    long vtotal = 0;
    for (int q = 0; q < p; ++q) counts[q] = vcount(q, n), displs[q] = (int)vtotal, vtotal += counts[q];
    int* vr = (int*)malloc(sizeof(int) * (vtotal + 1));
    for (int inplace = 0; inplace < 2; ++inplace) {
        for (int i = 0; i < n; ++i) s[i] = v(me, i);
        for (long i = 0; i < all; ++i) r[i] = inplace && i / n == me ? v(me, i % n) : -1;
        CHECK_MPI(MPI_Allgather(inplace ? MPI_IN_PLACE : s, n, MPI_INT, r, n, MPI_INT, comm));
        for (long i = 0; i < all; ++i) CHECK(r[i] == v((int)(i / n), i % n), "allgather n=%d ip=%d [%ld]", n, inplace, i);
        for (int i = 0; i < counts[me]; ++i) s[i] = v(me, i) + 5;
        for (long i = 0; i < vtotal; ++i) vr[i] = -1;
        if (inplace)
            for (int i = 0; i < counts[me]; ++i) vr[displs[me] + i] = v(me, i) + 5;
        CHECK_MPI(MPI_Allgatherv(inplace ? MPI_IN_PLACE : s, counts[me], MPI_INT, vr, counts, displs, MPI_INT, comm));
        for (int q = 0; q < p; ++q)
            for (int i = 0; i < counts[q]; ++i) CHECK(vr[displs[q] + i] == v(q, i) + 5, "allgatherv n=%d from %d [%d]", n, q, i);
        /* Alltoall: block for rank q from me holds v(me * p + q, i) */
        for (long i = 0; i < all; ++i) s[i] = v(me * p + (int)(i / n), i % n);
        for (long i = 0; i < all; ++i) r[i] = inplace ? s[i] : -1;
        CHECK_MPI(MPI_Alltoall(inplace ? MPI_IN_PLACE : s, n, MPI_INT, r, n, MPI_INT, comm));
        for (long i = 0; i < all; ++i)
            CHECK(r[i] == v((int)(i / n) * p + me, i % n), "alltoall n=%d ip=%d [%ld]", n, inplace, i);
    }
    /* Alltoallv: me sends sc[q] = vcount(me + q, n) ints to q, at reversed displacements. */
    int *sc = (int*)malloc(sizeof(int) * p), *sd = (int*)malloc(sizeof(int) * p);
    int *rc = (int*)malloc(sizeof(int) * p), *rd = (int*)malloc(sizeof(int) * p);
    long st = 0, rt = 0;
    for (int q = p - 1; q >= 0; --q) sc[q] = vcount(me + q, n), sd[q] = (int)st, st += sc[q];
    for (int q = 0; q < p; ++q) rc[q] = vcount(q + me, n), rd[q] = (int)rt, rt += rc[q] + 2;
    int *as = (int*)malloc(sizeof(int) * (st + 1)), *ar = (int*)malloc(sizeof(int) * (rt + 1));
    for (int q = 0; q < p; ++q)
        for (int i = 0; i < sc[q]; ++i) as[sd[q] + i] = v(me * p + q, i);
    for (long i = 0; i < rt; ++i) ar[i] = -1;
    CHECK_MPI(MPI_Alltoallv(as, sc, sd, MPI_INT, ar, rc, rd, MPI_INT, comm));
    for (int q = 0; q < p; ++q) {
        for (int i = 0; i < rc[q]; ++i) CHECK(ar[rd[q] + i] == v(q * p + me, i), "alltoallv n=%d from %d [%d]", n, q, i);
        CHECK(ar[rd[q] + rc[q]] == -1, "alltoallv wrote into a gap");
    }
    /* In place: recvbuf holds what goes out, with the receive layout. */
    for (int q = 0; q < p; ++q)
        for (int i = 0; i < rc[q]; ++i) ar[rd[q] + i] = v(me * p + q, i) + 9;
    CHECK_MPI(MPI_Alltoallv(MPI_IN_PLACE, NULL, NULL, MPI_DATATYPE_NULL, ar, rc, rd, MPI_INT, comm));
    for (int q = 0; q < p; ++q)
        for (int i = 0; i < rc[q]; ++i)
            CHECK(ar[rd[q] + i] == v(q * p + me, i) + 9, "alltoallv in place n=%d from %d [%d]", n, q, i);
    free(s), free(r), free(vr), free(counts), free(displs), free(sc), free(sd), free(rc), free(rd);
    free(as), free(ar);
}

static void check_all(MPI_Comm comm, const int* sizes, int nsizes) {
    for (int k = 0; k < nsizes; ++k) {
        const int n = sizes[k];
        CHECK_MPI(MPI_Barrier(comm));
        check_bcast(comm, n);
        check_reduce(comm, n);
        check_reduce_scatter(comm, n);
        check_gather_scatter(comm, n);
        check_allgather_alltoall(comm, n);
    }
}

#endif
