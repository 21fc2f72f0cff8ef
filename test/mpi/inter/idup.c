/* SPDX-License-Identifier: MIT */
/* MPI_Comm_idup(_with_info): 16 outstanding at once on world, blocking
 * dups and splits made while they run (their agreements race), completed
 * in reverse order; every new communicator usable, isolated from the
 * others, with the parent's attributes and topology; on an
 * intercommunicator too. */
#include "inter_common.h"

enum { N = 16 };

static int copied = 0;
static int copy_fn(MPI_Comm c, int kv, void* extra, void* in, void* out, int* flag) {
    (void)c, (void)kv, (void)extra;
    *(void**)out = in;
    *flag = 1;
    ++copied;
    return MPI_SUCCESS;
}

static void check_comm(MPI_Comm c, MPI_Comm parent, int tag) {
    int r, sz, pr, psz, res;
    MPI_Comm_rank(c, &r);
    MPI_Comm_size(c, &sz);
    MPI_Comm_rank(parent, &pr);
    MPI_Comm_size(parent, &psz);
    CHECK(r == pr && sz == psz, "idup: rank %d size %d, parent %d %d", r, sz, pr, psz);
    CHECK_MPI(MPI_Comm_compare(c, parent, &res));
    CHECK(res == MPI_CONGRUENT, "idup: compare = %d", res);
    int inter = 0;
    MPI_Comm_test_inter(c, &inter);
    if (!inter) {
        int sum = 0;
        CHECK_MPI(MPI_Allreduce(&me, &sum, 1, MPI_INT, MPI_SUM, c));
        int want = 0;
        MPI_Allreduce(&me, &want, 1, MPI_INT, MPI_SUM, parent);
        CHECK(sum == want, "idup: allreduce %d want %d", sum, want);
    }
    /* isolation (intracommunicators): the same tag on parent and c, received
     * in the other order */
    int rsz = sz;
    if (inter) MPI_Comm_remote_size(c, &rsz);
    const int to = (r + 1) % rsz, from = inter ? (r + rsz - 1) % rsz : (r + sz - 1) % sz;
    int a = 1000 + me, b = 2000 + me, x = -1, y = -1;
    MPI_Request q[2];
    if (!inter) {
        CHECK_MPI(MPI_Isend(&a, 1, MPI_INT, to, tag, parent, &q[0]));
        CHECK_MPI(MPI_Isend(&b, 1, MPI_INT, to, tag, c, &q[1]));
        CHECK_MPI(MPI_Recv(&y, 1, MPI_INT, from, tag, c, MPI_STATUS_IGNORE));
        CHECK_MPI(MPI_Recv(&x, 1, MPI_INT, from, tag, parent, MPI_STATUS_IGNORE));
        CHECK_MPI(MPI_Waitall(2, q, MPI_STATUSES_IGNORE));
        int fw;
        MPI_Group g, wg;
        MPI_Comm_group(c, &g);
        MPI_Comm_group(MPI_COMM_WORLD, &wg);
        MPI_Group_translate_ranks(g, 1, &from, wg, &fw);
        CHECK(x == 1000 + fw && y == 2000 + fw, "idup isolation: %d %d from %d", x, y, fw);
        MPI_Group_free(&g);
        MPI_Group_free(&wg);
    }
}

