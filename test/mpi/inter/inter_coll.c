/* SPDX-License-Identifier: MIT */
/* Every collective on an intercommunicator of two uneven groups, in its
 * blocking, nonblocking and persistent forms (the persistent one started
 * twice), with the root in either group (MPI_ROOT / MPI_PROC_NULL / the
 * remote rank), against references computed here. */
#include "inter_common.h"

static MPI_Comm ic, local;
static int lr, ln, rn; /* my local rank, local and remote group sizes */

/* The value element i of world rank w contributes in test `salt`. */
static int val(int w, int i, int salt) { return w * 1000 + i * 7 + salt; }

/* Runs one collective in form f: 0 blocking, 1 nonblocking (+ wait),
 * 2 persistent (init, start + wait twice, free). */
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

/* root: local rank `r` of group A (rootgrp 0) or B (1) */
static int root_arg(int rootgrp, int r) {
    if ((rootgrp == 0) == in_a) return lr == r ? MPI_ROOT : MPI_PROC_NULL;
    return r;
}

static void barrier(int f) {
    FORMS(f, MPI_Barrier(ic), MPI_Ibarrier(ic, &rq_), MPI_Barrier_init(ic, MPI_INFO_NULL, &rq_));
}

static void bcast(int f, int rootgrp, int n) {
    const int r = (rootgrp == 0 ? k : np - k) - 1; /* the group's last rank */
    const int root = root_arg(rootgrp, r);
    const int rootw = rootgrp == 0 ? r : k + r;
    int* b = malloc(sizeof(int) * (size_t)n);
    for (int i = 0; i < n; ++i) b[i] = root == MPI_ROOT ? val(me, i, f) : -1;
    FORMS(f, MPI_Bcast(b, n, MPI_INT, root, ic), MPI_Ibcast(b, n, MPI_INT, root, ic, &rq_),
          MPI_Bcast_init(b, n, MPI_INT, root, ic, MPI_INFO_NULL, &rq_));
    for (int i = 0; i < n; ++i) {
        const int want = root == MPI_PROC_NULL ? -1 : val(rootw, i, f);
        CHECK(b[i] == want, "bcast f%d grp%d n%d: [%d] = %d, want %d", f, rootgrp, n, i, b[i], want);
    }
    free(b);
}

/* Gather / Scatter with a noncontiguous send type (every other int). */
static void gather_scatter(int f, int rootgrp) {
    const int root = root_arg(rootgrp, 0);
    const int c = 3;
    MPI_Datatype every2;
    MPI_Type_vector(c, 1, 2, MPI_INT, &every2);
    MPI_Type_commit(&every2);
    int sb[6], rb[3 * 64 + 1];
    for (int i = 0; i < 6; ++i) sb[i] = i % 2 ? -5 : val(me, i / 2, f);
    for (int i = 0; i < 3 * 64 + 1; ++i) rb[i] = -1;
    FORMS(f, MPI_Gather(sb, 1, every2, rb, c, MPI_INT, root, ic),
          MPI_Igather(sb, 1, every2, rb, c, MPI_INT, root, ic, &rq_),
          MPI_Gather_init(sb, 1, every2, rb, c, MPI_INT, root, ic, MPI_INFO_NULL, &rq_));
    if (root == MPI_ROOT)
        for (int q = 0; q < rn; ++q)
            for (int i = 0; i < c; ++i)
                CHECK(rb[q * c + i] == val(remote_world(q), i, f), "gather f%d: from %d [%d] = %d", f, q,
                      i, rb[q * c + i]);
    else
        CHECK(rb[0] == -1, "gather: a non-root's recvbuf was written");
    CHECK(rb[3 * 64] == -1, "gather wrote past the end");
    /* scatter: root sends block q (c ints) to remote q; receivers take every other int */
    int all[3 * 64];
    for (int q = 0; q < rn && root == MPI_ROOT; ++q)
        for (int i = 0; i < c; ++i) all[q * c + i] = val(remote_world(q), i, 50 + f);
    int got[6];
    for (int i = 0; i < 6; ++i) got[i] = -9;
    FORMS(f, MPI_Scatter(all, c, MPI_INT, got, 1, every2, root, ic),
          MPI_Iscatter(all, c, MPI_INT, got, 1, every2, root, ic, &rq_),
          MPI_Scatter_init(all, c, MPI_INT, got, 1, every2, root, ic, MPI_INFO_NULL, &rq_));
    if (root != MPI_ROOT && root != MPI_PROC_NULL)
        for (int i = 0; i < 6; ++i) {
            const int want = i % 2 ? -9 : val(me, i / 2, 50 + f);
            CHECK(got[i] == want, "scatter f%d: [%d] = %d, want %d", f, i, got[i], want);
        }
    MPI_Type_free(&every2);
}

