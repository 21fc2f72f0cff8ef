/* SPDX-License-Identifier: MIT */
/* Partitioned communication (MPI-4.1 chapter 4): MPI_Psend_init,
 * MPI_Precv_init, MPI_Pready, MPI_Pready_range, MPI_Pready_list,
 * MPI_Parrived, over rounds of MPI_Start / MPI_Wait.
 *  - a ring: each rank sends 8 partitions of 1000 ints to the right and
 *    receives them from the left as 4 partitions of 2000 (receiver counts
 *    differ from sender counts; the total matches); partitions are marked
 *    ready in a different order every round, one by one, by range and by
 *    list; the receiver polls MPI_Parrived and checks each partition as soon
 *    as it says so; every byte checked at the end of each round;
 *  - large partitions (4 x 100 KiB: several chunks each) and a vector type;
 *  - matching: two partitioned pairs with the same (peer, tag) match in
 *    initialization order; an ordinary message of the same tag is not
 *    matched by a partitioned receive (nor the reverse);
 *  - errors: MPI_Pready before MPI_Start, twice in a round, out of range, on
 *    a receive; MPI_Precv_init with MPI_ANY_SOURCE / MPI_ANY_TAG;
 *    MPI_Request_free and MPI_Cancel of an active request; totals that
 *    differ fail both ends with MPI_ERR_TRUNCATE. MPI_Parrived of
 *    MPI_REQUEST_NULL is true.
 * Argument: rounds (default 10). */
#include "mpitest.h"

static void expect_class(int rc, int cls, const char* what) {
    int c = MPI_SUCCESS;
    MPI_Error_class(rc, &c);
    CHECK(c == cls, "%s: error class %d, expected %d", what, c, cls);
}

enum { SP = 8, SC = 1000, RP = 4, RC = 2000 };

static int value(int src, int round, int i) { return src * 1000003 + round * 7919 + i; }

