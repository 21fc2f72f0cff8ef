/* SPDX-License-Identifier: MIT */
/* A plain MPI program that knows nothing of profiling tools: each rank
 * makes a fixed number of calls of each function test/mpi/pmpi/trace.c
 * wraps (the numbers are in CMakeLists.txt's TRACE_EXPECT), including
 * calls whose implementation could have used other MPI functions
 * internally (MPI_Sendrecv, MPI_Bcast, MPI_Allreduce, MPI_Reduce,
 * MPI_Comm_dup, MPI_Waitall, MPI_Bsend, MPI_Probe, persistent requests). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define N 10

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int me, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int right = (me + 1) % size, left = (me + size - 1) % size;
    int s = me, r = -1;
    for (int i = 0; i < N; ++i) { /* 10 Send, 10 Recv (even ranks send first) */
        if (me % 2 == 0) {
            MPI_Send(&s, 1, MPI_INT, right, 0, MPI_COMM_WORLD);
            MPI_Recv(&r, 1, MPI_INT, left, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(&r, 1, MPI_INT, left, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(&s, 1, MPI_INT, right, 0, MPI_COMM_WORLD);
        }
    }
    for (int i = 0; i < 7; ++i) /* 7 Sendrecv */
        MPI_Sendrecv(&s, 1, MPI_INT, right, 1, &r, 1, MPI_INT, left, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    for (int i = 0; i < 5; ++i) { /* 5 Isend, 5 Irecv, 5 Waitall, 5 Wait, 5 Test */
        MPI_Request q[2], q2;
        int flag = 0;
        MPI_Irecv(&r, 1, MPI_INT, left, 2, MPI_COMM_WORLD, &q[0]);
        MPI_Isend(&s, 1, MPI_INT, right, 2, MPI_COMM_WORLD, &q[1]);
        MPI_Waitall(2, q, MPI_STATUSES_IGNORE);
        MPI_Barrier(MPI_COMM_WORLD); /* 5 Barrier */
        MPI_Isend(&s, 1, MPI_INT, me, 3, MPI_COMM_WORLD, &q2);
        MPI_Wait(&q2, MPI_STATUS_IGNORE);
        MPI_Test(&q2, &flag, MPI_STATUS_IGNORE); /* on MPI_REQUEST_NULL */
        MPI_Recv(&r, 1, MPI_INT, me, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* +5 Recv */
    }
    for (int i = 0; i < 4; ++i) { /* 4 Bcast, 3+... */
        MPI_Bcast(&s, 1, MPI_INT, i % size, MPI_COMM_WORLD);
        MPI_Allreduce(&me, &r, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD); /* 4 Allreduce */
    }
    for (int i = 0; i < 3; ++i) MPI_Reduce(&me, &r, 1, MPI_INT, MPI_MAX, 0, MPI_COMM_WORLD); /* 3 */
    MPI_Comm dup, dup2; /* 2 Comm_dup */
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_dup(dup, &dup2);
    MPI_Request ps, pr; /* 1 Send_init, 1 Recv_init, 6 Start, 6 Wait */
    MPI_Send_init(&s, 1, MPI_INT, right, 4, dup, &ps);
    MPI_Recv_init(&r, 1, MPI_INT, left, 4, dup, &pr);
    for (int i = 0; i < 3; ++i) {
        MPI_Start(&pr);
        MPI_Start(&ps);
        MPI_Wait(&ps, MPI_STATUS_IGNORE);
        MPI_Wait(&pr, MPI_STATUS_IGNORE);
    }
    MPI_Request_free(&ps);
    MPI_Request_free(&pr);
    /* 2 Ssend, 2 Probe, 1 Iprobe loop (counted by the app), 2 more Recv */
    int probes = 0;
    for (int i = 0; i < 2; ++i) {
        MPI_Request q;
        MPI_Irecv(&r, 1, MPI_INT, left, 5, dup2, &q); /* +2 Irecv */
        MPI_Ssend(&s, 1, MPI_INT, right, 5, dup2);
        MPI_Wait(&q, MPI_STATUS_IGNORE); /* +2 Wait */
        MPI_Send(&s, 1, MPI_INT, me, 6, dup2); /* +2 Send */
        MPI_Status st;
        MPI_Probe(me, 6, dup2, &st);
        int flag = 0;
        while (!flag) {
            MPI_Iprobe(me, 6, dup2, &flag, MPI_STATUS_IGNORE);
            ++probes;
        }
        MPI_Recv(&r, 1, MPI_INT, me, 6, dup2, MPI_STATUS_IGNORE); /* +2 Recv */
    }
    if (probes != 2) { /* the message is there: each Iprobe loop runs once */
        fprintf(stderr, "traced_app: %d Iprobe calls, expected 2\n", probes);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    /* 3 Bsend */
    static char bbuf[3 * (64 + MPI_BSEND_OVERHEAD)];
    MPI_Buffer_attach(bbuf, (int)sizeof bbuf);
    for (int i = 0; i < 3; ++i) {
        MPI_Bsend(&s, 1, MPI_INT, right, 7, MPI_COMM_WORLD);
        MPI_Recv(&r, 1, MPI_INT, left, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* +3 Recv */
    }
    void* b;
    int bs;
    MPI_Buffer_detach(&b, &bs);
    MPI_Comm_free(&dup2);
    MPI_Comm_free(&dup);
    if (me == 0) printf("traced_app: done\n");
    MPI_Finalize();
    return 0;
}