/* Gatherv / Scatterv: remote rank q has q + 1 ints, placed with gaps. */
static void gatherv_scatterv(int f, int rootgrp) {
    const int root = root_arg(rootgrp, 0);
    int counts[64], displs[64], total = 0;
    for (int q = 0; q < rn; ++q) counts[q] = q + 1, displs[q] = total + q, total += q + 1 + q;
    int sb[64], rb[64 * 130];
    for (int i = 0; i < lr + 1; ++i) sb[i] = val(me, i, 10 + f);
    for (int i = 0; i < total + 1; ++i) rb[i] = -1;
    FORMS(f, MPI_Gatherv(sb, lr + 1, MPI_INT, rb, counts, displs, MPI_INT, root, ic),
          MPI_Igatherv(sb, lr + 1, MPI_INT, rb, counts, displs, MPI_INT, root, ic, &rq_),
          MPI_Gatherv_init(sb, lr + 1, MPI_INT, rb, counts, displs, MPI_INT, root, ic, MPI_INFO_NULL, &rq_));
    if (root == MPI_ROOT)
        for (int q = 0; q < rn; ++q) {
            for (int i = 0; i < counts[q]; ++i)
                CHECK(rb[displs[q] + i] == val(remote_world(q), i, 10 + f), "gatherv f%d q%d [%d]", f, q, i);
            if (q > 0) CHECK(rb[displs[q] - 1] == -1, "gatherv wrote a gap");
        }
    int all[64 * 130], got[65];
    for (int q = 0; q < rn && root == MPI_ROOT; ++q)
        for (int i = 0; i < counts[q]; ++i) all[displs[q] + i] = val(remote_world(q), i, 20 + f);
    for (int i = 0; i < 65; ++i) got[i] = -1;
    FORMS(f, MPI_Scatterv(all, counts, displs, MPI_INT, got, lr + 1, MPI_INT, root, ic),
          MPI_Iscatterv(all, counts, displs, MPI_INT, got, lr + 1, MPI_INT, root, ic, &rq_),
          MPI_Scatterv_init(all, counts, displs, MPI_INT, got, lr + 1, MPI_INT, root, ic, MPI_INFO_NULL, &rq_));
    if (root != MPI_ROOT && root != MPI_PROC_NULL) {
        for (int i = 0; i < lr + 1; ++i) CHECK(got[i] == val(me, i, 20 + f), "scatterv f%d [%d]", f, i);
        CHECK(got[lr + 1] == -1, "scatterv wrote past its count");
    }
}