int main(int argc, char** argv) {
    mt_init(&argc, &argv);
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int me = mt_rank, right = (me + 1) % size, left = (me + size - 1) % size;
    const int rounds = argc > 1 ? atoi(argv[1]) : 10;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);

    int* sb = malloc(sizeof(int) * SP * SC);
    int* rb = malloc(sizeof(int) * RP * RC);
    MPI_Request s, r;
    CHECK_MPI(MPI_Psend_init(sb, SP, SC, MPI_INT, right, 5, MPI_COMM_WORLD, MPI_INFO_NULL, &s));
    CHECK_MPI(MPI_Precv_init(rb, RP, RC, MPI_INT, left, 5, MPI_COMM_WORLD, MPI_INFO_NULL, &r));
    expect_class(MPI_Pready(0, s), MPI_ERR_REQUEST, "Pready before Start");
    for (int it = 0; it < rounds; ++it) {
        for (int i = 0; i < RP * RC; ++i) rb[i] = -1;
        CHECK_MPI(MPI_Start(&r));
        CHECK_MPI(MPI_Start(&s));
        /* partitions filled and marked in an order that changes per round */
        const int mode = it % 3;
        int order[SP];
        for (int k = 0; k < SP; ++k) order[k] = (k * 3 + it) % SP;
        if (mode == 0) {
            for (int j = 0; j < SP; ++j) {
                const int k = order[j];
                for (int i = 0; i < SC; ++i) sb[k * SC + i] = value(me, it, k * SC + i);
                CHECK_MPI(MPI_Pready(k, s));
            }
        } else {
            for (int i = 0; i < SP * SC; ++i) sb[i] = value(me, it, i);
            if (mode == 1) {
                CHECK_MPI(MPI_Pready_range(SP / 2, SP - 1, s));
                CHECK_MPI(MPI_Pready_range(0, SP / 2 - 1, s));
            } else {
                CHECK_MPI(MPI_Pready_list(SP, order, s));
            }
        }
        if (it == 0) {
            expect_class(MPI_Pready(0, s), MPI_ERR_ARG, "Pready twice in a round");
            expect_class(MPI_Pready(SP, s), MPI_ERR_ARG, "Pready of a partition out of range");
            expect_class(MPI_Pready(0, r), MPI_ERR_REQUEST, "Pready on a partitioned receive");
            expect_class(MPI_Request_free(&s), MPI_ERR_REQUEST, "Request_free of an active send");
            expect_class(MPI_Cancel(&r), MPI_ERR_REQUEST, "Cancel of an active receive");
        }
        /* receive side: check each partition when MPI_Parrived says so */
        int seen[RP] = {0}, nseen = 0;
        while (nseen < RP) {
            for (int k = 0; k < RP; ++k) {
                if (seen[k]) continue;
                int flag = 0;
                CHECK_MPI(MPI_Parrived(r, k, &flag));
                if (!flag) continue;
                for (int i = 0; i < RC; ++i)
                    CHECK(rb[k * RC + i] == value(left, it, k * RC + i),
                          "round %d partition %d element %d: %d", it, k, i, rb[k * RC + i]);
                seen[k] = 1;
                ++nseen;
            }
        }
        MPI_Request both[2] = {s, r};
        MPI_Status st[2];
        CHECK_MPI(MPI_Waitall(2, both, st));
        CHECK(both[0] == s && both[1] == r, "partitioned handles changed by completion");
        for (int i = 0; i < RP * RC; ++i)
            CHECK(rb[i] == value(left, it, i), "round %d element %d: %d", it, i, rb[i]);
        int flag = 0;
        CHECK_MPI(MPI_Parrived(r, 0, &flag));
        CHECK(flag, "Parrived of an inactive request");
    }
    CHECK_MPI(MPI_Request_free(&s));
    CHECK_MPI(MPI_Request_free(&r));
    {
        int flag = 0;
        CHECK_MPI(MPI_Parrived(MPI_REQUEST_NULL, 3, &flag));
        CHECK(flag, "Parrived of MPI_REQUEST_NULL");
    }

    /* large partitions of a vector type; two pairs matched in init order;
     * an ordinary message with the same tag in between */
    {
        enum { LP = 4, LC = 25600 }; /* 100 KiB of ints per partition */
        MPI_Datatype vec;
        MPI_Type_vector(2, 1, 2, MPI_INT, &vec); /* 2 ints out of 3 (extent 3 ints) */
        MPI_Type_commit(&vec);
        int* a = malloc(sizeof(int) * LP * LC);          /* contiguous send */
        int* v = malloc(sizeof(int) * 3 * LP * LC / 2);  /* vector receive: LP*LC/2 vectors */
        int x[4] = {0, 1, 2, 3}, y[4] = {-1, -1, -1, -1}, z = -1;
        MPI_Request ps[2], pr[2];
        CHECK_MPI(MPI_Psend_init(a, LP, LC, MPI_INT, right, 6, MPI_COMM_WORLD, MPI_INFO_NULL, &ps[0]));
        CHECK_MPI(MPI_Psend_init(x, 2, 2, MPI_INT, right, 6, MPI_COMM_WORLD, MPI_INFO_NULL, &ps[1]));
        CHECK_MPI(MPI_Precv_init(v, LP, LC / 2, vec, left, 6, MPI_COMM_WORLD, MPI_INFO_NULL, &pr[0]));
        CHECK_MPI(MPI_Precv_init(y, 1, 4, MPI_INT, left, 6, MPI_COMM_WORLD, MPI_INFO_NULL, &pr[1]));
        int o = me;
        CHECK_MPI(MPI_Send(&o, 1, MPI_INT, right, 6, MPI_COMM_WORLD)); /* ordinary, same tag */
        for (int it = 0; it < 3; ++it) {
            for (int i = 0; i < LP * LC; ++i) a[i] = value(me, it, i);
            for (int i = 0; i < 3 * LP * LC / 2; ++i) v[i] = -7;
            CHECK_MPI(MPI_Startall(2, pr));
            CHECK_MPI(MPI_Startall(2, ps));
            CHECK_MPI(MPI_Pready_range(0, 1, ps[1]));
            for (int k = LP - 1; k >= 0; --k) CHECK_MPI(MPI_Pready(k, ps[0]));
            CHECK_MPI(MPI_Waitall(2, ps, MPI_STATUSES_IGNORE));
            CHECK_MPI(MPI_Waitall(2, pr, MPI_STATUSES_IGNORE));
            for (int i = 0; i < LP * LC; ++i) {
                const int at = (i / 2) * 3 + (i % 2) * 2;
                CHECK(v[at] == value(left, it, i), "vector round %d element %d: %d", it, i, v[at]);
            }
            for (int i = 0; i < 3 * LP * LC / 2; i += 3) CHECK(v[i + 1] == -7, "vector gap %d written", i + 1);
            for (int i = 0; i < 4; ++i) CHECK(y[i] == i, "second pair element %d: %d", i, y[i]);
        }
        CHECK_MPI(MPI_Recv(&z, 1, MPI_INT, left, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK(z == left, "ordinary message with the partitioned tag: %d", z);
        for (int k = 0; k < 2; ++k) {
            CHECK_MPI(MPI_Request_free(&ps[k]));
            CHECK_MPI(MPI_Request_free(&pr[k]));
        }
        MPI_Type_free(&vec);
        free(a);
        free(v);
    }

    /* wildcards are errors; totals that differ fail both ends */
    {
        int buf[8];
        MPI_Request q;
        expect_class(MPI_Precv_init(buf, 1, 8, MPI_INT, MPI_ANY_SOURCE, 7, MPI_COMM_WORLD, MPI_INFO_NULL, &q),
                     MPI_ERR_RANK, "Precv_init from MPI_ANY_SOURCE");
        expect_class(MPI_Precv_init(buf, 1, 8, MPI_INT, left, MPI_ANY_TAG, MPI_COMM_WORLD, MPI_INFO_NULL, &q),
                     MPI_ERR_TAG, "Precv_init with MPI_ANY_TAG");
        MPI_Request ms, mr;
        CHECK_MPI(MPI_Psend_init(buf, 2, 4, MPI_INT, right, 8, MPI_COMM_WORLD, MPI_INFO_NULL, &ms));
        CHECK_MPI(MPI_Precv_init(buf, 2, 3, MPI_INT, left, 8, MPI_COMM_WORLD, MPI_INFO_NULL, &mr));
        CHECK_MPI(MPI_Start(&mr));
        CHECK_MPI(MPI_Start(&ms));
        CHECK_MPI(MPI_Pready_range(0, 1, ms));
        expect_class(MPI_Wait(&ms, MPI_STATUS_IGNORE), MPI_ERR_TRUNCATE, "send of a mismatched total");
        expect_class(MPI_Wait(&mr, MPI_STATUS_IGNORE), MPI_ERR_TRUNCATE, "receive of a mismatched total");
        CHECK_MPI(MPI_Request_free(&ms));
        CHECK_MPI(MPI_Request_free(&mr));
    }
    free(sb);
    free(rb);
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == 0) printf("partitioned: OK\n");
    MPI_Finalize();
    return 0;
}
