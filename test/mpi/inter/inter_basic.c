/* SPDX-License-Identifier: MIT */
/* Intercommunicators against references computed here: creation (from
 * communicators and from groups), queries, point-to-point with remote ranks
 * (statuses name the remote rank; rendezvous sizes; probes; MPI_PROC_NULL),
 * merge in every order of `high`, dup (isolated traffic, attributes),
 * split and create, free with a receive pending, and MPI_Comm_create_group. */
#include "inter_common.h"

static void check_groups(MPI_Comm ic, int lsize, const int* lworld, int rsize, const int* rworld) {
    int flag, sz, rsz, r;
    CHECK_MPI(MPI_Comm_test_inter(ic, &flag));
    CHECK(flag, "test_inter false");
    CHECK_MPI(MPI_Comm_size(ic, &sz));
    CHECK_MPI(MPI_Comm_remote_size(ic, &rsz));
    CHECK(sz == lsize && rsz == rsize, "sizes %d/%d, want %d/%d", sz, rsz, lsize, rsize);
    MPI_Group wg, lg, rg;
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    CHECK_MPI(MPI_Comm_group(ic, &lg));
    CHECK_MPI(MPI_Comm_remote_group(ic, &rg));
    int ranks[64], out[64];
    for (int i = 0; i < 64; ++i) ranks[i] = i;
    CHECK_MPI(MPI_Group_translate_ranks(lg, lsize, ranks, wg, out));
    for (int i = 0; i < lsize; ++i) CHECK(out[i] == lworld[i], "local %d is world %d, want %d", i, out[i], lworld[i]);
    CHECK_MPI(MPI_Group_translate_ranks(rg, rsize, ranks, wg, out));
    for (int i = 0; i < rsize; ++i) CHECK(out[i] == rworld[i], "remote %d is world %d, want %d", i, out[i], rworld[i]);
    CHECK_MPI(MPI_Comm_rank(ic, &r));
    CHECK(lworld[r] == me, "my rank %d is world %d", r, lworld[r]);
    MPI_Group_free(&wg);
    MPI_Group_free(&lg);
    MPI_Group_free(&rg);
}

/* Every process sends its world rank to every remote process, and receives
 * one from each: by rank, then with MPI_ANY_SOURCE (the status names the
 * remote rank). */
static void all_pairs(MPI_Comm ic, int tag) {
    int rsz, r, lr;
    MPI_Comm_remote_size(ic, &rsz);
    MPI_Comm_rank(ic, &lr);
    MPI_Group wg, rg;
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    MPI_Comm_remote_group(ic, &rg);
    int idx[64], world[64];
    for (int i = 0; i < rsz; ++i) idx[i] = i;
    MPI_Group_translate_ranks(rg, rsz, idx, wg, world);
    MPI_Request rq[128];
    int got[64];
    for (r = 0; r < rsz; ++r) CHECK_MPI(MPI_Irecv(&got[r], 1, MPI_INT, r, tag, ic, &rq[r]));
    for (r = 0; r < rsz; ++r) CHECK_MPI(MPI_Isend(&me, 1, MPI_INT, r, tag, ic, &rq[rsz + r]));
    CHECK_MPI(MPI_Waitall(2 * rsz, rq, MPI_STATUSES_IGNORE));
    for (r = 0; r < rsz; ++r) CHECK(got[r] == world[r], "from remote %d: %d, want %d", r, got[r], world[r]);
    /* again, received with MPI_ANY_SOURCE; synchronous sends */
    for (r = 0; r < rsz; ++r) CHECK_MPI(MPI_Issend(&me, 1, MPI_INT, r, tag + 1, ic, &rq[r]));
    for (r = 0; r < rsz; ++r) {
        MPI_Status st;
        int v = -1;
        CHECK_MPI(MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, tag + 1, ic, &st));
        CHECK(st.MPI_SOURCE >= 0 && st.MPI_SOURCE < rsz && v == world[st.MPI_SOURCE],
              "ANY_SOURCE: %d from %d", v, st.MPI_SOURCE);
    }
    CHECK_MPI(MPI_Waitall(rsz, rq, MPI_STATUSES_IGNORE));
    MPI_Group_free(&wg);
    MPI_Group_free(&rg);
}