/* Allgather(v): A sends 2 ints each, B 3; each receives the other group's. */
static void allgathers(int f) {
    const int mine = in_a ? 2 : 3, theirs = in_a ? 3 : 2;
    int sb[3], rb[3 * 64 + 1];
    for (int i = 0; i < mine; ++i) sb[i] = val(me, i, 30 + f);
    for (int i = 0; i < 3 * 64 + 1; ++i) rb[i] = -1;
    FORMS(f, MPI_Allgather(sb, mine, MPI_INT, rb, theirs, MPI_INT, ic),
          MPI_Iallgather(sb, mine, MPI_INT, rb, theirs, MPI_INT, ic, &rq_),
          MPI_Allgather_init(sb, mine, MPI_INT, rb, theirs, MPI_INT, ic, MPI_INFO_NULL, &rq_));
    for (int q = 0; q < rn; ++q)
        for (int i = 0; i < theirs; ++i)
            CHECK(rb[q * theirs + i] == val(remote_world(q), i, 30 + f), "allgather f%d q%d [%d] = %d", f, q, i,
                  rb[q * theirs + i]);
    CHECK(rb[rn * theirs] == -1, "allgather wrote past the end");
    /* v: remote q sends q % 3 + 1 ints, stored backwards */
    int counts[64], displs[64], total = 0;
    for (int q = 0; q < rn; ++q) counts[q] = q % 3 + 1, total += counts[q];
    for (int q = rn - 1, at = 0; q >= 0; --q) displs[q] = at, at += counts[q];
    const int sendn = lr % 3 + 1;
    for (int i = 0; i < sendn; ++i) sb[i] = val(me, i, 40 + f);
    for (int i = 0; i < total; ++i) rb[i] = -1;
    FORMS(f, MPI_Allgatherv(sb, sendn, MPI_INT, rb, counts, displs, MPI_INT, ic),
          MPI_Iallgatherv(sb, sendn, MPI_INT, rb, counts, displs, MPI_INT, ic, &rq_),
          MPI_Allgatherv_init(sb, sendn, MPI_INT, rb, counts, displs, MPI_INT, ic, MPI_INFO_NULL, &rq_));
    for (int q = 0; q < rn; ++q)
        for (int i = 0; i < counts[q]; ++i)
            CHECK(rb[displs[q] + i] == val(remote_world(q), i, 40 + f), "allgatherv f%d q%d [%d]", f, q, i);
}

/* Alltoall(v,w): local rank i sends remote rank j the values v(i, j, e). */
static int a2a(int from_world, int to_world, int e, int salt) { return from_world * 100000 + to_world * 100 + e + salt; }

static void alltoalls(int f) {
    int sb[64 * 4], rb[64 * 4 + 1];
    for (int q = 0; q < rn; ++q)
        for (int e = 0; e < 2; ++e) sb[q * 2 + e] = a2a(me, remote_world(q), e, f);
    for (int i = 0; i < 64 * 4 + 1; ++i) rb[i] = -1;
    FORMS(f, MPI_Alltoall(sb, 2, MPI_INT, rb, 2, MPI_INT, ic),
          MPI_Ialltoall(sb, 2, MPI_INT, rb, 2, MPI_INT, ic, &rq_),
          MPI_Alltoall_init(sb, 2, MPI_INT, rb, 2, MPI_INT, ic, MPI_INFO_NULL, &rq_));
    for (int q = 0; q < rn; ++q)
        for (int e = 0; e < 2; ++e)
            CHECK(rb[q * 2 + e] == a2a(remote_world(q), me, e, f), "alltoall f%d q%d e%d = %d", f, q, e, rb[q * 2 + e]);
    CHECK(rb[rn * 2] == -1, "alltoall wrote past the end");
    /* v: world rank a sends world rank b (a + b) % 3 ints */
    int sc[64], sd[64], rc[64], rd[64], st = 0, rt = 0;
    for (int q = 0; q < rn; ++q) {
        sc[q] = (me + remote_world(q)) % 3, sd[q] = st, st += sc[q] + 1;
        rc[q] = sc[q], rd[q] = rt, rt += rc[q];
        for (int e = 0; e < sc[q]; ++e) sb[sd[q] + e] = a2a(me, remote_world(q), e, 10 + f);
    }
    for (int i = 0; i < rt; ++i) rb[i] = -1;
    FORMS(f, MPI_Alltoallv(sb, sc, sd, MPI_INT, rb, rc, rd, MPI_INT, ic),
          MPI_Ialltoallv(sb, sc, sd, MPI_INT, rb, rc, rd, MPI_INT, ic, &rq_),
          MPI_Alltoallv_init(sb, sc, sd, MPI_INT, rb, rc, rd, MPI_INT, ic, MPI_INFO_NULL, &rq_));
    for (int q = 0; q < rn; ++q)
        for (int e = 0; e < rc[q]; ++e)
            CHECK(rb[rd[q] + e] == a2a(remote_world(q), me, e, 10 + f), "alltoallv f%d q%d e%d", f, q, e);
    /* w: the same counts, byte displacements, MPI_INT and a contiguous type of one int in turn */
    MPI_Datatype one;
    MPI_Type_contiguous(1, MPI_INT, &one);
    MPI_Type_commit(&one);
    MPI_Datatype sty[64], rty[64];
    int sdb[64], rdb[64];
    for (int q = 0; q < rn; ++q) {
        sty[q] = q % 2 ? one : MPI_INT, rty[q] = q % 2 ? MPI_INT : one;
        sdb[q] = sd[q] * (int)sizeof(int), rdb[q] = rd[q] * (int)sizeof(int);
        for (int e = 0; e < sc[q]; ++e) sb[sd[q] + e] = a2a(me, remote_world(q), e, 20 + f);
    }
    for (int i = 0; i < rt; ++i) rb[i] = -1;
    FORMS(f, MPI_Alltoallw(sb, sc, sdb, sty, rb, rc, rdb, rty, ic),
          MPI_Ialltoallw(sb, sc, sdb, sty, rb, rc, rdb, rty, ic, &rq_),
          MPI_Alltoallw_init(sb, sc, sdb, sty, rb, rc, rdb, rty, ic, MPI_INFO_NULL, &rq_));
    for (int q = 0; q < rn; ++q)
        for (int e = 0; e < rc[q]; ++e)
            CHECK(rb[rd[q] + e] == a2a(remote_world(q), me, e, 20 + f), "alltoallw f%d q%d e%d", f, q, e);
    MPI_Type_free(&one);
}