int main(int argc, char** argv) {
    mt_init(&argc, &argv);
    inter_setup();
    int kv;
    MPI_Comm_create_keyval(copy_fn, MPI_COMM_NULL_DELETE_FN, &kv, NULL);
    MPI_Comm_set_attr(MPI_COMM_WORLD, kv, &kv);

    MPI_Comm dup[N], extra[N];
    MPI_Request rq[N];
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "mpi_assert_no_any_tag", "true");
    for (int j = 0; j < N; ++j) {
        if (j % 2)
            CHECK_MPI(MPI_Comm_idup_with_info(MPI_COMM_WORLD, info, &dup[j], &rq[j]));
        else
            CHECK_MPI(MPI_Comm_idup(MPI_COMM_WORLD, &dup[j], &rq[j]));
        /* blocking creations while they run: their agreements race */
        if (j % 3 == 0)
            CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &extra[j]));
        else
            CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, me % 2, me, &extra[j]));
    }
    CHECK(copied == N + N / 3 + 1, "attribute copies: %d", copied);
    /* overlap: poll the last one with MPI_Test before waiting for the rest backwards */
    int done = 0;
    for (int spin = 0; spin < 1000000 && !done; ++spin) CHECK_MPI(MPI_Test(&rq[N - 1], &done, MPI_STATUS_IGNORE));
    for (int j = N - 1; j >= 0; --j) CHECK_MPI(MPI_Wait(&rq[j], MPI_STATUS_IGNORE));
    for (int j = 0; j < N; ++j) {
        check_comm(dup[j], MPI_COMM_WORLD, j);
        void* v = NULL;
        int flag = 0;
        MPI_Comm_get_attr(dup[j], kv, &v, &flag);
        CHECK(flag && v == &kv, "idup %d: attribute not copied", j);
    }
    for (int j = 0; j < N; ++j) {
        int sum = 0;
        CHECK_MPI(MPI_Allreduce(&me, &sum, 1, MPI_INT, MPI_SUM, extra[j]));
        MPI_Comm_free(&extra[j]);
        MPI_Comm_free(&dup[j]);
    }
    MPI_Info_free(&info);

    /* a Cartesian communicator: the idup keeps the topology */
    int dims[1] = {np}, periods[1] = {1}, st, src, dst;
    MPI_Comm cart, cdup;
    MPI_Request r1;
    CHECK_MPI(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &cart));
    CHECK_MPI(MPI_Comm_idup(cart, &cdup, &r1));
    CHECK_MPI(MPI_Wait(&r1, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_Topo_test(cdup, &st));
    CHECK(st == MPI_CART, "idup of a Cartesian communicator: %d", st);
    CHECK_MPI(MPI_Cart_shift(cdup, 0, 1, &src, &dst));
    CHECK(dst == (me + 1) % np && src == (me + np - 1) % np, "idup cart shift");
    MPI_Comm_free(&cdup);
    MPI_Comm_free(&cart);

    /* an intercommunicator: two idups outstanding, then traffic on both */
    MPI_Comm local, ic, id[2];
    MPI_Request ir[2];
    ic = make_inter(&local, 31);
    CHECK_MPI(MPI_Comm_idup(ic, &id[0], &ir[0]));
    CHECK_MPI(MPI_Comm_idup(ic, &id[1], &ir[1]));
    CHECK_MPI(MPI_Waitall(2, ir, MPI_STATUSES_IGNORE));
    for (int j = 0; j < 2; ++j) {
        check_comm(id[j], ic, 40 + j);
        int lr, sum = 0, want = 0;
        MPI_Comm_rank(id[j], &lr);
        CHECK_MPI(MPI_Allreduce(&me, &sum, 1, MPI_INT, MPI_SUM, id[j]));
        for (int q = 0; q < remote_n(); ++q) want += remote_world(q);
        CHECK(sum == want, "inter idup %d: allreduce %d, want %d", j, sum, want);
        if (lr == 0) {
            int v = -1;
            CHECK_MPI(MPI_Sendrecv(&me, 1, MPI_INT, 0, 5, &v, 1, MPI_INT, 0, 5, id[j], MPI_STATUS_IGNORE));
            CHECK(v == remote_world(0), "inter idup %d: message %d", j, v);
        }
        MPI_Comm_free(&id[j]);
    }
    MPI_Comm_free(&ic);
    MPI_Comm_free(&local);
    MPI_Comm_delete_attr(MPI_COMM_WORLD, kv);
    MPI_Comm_free_keyval(&kv);
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == 0) printf("idup: ok\n");
    MPI_Finalize();
    return 0;
}
