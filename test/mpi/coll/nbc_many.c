/* SPDX-License-Identifier: MIT */
/* Many nonblocking collectives at once on one communicator, mixed with
 * point-to-point traffic and computation: 24 outstanding (Iallreduce,
 * Ibcast, Ialltoall, Iallgather, Ireduce, Iscan, Ibarrier on two
 * communicators), completed in reverse order, by MPI_Waitany, by
 * MPI_Waitsome and by MPI_Testall polling; persistent collectives started
 * 1000 times (MPI_Start and MPI_Startall) with new data each time and
 * no growth of the heap (mallinfo2) or of the request pool (registered
 * with CH4LITE_REQUEST_POOL_MAX=512: a request lost per start would run it
 * out, MPI_ERR_NO_MEM); MPI_Alltoallw with a datatype per peer in all
 * three forms. */
#include <malloc.h>

#include "mpitest.h"

static int me, p;
static volatile double sink;
static void compute(int us) {
    double t = MPI_Wtime(), x = 1;
    while ((MPI_Wtime() - t) * 1e6 < us) x = x * 1.0000001 + 1e-9;
    sink = x;
}
static int val(int rank, int k, int i) { return rank * 10007 + k * 131 + i; }

enum { K = 4, N = 300 }; /* K of each kind; N ints each */
enum { NREQ = 6 * K };

struct batch {
    int ar_in[K][N], ar_out[K][N], bc[K][N], a2a_in[K][8 * 64], a2a_out[K][8 * 64];
    int ag_out[K][8 * 16], red_out[K][N], scan_out[K][N];
    int p2p_in, p2p_out;
};

/* Posts NREQ collectives (+ a point-to-point exchange) into r[]. */
static void post(struct batch* b, MPI_Request* r, MPI_Comm dup, int seed) {
    int n = 0;
    const int blk = 64;
    for (int k = 0; k < K; ++k) {
        for (int i = 0; i < N; ++i) b->ar_in[k][i] = val(me, k + seed, i), b->ar_out[k][i] = -1;
        CHECK_MPI(MPI_Iallreduce(b->ar_in[k], b->ar_out[k], N, MPI_INT, MPI_SUM, k % 2 ? dup : MPI_COMM_WORLD, &r[n++]));
        for (int i = 0; i < N; ++i) b->bc[k][i] = me == k % p ? val(k % p, k + seed, i) : -1;
        CHECK_MPI(MPI_Ibcast(b->bc[k], N, MPI_INT, k % p, MPI_COMM_WORLD, &r[n++]));
        for (int q = 0; q < p; ++q)
            for (int i = 0; i < blk; ++i) b->a2a_in[k][q * blk + i] = val(me * p + q, k + seed, i), b->a2a_out[k][q * blk + i] = -1;
        CHECK_MPI(MPI_Ialltoall(b->a2a_in[k], blk, MPI_INT, b->a2a_out[k], blk, MPI_INT, MPI_COMM_WORLD, &r[n++]));
        /* The first 16 ints of ar_in[k] are val(me, k + seed, 0..15). */
        CHECK_MPI(MPI_Iallgather(b->ar_in[k], 16, MPI_INT, b->ag_out[k], 16, MPI_INT, dup, &r[n++]));
        CHECK_MPI(MPI_Ireduce(b->ar_in[k], b->red_out[k], N, MPI_INT, MPI_MAX, (k + 1) % p, MPI_COMM_WORLD, &r[n++]));
        CHECK_MPI(k % 2 ? MPI_Ibarrier(dup, &r[n++])
                        : MPI_Iscan(b->ar_in[k], b->scan_out[k], N, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r[n++]));
    }
    CHECK(n == NREQ, "posted %d", n);
}

static void verify(const struct batch* b, int seed) {
    const int blk = 64;
    for (int k = 0; k < K; ++k) {
        for (int i = 0; i < N; ++i) {
            long want = 0;
            for (int q = 0; q < p; ++q) want += val(q, k + seed, i);
            CHECK(b->ar_out[k][i] == want, "iallreduce k=%d [%d]=%d want %ld", k, i, b->ar_out[k][i], want);
            CHECK(b->bc[k][i] == val(k % p, k + seed, i), "ibcast k=%d [%d]", k, i);
        }
        for (int q = 0; q < p; ++q)
            for (int i = 0; i < blk; ++i)
                CHECK(b->a2a_out[k][q * blk + i] == val(q * p + me, k + seed, i), "ialltoall k=%d from %d [%d]", k, q, i);
        for (int q = 0; q < p; ++q)
            for (int i = 0; i < 16; ++i)
                CHECK(b->ag_out[k][q * 16 + i] == val(q, k + seed, i), "iallgather k=%d from %d [%d]", k, q, i);
        if (me == (k + 1) % p)
            for (int i = 0; i < N; ++i) CHECK(b->red_out[k][i] == val(p - 1, k + seed, i), "ireduce max k=%d [%d]", k, i);
        if (k % 2 == 0)
            for (int i = 0; i < N; ++i) {
                long want = 0;
                for (int q = 0; q <= me; ++q) want += val(q, k + seed, i);
                CHECK(b->scan_out[k][i] == want, "iscan k=%d [%d]", k, i);
            }
    }
}

