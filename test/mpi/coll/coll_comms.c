/* SPDX-License-Identifier: MIT */
/* Every collective on communicators whose ranks are not the world's:
 * odd/even halves in reverse order (stride maps), a communicator created
 * from an irregular group without world rank 1 (lookup table), its dup
 * (shared table), and overlapping communicators used back to back, all
 * checked against sequential results. */
#include "collcheck.h"

int main(int argc, char** argv) {
    mt_init(&argc, &argv);
    int me, p;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    static const int sizes[] = {0, 1, 17, 3000, 30000};

    /* Halves, reverse order inside each. */
    MPI_Comm half;
    CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, me % 2, p - me, &half));
    int hr, hs;
    MPI_Comm_rank(half, &hr);
    MPI_Comm_size(half, &hs);
    CHECK(hs == (p + 1 - me % 2) / 2, "half size %d", hs);
    CHECK(hr == hs - 1 - me / 2, "half rank %d", hr);
    check_all(half, sizes, 5);

    /* An irregular group: world ranks p-1, 0, then 2, 3, ... (1 excluded). */
    MPI_Group world, g;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    int ranks[64], n = 0;
    ranks[n++] = p - 1;
    if (p - 1 != 0) ranks[n++] = 0;
    for (int r = 2; r < p - 1; ++r) ranks[n++] = r;
    CHECK_MPI(MPI_Group_incl(world, n, ranks, &g));
    MPI_Comm odd, odd2;
    CHECK_MPI(MPI_Comm_create(MPI_COMM_WORLD, g, &odd));
    if (me == 1 && p > 2) {
        CHECK(odd == MPI_COMM_NULL, "rank 1 is not in the group but got a communicator");
    } else {
        int r;
        MPI_Comm_rank(odd, &r);
        CHECK(ranks[r] == me, "created communicator: rank %d is world rank %d, not %d", r, ranks[r], me);
        CHECK_MPI(MPI_Comm_dup(odd, &odd2));
        check_all(odd, sizes, 5);
        /* Alternate between the dup and the original: no cross-matching. */
        for (int k = 0; k < 20; ++k) {
            int x = k + me, s1 = 0, s2 = 0;
            CHECK_MPI(MPI_Allreduce(&x, &s1, 1, MPI_INT, MPI_SUM, k % 2 ? odd : odd2));
            CHECK_MPI(MPI_Allreduce(&x, &s2, 1, MPI_INT, MPI_MAX, k % 2 ? odd2 : odd));
            long want = 0;
            int mx = 0;
            for (int i = 0; i < n; ++i) want += k + ranks[i], mx = k + ranks[i] > mx ? k + ranks[i] : mx;
            CHECK(s1 == want && s2 == mx, "alternating communicators, round %d", k);
        }
        CHECK_MPI(MPI_Comm_free(&odd2));
        CHECK_MPI(MPI_Comm_free(&odd));
    }
    /* World and the half, interleaved with point-to-point on both. */
    for (int k = 0; k < 10; ++k) {
        int a = me, b = -1, c = -1;
        CHECK_MPI(MPI_Bcast(&a, 1, MPI_INT, k % p, MPI_COMM_WORLD));
        CHECK(a == k % p, "world bcast");
        int hv = hr * 10 + k;
        CHECK_MPI(MPI_Bcast(&hv, 1, MPI_INT, k % hs, half));
        CHECK(hv == (k % hs) * 10 + k, "half bcast");
        CHECK_MPI(MPI_Sendrecv(&me, 1, MPI_INT, (hr + 1) % hs, 0, &b, 1, MPI_INT, (hr - 1 + hs) % hs, 0,
                               half, MPI_STATUS_IGNORE));
        CHECK_MPI(MPI_Sendrecv(&me, 1, MPI_INT, (me + 1) % p, 0, &c, 1, MPI_INT, (me - 1 + p) % p, 0,
                               MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK(c == (me - 1 + p) % p, "world sendrecv got %d", c);
    }
    CHECK_MPI(MPI_Comm_free(&half));
    MPI_Group_free(&g);
    MPI_Group_free(&world);
    MPI_Finalize();
    return 0;
}