static void basics(void) {
    MPI_Comm local, ic;
    ic = make_inter(&local, 7);
    int lw[64], rw[64];
    for (int i = 0; i < local_n(); ++i) lw[i] = local_world(i);
    for (int i = 0; i < remote_n(); ++i) rw[i] = remote_world(i);
    check_groups(ic, local_n(), lw, remote_n(), rw);
    all_pairs(ic, 10);
    int lr;
    MPI_Comm_rank(ic, &lr);
    /* a large message (rendezvous) from each local rank 0 to remote rank 0,
     * probed first; MPI_PROC_NULL */
    if (lr == 0) {
        const int n = 300000;
        int* big = malloc(sizeof(int) * (size_t)n);
        int* in = malloc(sizeof(int) * (size_t)n);
        for (int i = 0; i < n; ++i) big[i] = me * 1000003 + i;
        MPI_Request sr;
        CHECK_MPI(MPI_Isend(big, n, MPI_INT, 0, 20, ic, &sr));
        MPI_Status st;
        CHECK_MPI(MPI_Probe(MPI_ANY_SOURCE, 20, ic, &st));
        int cnt;
        MPI_Get_count(&st, MPI_INT, &cnt);
        CHECK(st.MPI_SOURCE == 0 && cnt == n, "probe: source %d count %d", st.MPI_SOURCE, cnt);
        CHECK_MPI(MPI_Recv(in, n, MPI_INT, 0, 20, ic, &st));
        const int from = remote_world(0);
        for (int i = 0; i < n; ++i) CHECK(in[i] == from * 1000003 + i, "big[%d]", i);
        CHECK_MPI(MPI_Wait(&sr, MPI_STATUS_IGNORE));
        free(big);
        free(in);
    }
    MPI_Status st;
    CHECK_MPI(MPI_Sendrecv(&me, 1, MPI_INT, MPI_PROC_NULL, 1, &lr, 1, MPI_INT, MPI_PROC_NULL, 1, ic, &st));
    CHECK(st.MPI_SOURCE == MPI_PROC_NULL, "PROC_NULL status");
    /* compare */
    int res;
    MPI_Comm dup;
    CHECK_MPI(MPI_Comm_dup(ic, &dup));
    CHECK_MPI(MPI_Comm_compare(ic, dup, &res));
    CHECK(res == MPI_CONGRUENT, "compare(ic, dup) = %d", res);
    CHECK_MPI(MPI_Comm_compare(ic, ic, &res));
    CHECK(res == MPI_IDENT, "compare(ic, ic) = %d", res);
    CHECK_MPI(MPI_Comm_compare(ic, local, &res));
    CHECK(res == MPI_UNEQUAL, "compare(ic, local) = %d", res);
    check_groups(dup, local_n(), lw, remote_n(), rw);
    /* the dup's traffic is its own: same tag on both, received in the other order */
    if (lr == 0) {
        int a = 1, b = 2, x = 0, y = 0;
        MPI_Request q[2];
        CHECK_MPI(MPI_Isend(&a, 1, MPI_INT, 0, 3, ic, &q[0]));
        CHECK_MPI(MPI_Isend(&b, 1, MPI_INT, 0, 3, dup, &q[1]));
        CHECK_MPI(MPI_Recv(&y, 1, MPI_INT, 0, 3, dup, MPI_STATUS_IGNORE));
        CHECK_MPI(MPI_Recv(&x, 1, MPI_INT, 0, 3, ic, MPI_STATUS_IGNORE));
        CHECK(x == 1 && y == 2, "dup isolation: %d %d", x, y);
        CHECK_MPI(MPI_Waitall(2, q, MPI_STATUSES_IGNORE));
    }
    all_pairs(dup, 30);
    /* a dup freed with a receive pending keeps its context ids until the
     * receive is done: a new dup's messages must not land there */
    int pend = -1;
    MPI_Request pr;
    CHECK_MPI(MPI_Irecv(&pend, 1, MPI_INT, 0, 40, dup, &pr));
    CHECK_MPI(MPI_Comm_free(&dup));
    MPI_Comm d2;
    CHECK_MPI(MPI_Comm_dup(ic, &d2));
    if (lr == 0) {
        MPI_Request sq[64];
        int rsz;
        MPI_Comm_remote_size(ic, &rsz);
        for (int r = 0; r < rsz; ++r) CHECK_MPI(MPI_Isend(&me, 1, MPI_INT, r, 40, d2, &sq[r]));
        CHECK_MPI(MPI_Waitall(rsz, sq, MPI_STATUSES_IGNORE));
    }
    int v = -1;
    CHECK_MPI(MPI_Recv(&v, 1, MPI_INT, 0, 40, d2, MPI_STATUS_IGNORE));
    CHECK(v == remote_world(0), "d2 message %d", v);
    CHECK_MPI(MPI_Cancel(&pr));
    CHECK_MPI(MPI_Wait(&pr, &st));
    int cancelled = 0;
    MPI_Test_cancelled(&st, &cancelled);
    CHECK(cancelled && pend == -1, "pending receive of a freed dup: cancelled %d value %d", cancelled, pend);
    CHECK_MPI(MPI_Comm_free(&d2));
    CHECK_MPI(MPI_Comm_free(&ic));
    CHECK_MPI(MPI_Comm_free(&local));
}