static void reductions(int f, int rootgrp) {
    const int n = 5;
    int sb[5], rb[5], want[5];
    for (int i = 0; i < n; ++i) sb[i] = val(me, i, 60 + f), rb[i] = -1;
    /* the sum and max over the remote group */
    const int root = root_arg(rootgrp, 0);
    FORMS(f, MPI_Reduce(sb, rb, n, MPI_INT, MPI_SUM, root, ic),
          MPI_Ireduce(sb, rb, n, MPI_INT, MPI_SUM, root, ic, &rq_),
          MPI_Reduce_init(sb, rb, n, MPI_INT, MPI_SUM, root, ic, MPI_INFO_NULL, &rq_));
    for (int i = 0; i < n; ++i) {
        want[i] = 0;
        for (int q = 0; q < rn; ++q) want[i] += val(remote_world(q), i, 60 + f);
    }
    for (int i = 0; i < n; ++i)
        CHECK(rb[i] == (root == MPI_ROOT ? want[i] : -1), "reduce f%d [%d] = %d, want %d", f, i, rb[i],
              root == MPI_ROOT ? want[i] : -1);
    for (int i = 0; i < n; ++i) rb[i] = -1;
    FORMS(f, MPI_Allreduce(sb, rb, n, MPI_INT, MPI_MAX, ic),
          MPI_Iallreduce(sb, rb, n, MPI_INT, MPI_MAX, ic, &rq_),
          MPI_Allreduce_init(sb, rb, n, MPI_INT, MPI_MAX, ic, MPI_INFO_NULL, &rq_));
    for (int i = 0; i < n; ++i)
        CHECK(rb[i] == val(remote_world(rn - 1), i, 60 + f), "allreduce max f%d [%d] = %d", f, i, rb[i]);
}

