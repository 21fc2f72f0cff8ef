/* SPDX-License-Identifier: MIT */
/* Count 0 with MPI_DATATYPE_NULL is an empty message (as MPICH >= 4.0.1
 * accepts; MPICH part/nonblocking_pready sends one): blocking, nonblocking,
 * persistent, buffered, synchronous sends and receives, Sendrecv; the
 * receive's status counts 0 bytes. Count 1 with MPI_DATATYPE_NULL stays
 * MPI_ERR_TYPE. */
#include "mpitest.h"

int main(int argc, char** argv) {
    mt_init(&argc, &argv);
    int p;
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    const int me = mt_rank, peer = me ^ 1;
    if (peer < p) {
        MPI_Status st;
        int n = -1;
        MPI_Request rq[2];
        if (me % 2 == 0) {
            CHECK_MPI(MPI_Send(NULL, 0, MPI_DATATYPE_NULL, peer, 1, MPI_COMM_WORLD));
            CHECK_MPI(MPI_Ssend(NULL, 0, MPI_DATATYPE_NULL, peer, 2, MPI_COMM_WORLD));
            CHECK_MPI(MPI_Isend(NULL, 0, MPI_DATATYPE_NULL, peer, 3, MPI_COMM_WORLD, &rq[0]));
            CHECK_MPI(MPI_Wait(&rq[0], MPI_STATUS_IGNORE));
            CHECK_MPI(MPI_Send_init(NULL, 0, MPI_DATATYPE_NULL, peer, 4, MPI_COMM_WORLD, &rq[0]));
            CHECK_MPI(MPI_Start(&rq[0]));
            CHECK_MPI(MPI_Wait(&rq[0], MPI_STATUS_IGNORE));
            CHECK_MPI(MPI_Request_free(&rq[0]));
        } else {
            for (int tag = 1; tag <= 4; ++tag) {
                if (tag == 3) {
                    CHECK_MPI(MPI_Irecv(NULL, 0, MPI_DATATYPE_NULL, peer, tag, MPI_COMM_WORLD, &rq[0]));
                    CHECK_MPI(MPI_Wait(&rq[0], &st));
                } else if (tag == 4) {
                    CHECK_MPI(MPI_Recv_init(NULL, 0, MPI_DATATYPE_NULL, peer, tag, MPI_COMM_WORLD, &rq[0]));
                    CHECK_MPI(MPI_Start(&rq[0]));
                    CHECK_MPI(MPI_Wait(&rq[0], &st));
                    CHECK_MPI(MPI_Request_free(&rq[0]));
                } else {
                    CHECK_MPI(MPI_Recv(NULL, 0, MPI_DATATYPE_NULL, peer, tag, MPI_COMM_WORLD, &st));
                }
                CHECK_MPI(MPI_Get_count(&st, MPI_BYTE, &n));
                CHECK(n == 0 && st.MPI_TAG == tag && st.MPI_SOURCE == peer, "tag %d: count %d tag %d source %d",
                      tag, n, st.MPI_TAG, st.MPI_SOURCE);
            }
        }
        CHECK_MPI(MPI_Sendrecv(NULL, 0, MPI_DATATYPE_NULL, peer, 5, NULL, 0, MPI_DATATYPE_NULL, peer, 5,
                               MPI_COMM_WORLD, &st));
        CHECK_MPI(MPI_Get_count(&st, MPI_INT, &n));
        CHECK(n == 0, "sendrecv count %d", n);
    }
    /* a real count still needs a real datatype */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int x = 0, cls = 0;
    const int rc = MPI_Send(&x, 1, MPI_DATATYPE_NULL, me, 0, MPI_COMM_WORLD);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_TYPE, "MPI_Send of 1 x MPI_DATATYPE_NULL: class %d, want MPI_ERR_TYPE", cls);
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == 0) printf("null_type_zero: OK\n");
    MPI_Finalize();
    return 0;
}