/* The pending receive of a freed intercommunicator completes when the
 * remote side sends on its (still live) handle. */
static void free_pending(void) {
    MPI_Comm local, ic;
    ic = make_inter(&local, 8);
    int lr, v = -1;
    MPI_Comm_rank(ic, &lr);
    MPI_Request rq;
    if (in_a && lr == 0) {
        CHECK_MPI(MPI_Irecv(&v, 1, MPI_INT, 0, 50, ic, &rq));
        CHECK_MPI(MPI_Comm_free(&ic));
        MPI_Comm extra;
        CHECK_MPI(MPI_Comm_dup(local, &extra)); /* creations go on meanwhile */
        CHECK_MPI(MPI_Comm_free(&extra));
        CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
        CHECK_MPI(MPI_Wait(&rq, MPI_STATUS_IGNORE));
        CHECK(v == k, "message to a freed intercommunicator: %d", v);
    } else {
        MPI_Comm extra;
        if (in_a) {
            CHECK_MPI(MPI_Comm_dup(local, &extra));
            CHECK_MPI(MPI_Comm_free(&extra));
        }
        CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
        if (!in_a && lr == 0) CHECK_MPI(MPI_Send(&me, 1, MPI_INT, 0, 50, ic));
        CHECK_MPI(MPI_Comm_free(&ic));
    }
    CHECK_MPI(MPI_Comm_free(&local));
}

static void merge(void) {
    MPI_Comm local, ic, m;
    ic = make_inter(&local, 9);
    int lr, r, sz;
    MPI_Comm_rank(ic, &lr);
    /* high: A false, B true -> A first; reversed -> B first; equal -> the
     * group with the lowest world rank (A) first */
    for (int v = 0; v < 4; ++v) {
        const int high = v == 0 ? !in_a : v == 1 ? in_a : v == 2 ? 0 : 1;
        CHECK_MPI(MPI_Intercomm_merge(ic, high, &m));
        CHECK_MPI(MPI_Comm_rank(m, &r));
        CHECK_MPI(MPI_Comm_size(m, &sz));
        const int a_first = v != 1;
        const int want = (in_a == a_first) ? lr : (in_a ? np - k : k) + lr;
        CHECK(sz == np && r == want, "merge v%d: rank %d size %d, want %d", v, r, sz, want);
        int flag;
        MPI_Comm_test_inter(m, &flag);
        CHECK(!flag, "merged is intra");
        int sum = 0;
        CHECK_MPI(MPI_Allreduce(&me, &sum, 1, MPI_INT, MPI_SUM, m));
        CHECK(sum == np * (np - 1) / 2, "allreduce on merged: %d", sum);
        /* rank order: gather world ranks by merged rank */
        int w[64];
        CHECK_MPI(MPI_Allgather(&me, 1, MPI_INT, w, 1, MPI_INT, m));
        for (int i = 0; i < np; ++i) {
            const int wi = a_first ? i : (i < np - k ? k + i : i - (np - k));
            CHECK(w[i] == wi, "merge v%d: merged rank %d is world %d, want %d", v, i, w[i], wi);
        }
        CHECK_MPI(MPI_Comm_free(&m));
    }
    CHECK_MPI(MPI_Comm_free(&ic));
    CHECK_MPI(MPI_Comm_free(&local));
}

/* 0, 1, ..., 63 */
static const int* lw_all(void) {
    static int all[64];
    for (int i = 0; i < 64; ++i) all[i] = i;
    return all;
}

static void split_create(void) {
    MPI_Comm local, ic, s;
    ic = make_inter(&local, 11);
    int lr;
    MPI_Comm_rank(ic, &lr);
    /* split by parity of the local rank, keys reversed */
    CHECK_MPI(MPI_Comm_split(ic, lr % 2, -lr, &s));
    int lw[64], rw[64], nl = 0, nr = 0;
    for (int i = local_n() - 1; i >= 0; --i)
        if (i % 2 == lr % 2) lw[nl++] = local_world(i);
    for (int i = remote_n() - 1; i >= 0; --i)
        if (i % 2 == lr % 2) rw[nr++] = remote_world(i);
    if (nr == 0) {
        CHECK(s == MPI_COMM_NULL, "split: no remote process of my color, yet a communicator");
    } else {
        CHECK(s != MPI_COMM_NULL, "split: null");
        check_groups(s, nl, lw, nr, rw);
        all_pairs(s, 60);
        CHECK_MPI(MPI_Comm_free(&s));
    }
    /* MPI_UNDEFINED on group A: all get MPI_COMM_NULL */
    CHECK_MPI(MPI_Comm_split(ic, in_a ? MPI_UNDEFINED : 0, 0, &s));
    CHECK(s == MPI_COMM_NULL, "split with A undefined");
    /* create: A without its rank 0 (when it has more than one), B whole */
    MPI_Group lg, sub;
    MPI_Comm_group(ic, &lg);
    int zero = 0;
    const int a_n = k > 1 ? k - 1 : 1;
    if (in_a && k > 1)
        MPI_Group_excl(lg, 1, &zero, &sub);
    else
        MPI_Group_incl(lg, local_n(), lw_all(), &sub);
    CHECK_MPI(MPI_Comm_create(ic, sub, &s));
    const int member = !(in_a && k > 1 && lr == 0);
    CHECK((s != MPI_COMM_NULL) == member, "create: membership");
    if (s != MPI_COMM_NULL) {
        int sz, rsz;
        MPI_Comm_size(s, &sz);
        MPI_Comm_remote_size(s, &rsz);
        CHECK(in_a ? (sz == a_n && rsz == np - k) : (sz == np - k && rsz == a_n),
              "create: sizes %d %d", sz, rsz);
        all_pairs(s, 70);
        CHECK_MPI(MPI_Comm_free(&s));
    }
    MPI_Group_free(&sub);
    MPI_Group_free(&lg);
    CHECK_MPI(MPI_Comm_free(&ic));
    CHECK_MPI(MPI_Comm_free(&local));
}