/* Reduce_scatter: 12 * kA * kB elements in all, split differently in each group. */
static void reduce_scatters(int f) {
    const int total = 12 * k * (np - k);
    int counts[64], first = 0, sum = 0;
    for (int i = 0; i < ln; ++i) counts[i] = total / ln + (i < total % ln ? 1 : 0);
    for (int i = 0; i < lr; ++i) first += counts[i];
    int* sb = malloc(sizeof(int) * (size_t)total);
    static int rb[12 * 64 * 64 + 1];
    for (int i = 0; i < total; ++i) sb[i] = val(me, i, 70 + f);
    for (int i = 0; i <= counts[lr]; ++i) rb[i] = -1;
    FORMS(f, MPI_Reduce_scatter(sb, rb, counts, MPI_INT, MPI_SUM, ic),
          MPI_Ireduce_scatter(sb, rb, counts, MPI_INT, MPI_SUM, ic, &rq_),
          MPI_Reduce_scatter_init(sb, rb, counts, MPI_INT, MPI_SUM, ic, MPI_INFO_NULL, &rq_));
    for (int i = 0; i < counts[lr]; ++i) {
        sum = 0;
        for (int q = 0; q < rn; ++q) sum += val(remote_world(q), first + i, 70 + f);
        CHECK(rb[i] == sum, "reduce_scatter f%d [%d] = %d, want %d", f, i, rb[i], sum);
    }
    CHECK(rb[counts[lr]] == -1, "reduce_scatter wrote past its count");
    /* block: recvcount * local size = total in both groups */
    const int rc = total / ln;
    FORMS(f, MPI_Reduce_scatter_block(sb, rb, rc, MPI_INT, MPI_SUM, ic),
          MPI_Ireduce_scatter_block(sb, rb, rc, MPI_INT, MPI_SUM, ic, &rq_),
          MPI_Reduce_scatter_block_init(sb, rb, rc, MPI_INT, MPI_SUM, ic, MPI_INFO_NULL, &rq_));
    for (int i = 0; i < rc; ++i) {
        sum = 0;
        for (int q = 0; q < rn; ++q) sum += val(remote_world(q), lr * rc + i, 70 + f);
        CHECK(rb[i] == sum, "reduce_scatter_block f%d [%d] = %d, want %d", f, i, rb[i], sum);
    }
    free(sb);
}

int main(int argc, char** argv) {
    mt_init(&argc, &argv);
    inter_setup();
    CHECK(np <= 64, "at most 64 ranks");
    ic = make_inter(&local, 21);
    MPI_Comm_rank(ic, &lr);
    MPI_Comm_size(ic, &ln);
    MPI_Comm_remote_size(ic, &rn);
    for (int f = 0; f < 3; ++f) {
        barrier(f);
        for (int g = 0; g < 2; ++g) {
            bcast(f, g, 5);
            gather_scatter(f, g);
            gatherv_scatterv(f, g);
            reductions(f, g);
        }
        bcast(f, 1, 100000); /* rendezvous-sized */
        allgathers(f);
        alltoalls(f);
        reduce_scatters(f);
    }
    /* many outstanding at once, completed in reverse order */
    enum { N = 16 };
    MPI_Request rq[N];
    int bufs[N][4];
    for (int j = 0; j < N; ++j) {
        for (int i = 0; i < 4; ++i) bufs[j][i] = val(me, i, j);
        CHECK_MPI(MPI_Iallreduce(bufs[j], bufs[j] + 2, 2, MPI_INT, MPI_SUM, ic, &rq[j]));
    }
    for (int j = N - 1; j >= 0; --j) CHECK_MPI(MPI_Wait(&rq[j], MPI_STATUS_IGNORE));
    for (int j = 0; j < N; ++j)
        for (int i = 0; i < 2; ++i) {
            int want = 0;
            for (int q = 0; q < rn; ++q) want += val(remote_world(q), i, j);
            CHECK(bufs[j][2 + i] == want, "outstanding iallreduce %d [%d] = %d, want %d", j, i, bufs[j][2 + i], want);
        }
    MPI_Comm_free(&ic);
    MPI_Comm_free(&local);
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == 0) printf("inter_coll: ok\n");
    MPI_Finalize();
    return 0;
}