static void many(MPI_Comm dup) {
    static struct batch b;
    MPI_Request r[NREQ + 2];
    const int right = (me + 1) % p, left = (me - 1 + p) % p;
    for (int mode = 0; mode < 4; ++mode) {
        const int seed = mode * 17;
        post(&b, r, dup, seed);
        /* Point-to-point on the same communicator, same tags as nothing. */
        b.p2p_out = val(me, seed, 99);
        CHECK_MPI(MPI_Irecv(&b.p2p_in, 1, MPI_INT, left, 5, MPI_COMM_WORLD, &r[NREQ]));
        CHECK_MPI(MPI_Isend(&b.p2p_out, 1, MPI_INT, right, 5, MPI_COMM_WORLD, &r[NREQ + 1]));
        compute(200);
        if (mode == 0) { /* reverse order */
            for (int i = NREQ + 1; i >= 0; --i) CHECK_MPI(MPI_Wait(&r[i], MPI_STATUS_IGNORE));
        } else if (mode == 1) {
            for (int done = 0; done < NREQ + 2; ++done) {
                int idx = -1;
                CHECK_MPI(MPI_Waitany(NREQ + 2, r, &idx, MPI_STATUS_IGNORE));
                CHECK(idx >= 0 && r[idx] == MPI_REQUEST_NULL, "waitany %d", idx);
            }
        } else if (mode == 2) {
            int left_ = NREQ + 2;
            while (left_ > 0) {
                int out = 0, idx[NREQ + 2];
                CHECK_MPI(MPI_Waitsome(NREQ + 2, r, &out, idx, MPI_STATUSES_IGNORE));
                CHECK(out >= 1 && out <= left_, "waitsome %d", out);
                left_ -= out;
            }
        } else { /* computation with MPI_Testall between slices */
            int flag = 0;
            while (!flag) {
                compute(20);
                CHECK_MPI(MPI_Testall(NREQ + 2, r, &flag, MPI_STATUSES_IGNORE));
            }
        }
        CHECK(b.p2p_in == val(left, seed, 99), "p2p got %d", b.p2p_in);
        verify(&b, seed);
    }
}

static void persistent(int starts) {
    enum { M = 64 };
    int in[M], out[M], bc[M], a2a_in[8 * 4], a2a_out[8 * 4];
    MPI_Request r[3];
    CHECK_MPI(MPI_Allreduce_init(in, out, M, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &r[0]));
    CHECK_MPI(MPI_Bcast_init(bc, M, MPI_INT, p - 1, MPI_COMM_WORLD, MPI_INFO_NULL, &r[1]));
    CHECK_MPI(MPI_Alltoall_init(a2a_in, 4, MPI_INT, a2a_out, 4, MPI_INT, MPI_COMM_WORLD, MPI_INFO_NULL, &r[2]));
    size_t heap0 = 0;
    for (int it = 0; it < starts; ++it) {
        for (int i = 0; i < M; ++i) in[i] = val(me, it, i), out[i] = -1, bc[i] = me == p - 1 ? val(p, it, i) : -1;
        for (int i = 0; i < 4 * p; ++i) a2a_in[i] = val(me * p + i / 4, it, i % 4), a2a_out[i] = -1;
        if (it % 2) {
            CHECK_MPI(MPI_Startall(3, r));
            CHECK_MPI(MPI_Waitall(3, r, MPI_STATUSES_IGNORE));
        } else {
            for (int k = 2; k >= 0; --k) CHECK_MPI(MPI_Start(&r[k]));
            for (int k = 0; k < 3; ++k) CHECK_MPI(MPI_Wait(&r[k], MPI_STATUS_IGNORE));
        }
        for (int k = 0; k < 3; ++k) CHECK(r[k] != MPI_REQUEST_NULL, "persistent request nulled");
        for (int i = 0; i < M; ++i) {
            long want = 0;
            for (int q = 0; q < p; ++q) want += val(q, it, i);
            CHECK(out[i] == want, "allreduce_init start %d [%d]", it, i);
            CHECK(bc[i] == val(p, it, i), "bcast_init start %d [%d]", it, i);
        }
        for (int i = 0; i < 4 * p; ++i)
            CHECK(a2a_out[i] == val((i / 4) * p + me, it, i % 4), "alltoall_init start %d [%d]", it, i);
        if (it == 10) heap0 = mallinfo2().uordblks; /* settled: measure from here */
    }
    if (starts > 10) {
        const size_t heap = mallinfo2().uordblks;
        CHECK(heap <= heap0 + 64 * 1024, "heap grew by %zu bytes over %d starts", heap - heap0, starts - 10);
    }
    for (int k = 0; k < 3; ++k) CHECK_MPI(MPI_Request_free(&r[k]));
}