static void from_groups(void) {
    MPI_Group wg, a, b;
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    int ra[1][3] = {{0, k - 1, 1}}, rb[1][3] = {{k, np - 1, 1}};
    MPI_Group_range_incl(wg, 1, ra, &a);
    MPI_Group_range_incl(wg, 1, rb, &b);
    MPI_Comm ic;
    /* leaders: the last rank of each group */
    CHECK_MPI(MPI_Intercomm_create_from_groups(in_a ? a : b, local_n() - 1, in_a ? b : a, remote_n() - 1,
                                               "ch4lite inter_basic", MPI_INFO_NULL, MPI_ERRORS_RETURN,
                                               &ic));
    int lw[64], rw[64];
    for (int i = 0; i < local_n(); ++i) lw[i] = local_world(i);
    for (int i = 0; i < remote_n(); ++i) rw[i] = remote_world(i);
    check_groups(ic, local_n(), lw, remote_n(), rw);
    MPI_Errhandler eh;
    CHECK_MPI(MPI_Comm_get_errhandler(ic, &eh));
    CHECK(eh == MPI_ERRORS_RETURN, "from_groups: the error handler given");
    MPI_Errhandler_free(&eh);
    all_pairs(ic, 80);
    CHECK_MPI(MPI_Comm_free(&ic));
    MPI_Group_free(&a);
    MPI_Group_free(&b);
    MPI_Group_free(&wg);
}

static void create_group(void) {
    MPI_Group wg, g;
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    /* evens and odds at once, same tag; then everyone */
    int n = 0, ranks[64];
    for (int i = me % 2; i < np; i += 2) ranks[n++] = i;
    MPI_Group_incl(wg, n, ranks, &g);
    MPI_Comm c;
    CHECK_MPI(MPI_Comm_create_group(MPI_COMM_WORLD, g, 3, &c));
    int r, sz, sum = 0, want = 0;
    MPI_Comm_rank(c, &r);
    MPI_Comm_size(c, &sz);
    CHECK(sz == n && ranks[r] == me, "create_group: rank %d size %d", r, sz);
    for (int i = 0; i < n; ++i) want += ranks[i];
    CHECK_MPI(MPI_Allreduce(&me, &sum, 1, MPI_INT, MPI_SUM, c));
    CHECK(sum == want, "create_group allreduce %d want %d", sum, want);
    MPI_Comm_free(&c);
    MPI_Group_free(&g);
    /* reversed world order */
    for (int i = 0; i < np; ++i) ranks[i] = np - 1 - i;
    MPI_Group_incl(wg, np, ranks, &g);
    CHECK_MPI(MPI_Comm_create_group(MPI_COMM_WORLD, g, 4, &c));
    MPI_Comm_rank(c, &r);
    CHECK(r == np - 1 - me, "create_group reversed: rank %d", r);
    MPI_Comm_free(&c);
    MPI_Group_free(&g);
    /* MPI_GROUP_EMPTY: local, MPI_COMM_NULL */
    CHECK_MPI(MPI_Comm_create_group(MPI_COMM_WORLD, MPI_GROUP_EMPTY, 5, &c));
    CHECK(c == MPI_COMM_NULL, "empty group");
    MPI_Group_free(&wg);
}

int main(int argc, char** argv) {
    mt_init(&argc, &argv);
    inter_setup();
    CHECK(np <= 64, "at most 64 ranks");
    basics();
    free_pending();
    merge();
    split_create();
    from_groups();
    create_group();
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == 0) printf("inter_basic: ok\n");
    MPI_Finalize();
    return 0;
}
