/* SPDX-License-Identifier: MIT */
/* The loops of icount_persistent.sh: ranks 0 and 1 ping-pong `size` bytes
 * n times, by mode 0: MPI_Send/MPI_Recv; 1: persistent requests
 * (MPI_Start + MPI_Wait of the send and of the receive, as
 * osu_latency_persistent and bench/p2p/persistent.c); 2: MPI_Isend /
 * MPI_Irecv + MPI_Wait. Usage: icount_persistent <mode> <n> <size>. */
#include <mpi.h>
#include <stdlib.h>

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int me;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    if (argc < 4 || me > 1) {
        MPI_Finalize();
        return 0;
    }
    const int mode = atoi(argv[1]), sz = atoi(argv[3]), peer = 1 - me;
    const long n = atol(argv[2]);
    char s[64] = {0}, r[64];
    MPI_Request sq, rq, q[2];
    MPI_Send_init(s, sz, MPI_BYTE, peer, 1, MPI_COMM_WORLD, &sq);
    MPI_Recv_init(r, sz, MPI_BYTE, peer, 1, MPI_COMM_WORLD, &rq);
    for (long i = 0; i < n; i++) {
        for (int turn = 0; turn < 2; turn++) {
            const int sending = (turn == 0) == (me == 0);
            if (mode == 0) {
                if (sending) MPI_Send(s, sz, MPI_BYTE, peer, 1, MPI_COMM_WORLD);
                else MPI_Recv(r, sz, MPI_BYTE, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else if (mode == 1) {
                MPI_Request* p = sending ? &sq : &rq;
                MPI_Start(p);
                MPI_Wait(p, MPI_STATUS_IGNORE);
            } else {
                if (sending) MPI_Isend(s, sz, MPI_BYTE, peer, 1, MPI_COMM_WORLD, &q[0]);
                else MPI_Irecv(r, sz, MPI_BYTE, peer, 1, MPI_COMM_WORLD, &q[0]);
                MPI_Wait(&q[0], MPI_STATUS_IGNORE);
            }
        }
    }
    MPI_Request_free(&sq);
    MPI_Request_free(&rq);
    MPI_Finalize();
    return 0;
}