/* Alltoallw: to peer q go 2, 4 or 6 ints (the same count q expects from
 * me), sent as MPI_INT pairs (odd q) or as a strided vector (even q, 2 ints
 * per instance at 0 and 3 of a 4-int extent), received as plain MPI_INT;
 * byte displacements, send blocks in reverse order. */
enum { SLOT = 12 };
static void alltoallw(int form) {
    MPI_Datatype vec, pair;
    CHECK_MPI(MPI_Type_vector(2, 1, 3, MPI_INT, &vec));
    CHECK_MPI(MPI_Type_commit(&vec));
    CHECK_MPI(MPI_Type_contiguous(2, MPI_INT, &pair));
    CHECK_MPI(MPI_Type_commit(&pair));
    int sc[8], sd[8], rc[8], rd[8];
    MPI_Datatype st[8], rt[8];
    int sbuf[8 * SLOT], rbuf[8 * 8];
    for (int i = 0; i < 8 * SLOT; ++i) sbuf[i] = -7;
    for (int i = 0; i < 8 * 8; ++i) rbuf[i] = -1;
    for (int q = 0; q < p; ++q) {
        const int ints = 2 * (((q + me) % 3) + 1);
        st[q] = q % 2 ? pair : vec;
        sc[q] = ints / 2; /* both types carry 2 ints per instance */
        sd[q] = (p - 1 - q) * SLOT * (int)sizeof(int);
        rt[q] = MPI_INT;
        rc[q] = ints;
        rd[q] = q * 8 * (int)sizeof(int);
        int* base = sbuf + (p - 1 - q) * SLOT;
        for (int j = 0; j < ints; ++j) base[q % 2 ? j : (j / 2) * 4 + (j % 2) * 3] = val(me, q, j);
    }
    MPI_Request r;
    if (form == 0) {
        CHECK_MPI(MPI_Alltoallw(sbuf, sc, sd, st, rbuf, rc, rd, rt, MPI_COMM_WORLD));
    } else if (form == 1) {
        CHECK_MPI(MPI_Ialltoallw(sbuf, sc, sd, st, rbuf, rc, rd, rt, MPI_COMM_WORLD, &r));
        CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
    } else {
        CHECK_MPI(MPI_Alltoallw_init(sbuf, sc, sd, st, rbuf, rc, rd, rt, MPI_COMM_WORLD, MPI_INFO_NULL, &r));
        for (int k = 0; k < 2; ++k) {
            CHECK_MPI(MPI_Start(&r));
            CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
        }
        CHECK_MPI(MPI_Request_free(&r));
    }
    for (int q = 0; q < p; ++q) {
        for (int j = 0; j < rc[q]; ++j)
            CHECK(rbuf[q * 8 + j] == val(q, me, j), "alltoallw form %d from %d [%d]=%d", form, q, j, rbuf[q * 8 + j]);
        CHECK(rc[q] == 8 || rbuf[q * 8 + rc[q]] == -1, "alltoallw wrote past block %d", q);
    }
    /* In place: recvbuf holds what goes out (MPI_INT blocks, receive layout). */
    for (int q = 0; q < p; ++q)
        for (int j = 0; j < rc[q]; ++j) rbuf[q * 8 + j] = val(me, q, j) + 1;
    if (form == 1) {
        CHECK_MPI(MPI_Ialltoallw(MPI_IN_PLACE, NULL, NULL, NULL, rbuf, rc, rd, rt, MPI_COMM_WORLD, &r));
        CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
    } else {
        CHECK_MPI(MPI_Alltoallw(MPI_IN_PLACE, NULL, NULL, NULL, rbuf, rc, rd, rt, MPI_COMM_WORLD));
    }
    for (int q = 0; q < p; ++q)
        for (int j = 0; j < rc[q]; ++j)
            CHECK(rbuf[q * 8 + j] == val(q, me, j) + 1, "alltoallw in place from %d [%d]", q, j);
    MPI_Type_free(&vec);
    MPI_Type_free(&pair);
}

int main(int argc, char** argv) {
    mt_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    CHECK(p <= 8, "at most 8 ranks");
    const int starts = argc > 1 ? atoi(argv[1]) : 1000;
    MPI_Comm dup;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    many(dup);
    persistent(starts);
    for (int form = 0; form < 3; ++form) alltoallw(form);
    MPI_Comm_free(&dup);
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    MPI_Finalize();
    return 0;
}
