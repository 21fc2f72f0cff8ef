/* SPDX-License-Identifier: MIT */
/* A minimal profiling tool (MPI-4.1 §15.2): a shared library that defines
 * 20 MPI_ functions, counts each call and forwards it to the PMPI_ name.
 * Linked into a program before libmpi, or LD_PRELOADed into one that knows
 * nothing of it, it must see exactly the application's calls: an
 * MPI_Sendrecv is one MPI_Sendrecv (not an MPI_Send and an MPI_Recv), an
 * MPI_Bcast sends nothing the tool sees, and so on. At MPI_Finalize (the
 * 21st wrapper) it compares its counts with TRACE_EXPECT
 * ("MPI_Send=3,MPI_Recv=3,...": every wrapped function not listed must
 * have 0 calls) and aborts the job on a difference. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
    F_Send, F_Recv, F_Isend, F_Irecv, F_Wait, F_Waitall, F_Test, F_Sendrecv, F_Ssend, F_Bsend,
    F_Bcast, F_Barrier, F_Allreduce, F_Reduce, F_Probe, F_Iprobe, F_Start, F_Send_init,
    F_Recv_init, F_Comm_dup, F_count
};
static const char* const names[F_count] = {
    "MPI_Send", "MPI_Recv", "MPI_Isend", "MPI_Irecv", "MPI_Wait", "MPI_Waitall", "MPI_Test",
    "MPI_Sendrecv", "MPI_Ssend", "MPI_Bsend", "MPI_Bcast", "MPI_Barrier", "MPI_Allreduce",
    "MPI_Reduce", "MPI_Probe", "MPI_Iprobe", "MPI_Start", "MPI_Send_init", "MPI_Recv_init",
    "MPI_Comm_dup"};
static long calls[F_count];

int MPI_Send(const void* b, int n, MPI_Datatype t, int d, int g, MPI_Comm c) {
    ++calls[F_Send];
    return PMPI_Send(b, n, t, d, g, c);
}
int MPI_Recv(void* b, int n, MPI_Datatype t, int s, int g, MPI_Comm c, MPI_Status* st) {
    ++calls[F_Recv];
    return PMPI_Recv(b, n, t, s, g, c, st);
}
int MPI_Isend(const void* b, int n, MPI_Datatype t, int d, int g, MPI_Comm c, MPI_Request* r) {
    ++calls[F_Isend];
    return PMPI_Isend(b, n, t, d, g, c, r);
}
int MPI_Irecv(void* b, int n, MPI_Datatype t, int s, int g, MPI_Comm c, MPI_Request* r) {
    ++calls[F_Irecv];
    return PMPI_Irecv(b, n, t, s, g, c, r);
}
int MPI_Wait(MPI_Request* r, MPI_Status* st) {
    ++calls[F_Wait];
    return PMPI_Wait(r, st);
}
int MPI_Waitall(int n, MPI_Request r[], MPI_Status st[]) {
    ++calls[F_Waitall];
    return PMPI_Waitall(n, r, st);
}
int MPI_Test(MPI_Request* r, int* f, MPI_Status* st) {
    ++calls[F_Test];
    return PMPI_Test(r, f, st);
}
int MPI_Sendrecv(const void* sb, int sn, MPI_Datatype st, int d, int sg, void* rb, int rn,
                 MPI_Datatype rt, int s, int rg, MPI_Comm c, MPI_Status* status) {
    ++calls[F_Sendrecv];
    return PMPI_Sendrecv(sb, sn, st, d, sg, rb, rn, rt, s, rg, c, status);
}
int MPI_Ssend(const void* b, int n, MPI_Datatype t, int d, int g, MPI_Comm c) {
    ++calls[F_Ssend];
    return PMPI_Ssend(b, n, t, d, g, c);
}
int MPI_Bsend(const void* b, int n, MPI_Datatype t, int d, int g, MPI_Comm c) {
    ++calls[F_Bsend];
    return PMPI_Bsend(b, n, t, d, g, c);
}
int MPI_Bcast(void* b, int n, MPI_Datatype t, int root, MPI_Comm c) {
    ++calls[F_Bcast];
    return PMPI_Bcast(b, n, t, root, c);
}
int MPI_Barrier(MPI_Comm c) {
    ++calls[F_Barrier];
    return PMPI_Barrier(c);
}
int MPI_Allreduce(const void* s, void* r, int n, MPI_Datatype t, MPI_Op o, MPI_Comm c) {
    ++calls[F_Allreduce];
    return PMPI_Allreduce(s, r, n, t, o, c);
}
int MPI_Reduce(const void* s, void* r, int n, MPI_Datatype t, MPI_Op o, int root, MPI_Comm c) {
    ++calls[F_Reduce];
    return PMPI_Reduce(s, r, n, t, o, root, c);
}
int MPI_Probe(int s, int g, MPI_Comm c, MPI_Status* st) {
    ++calls[F_Probe];
    return PMPI_Probe(s, g, c, st);
}
int MPI_Iprobe(int s, int g, MPI_Comm c, int* f, MPI_Status* st) {
    ++calls[F_Iprobe];
    return PMPI_Iprobe(s, g, c, f, st);
}
int MPI_Start(MPI_Request* r) {
    ++calls[F_Start];
    return PMPI_Start(r);
}
int MPI_Send_init(const void* b, int n, MPI_Datatype t, int d, int g, MPI_Comm c, MPI_Request* r) {
    ++calls[F_Send_init];
    return PMPI_Send_init(b, n, t, d, g, c, r);
}
int MPI_Recv_init(void* b, int n, MPI_Datatype t, int s, int g, MPI_Comm c, MPI_Request* r) {
    ++calls[F_Recv_init];
    return PMPI_Recv_init(b, n, t, s, g, c, r);
}
int MPI_Comm_dup(MPI_Comm c, MPI_Comm* out) {
    ++calls[F_Comm_dup];
    return PMPI_Comm_dup(c, out);
}

/* Compares the counts with TRACE_EXPECT; aborts the job on a difference. */
int MPI_Finalize(void) {
    int rank = -1;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    long want[F_count] = {0};
    const char* e = getenv("TRACE_EXPECT");
    if (!e) {
        fprintf(stderr, "trace: TRACE_EXPECT is not set\n");
        PMPI_Abort(MPI_COMM_WORLD, 2);
    }
    char* list = strdup(e);
    for (char* tok = strtok(list, ","); tok; tok = strtok(NULL, ",")) {
        char* eq = strchr(tok, '=');
        int found = 0;
        if (eq) {
            *eq = '\0';
            for (int i = 0; i < F_count; ++i)
                if (strcmp(tok, names[i]) == 0) {
                    want[i] = atol(eq + 1);
                    found = 1;
                }
        }
        if (!found) {
            fprintf(stderr, "trace: bad TRACE_EXPECT entry \"%s\"\n", tok);
            PMPI_Abort(MPI_COMM_WORLD, 2);
        }
    }
    free(list);
    int bad = 0;
    for (int i = 0; i < F_count; ++i)
        if (calls[i] != want[i]) {
            fprintf(stderr, "trace: rank %d: %s called %ld times, the application called it %ld times\n",
                    rank, names[i], calls[i], want[i]);
            bad = 1;
        }
    if (bad) PMPI_Abort(MPI_COMM_WORLD, 1);
    printf("trace: rank %d: the tool saw exactly the application's calls of %d functions\n", rank,
           F_count);
    fflush(stdout);
    return PMPI_Finalize();
}
