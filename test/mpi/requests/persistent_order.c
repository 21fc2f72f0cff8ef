/* SPDX-License-Identifier: MIT */
/* Matching order of started persistent receives (MPI-4.1 §3.9): a started
 * MPI_Recv_init request is a posted receive, whatever the library does
 * inside (ch4lite may post it only when something could tell,
 * device/lazy_recv.hpp). Each case sends m1 then m2, both matching two
 * receives R1 (started or posted first) and R2, and checks R1 got m1:
 *  - R1 persistent, R2 an MPI_Irecv; waited in the order R2, R1;
 *  - R1 and R2 both persistent, R2 waited first; MPI_Waitall; MPI_Test loop;
 *  - R1 persistent, then a blocking MPI_Recv (R2);
 *  - probes: with R1 started, MPI_Iprobe / MPI_Improbe must not report m1
 *    (it is R1's), only m2.
 * Runs between ranks 0 (receiver) and 1 (sender); other ranks idle. */
#include "mpitest.h"

static void sync_pair(int me) {
    int x = 0;
    if (me == 0) MPI_Send(&x, 0, MPI_INT, 1, 50, MPI_COMM_WORLD);
    else MPI_Recv(&x, 0, MPI_INT, 0, 50, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

static void send2(int tag1, int tag2) {
    int m1 = 1, m2 = 2;
    MPI_Send(&m1, 1, MPI_INT, 0, tag1, MPI_COMM_WORLD);
    MPI_Send(&m2, 1, MPI_INT, 0, tag2, MPI_COMM_WORLD);
}

int main(int argc, char** argv) {
    mt_init(&argc, &argv);
    const int me = mt_rank;
    int a = 0, b = 0;
    MPI_Request p1, p2, q;
    MPI_Status st;
    CHECK_MPI(MPI_Recv_init(&a, 1, MPI_INT, 1, MPI_ANY_TAG, MPI_COMM_WORLD, &p1));
    CHECK_MPI(MPI_Recv_init(&b, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &p2));
    for (int round = 0; round < 20; ++round) {
        const int c = round % 5;
        if (me == 0) {
            a = b = 0;
            CHECK_MPI(MPI_Start(&p1));
            if (c == 0) { /* R2 an Irecv, waited first */
                CHECK_MPI(MPI_Irecv(&b, 1, MPI_INT, 1, MPI_ANY_TAG, MPI_COMM_WORLD, &q));
                sync_pair(me);
                CHECK_MPI(MPI_Wait(&q, &st));
                CHECK_MPI(MPI_Wait(&p1, MPI_STATUS_IGNORE));
            } else if (c == 1) { /* two persistent ones, the second waited first */
                CHECK_MPI(MPI_Start(&p2));
                sync_pair(me);
                CHECK_MPI(MPI_Wait(&p2, &st));
                CHECK_MPI(MPI_Wait(&p1, MPI_STATUS_IGNORE));
            } else if (c == 2) { /* Waitall, then a Test loop */
                CHECK_MPI(MPI_Start(&p2));
                sync_pair(me);
                MPI_Request both[2] = {p2, p1};
                if (round % 2) {
                    CHECK_MPI(MPI_Waitall(2, both, MPI_STATUSES_IGNORE));
                } else {
                    int flag = 0;
                    while (!flag) CHECK_MPI(MPI_Testall(2, both, &flag, MPI_STATUSES_IGNORE));
                }
            } else if (c == 3) { /* a blocking receive after the start */
                sync_pair(me);
                CHECK_MPI(MPI_Recv(&b, 1, MPI_INT, 1, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
                CHECK_MPI(MPI_Wait(&p1, MPI_STATUS_IGNORE));
            } else { /* probes must leave m1 to p1 */
                sync_pair(me);
                int flag = 0;
                MPI_Message msg;
                CHECK_MPI(MPI_Probe(1, MPI_ANY_TAG, MPI_COMM_WORLD, &st)); /* m2: m1 is p1's */
                CHECK(st.MPI_TAG == 12, "MPI_Probe saw tag %d, the started receive's message", st.MPI_TAG);
                CHECK_MPI(MPI_Iprobe(1, 11, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
                CHECK(!flag, "MPI_Iprobe saw the started receive's message");
                CHECK_MPI(MPI_Improbe(1, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &msg, &st));
                CHECK(flag && st.MPI_TAG == 12, "MPI_Improbe: flag %d tag %d", flag, st.MPI_TAG);
                CHECK_MPI(MPI_Mrecv(&b, 1, MPI_INT, &msg, MPI_STATUS_IGNORE));
                CHECK_MPI(MPI_Wait(&p1, MPI_STATUS_IGNORE));
            }
            CHECK(a == 1 && b == 2, "round %d (case %d): the first receive got %d, the second %d", round,
                  c, a, b);
        } else if (me == 1) {
            sync_pair(me);
            if (c == 4)
                send2(11, 12);
            else
                send2(1, 2);
        }
    }
    MPI_Request_free(&p1);
    MPI_Request_free(&p2);
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == 0) printf("persistent_order: OK\n");
    MPI_Finalize();
    return 0;
}
