/* SPDX-License-Identifier: MIT */
/* MPI_THREAD_MULTIPLE: every thread of every rank calls MPI at once.
 * - the level is granted and reported (MPI_Query_thread, MPI_Is_thread_main);
 * - NT threads per rank exchange with the next and previous rank on their
 *   own tags, blocking and nonblocking, eager to rendezvous sizes, contents
 *   checked;
 * - a thread's blocking receive must not stop the other threads: thread 1
 *   receives from itself what thread 2 sends after a delay, and rank 0's
 *   thread 0 waits (MPI_ANY_SOURCE) for a reply rank 1 sends only after a
 *   message rank 0's thread 3 sends later;
 * - collectives at once on one duplicated communicator per thread;
 * - MPI_Comm_dup / MPI_Comm_free at once in every thread, and the other
 *   constructors that agree on context ids: MPI_Comm_split,
 *   MPI_Comm_create_group, MPI_Intercomm_create, MPI_Intercomm_merge;
 * - a dup of MPI_COMM_SELF while another thread's dup of a communicator
 *   waits for a process whose threads are in their own MPI_COMM_SELF dup
 *   (the shape of MPICH's threads/comm/comm_dup_deadlock: the context-id
 *   agreements of one process must not wait for each other);
 * - passive-target RMA at once, one window per thread, and matched probes
 *   (MPI_Mprobe / MPI_Mrecv) on the threads' own tags;
 * - a generalized request waited for in one thread, completed in another.
 * Plain C and pthreads, so it also runs against MPICH and Open MPI. */
#include <pthread.h>
#include <stdint.h>
#include <time.h>

#include "mpitest.h"

#define NT 4
static int rank, size;
static MPI_Comm tcomm[NT];

static void nap_ms(int ms) {
    struct timespec d = {0, (long)ms * 1000000L};
    nanosleep(&d, NULL);
}

static unsigned char pattern(int src, int t, int it, size_t i) {
    return (unsigned char)(src * 31 + t * 7 + it * 3 + (int)(i % 251));
}

/* ---- point to point: ring exchange per thread ---------------------------- */
static void* ring(void* arg) {
    const int t = (int)(intptr_t)arg;
    const int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    static const size_t sizes[] = {8, 4096, 65536, 1 << 20};
    const int iters = mt_full() ? 200 : 40;
    for (int it = 0; it < iters; ++it) {
        const size_t n = sizes[(it + t) % 4];
        unsigned char* s = malloc(n);
        unsigned char* r = malloc(n);
        CHECK(s && r, "no memory");
        for (size_t i = 0; i < n; ++i) s[i] = pattern(rank, t, it, i);
        memset(r, 0, n);
        MPI_Status st;
        if (it % 2 == 0) {
            MPI_Request q[2];
            CHECK_MPI(MPI_Irecv(r, (int)n, MPI_BYTE, prev, t, MPI_COMM_WORLD, &q[0]));
            CHECK_MPI(MPI_Isend(s, (int)n, MPI_BYTE, next, t, MPI_COMM_WORLD, &q[1]));
            MPI_Status sts[2];
            CHECK_MPI(MPI_Waitall(2, q, sts));
            st = sts[0];
        } else {
            CHECK_MPI(MPI_Sendrecv(s, (int)n, MPI_BYTE, next, t, r, (int)n, MPI_BYTE, prev, t,
                                   MPI_COMM_WORLD, &st));
        }
        CHECK(st.MPI_SOURCE == prev && st.MPI_TAG == t, "thread %d: status %d/%d", t, st.MPI_SOURCE,
              st.MPI_TAG);
        for (size_t i = 0; i < n; ++i)
            CHECK(r[i] == pattern(prev, t, it, i), "thread %d iter %d: byte %zu of %zu is %u", t, it, i,
                  n, r[i]);
        free(s);
        free(r);
    }
    return NULL;
}

/* ---- a blocked thread does not block the others -------------------------- */
static void* self_recv(void* arg) {
    (void)arg;
    int v = 0;
    MPI_Status st;
    CHECK_MPI(MPI_Recv(&v, 1, MPI_INT, rank, 100, MPI_COMM_WORLD, &st));
    CHECK(v == 4242 && st.MPI_SOURCE == rank, "self receive got %d from %d", v, st.MPI_SOURCE);
    return NULL;
}
static void* self_send(void* arg) {
    (void)arg;
    nap_ms(50);
    int v = 4242;
    CHECK_MPI(MPI_Send(&v, 1, MPI_INT, rank, 100, MPI_COMM_WORLD));
    return NULL;
}
static void* wait_reply(void* arg) {
    (void)arg;
    int v = 0;
    MPI_Status st;
    CHECK_MPI(MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 101, MPI_COMM_WORLD, &st));
    CHECK(v == 7 && st.MPI_SOURCE == 1, "reply %d from %d", v, st.MPI_SOURCE);
    return NULL;
}
static void* late_request(void* arg) {
    (void)arg;
    nap_ms(50);
    int v = 6;
    CHECK_MPI(MPI_Send(&v, 1, MPI_INT, 1, 102, MPI_COMM_WORLD));
    return NULL;
}

/* ---- collectives, one communicator per thread ---------------------------- */
static void* colls(void* arg) {
    const int t = (int)(intptr_t)arg;
    MPI_Comm c = tcomm[t];
    const int iters = mt_full() ? 300 : 60;
    for (int it = 0; it < iters; ++it) {
        long in[64], out[64];
        for (int i = 0; i < 64; ++i) in[i] = rank * 1000 + t * 10 + i + it;
        CHECK_MPI(MPI_Allreduce(in, out, 64, MPI_LONG, MPI_SUM, c));
        for (int i = 0; i < 64; ++i) {
            const long want = 1000L * size * (size - 1) / 2 + (long)size * (t * 10 + i + it);
            CHECK(out[i] == want, "thread %d iter %d: allreduce[%d] = %ld, want %ld", t, it, i, out[i],
                  want);
        }
        int b = rank == it % size ? t * 100 + it : -1;
        CHECK_MPI(MPI_Bcast(&b, 1, MPI_INT, it % size, c));
        CHECK(b == t * 100 + it, "thread %d iter %d: bcast %d", t, it, b);
        MPI_Request q;
        CHECK_MPI(MPI_Ibarrier(c, &q));
        CHECK_MPI(MPI_Wait(&q, MPI_STATUS_IGNORE));
    }
    return NULL;
}

/* MPI_Comm_dup of thread t's communicator, a sum over the copy, free. */
static void dup_and_sum(int t) {
    MPI_Comm d;
    CHECK_MPI(MPI_Comm_dup(tcomm[t], &d));
    int s = 0;
    CHECK_MPI(MPI_Allreduce(&rank, &s, 1, MPI_INT, MPI_SUM, d));
    CHECK(s == size * (size - 1) / 2, "thread %d: sum over a dup %d", t, s);
    CHECK_MPI(MPI_Comm_free(&d));
}

static void* dups(void* arg) {
    const int t = (int)(intptr_t)arg;
    for (int it = 0; it < 20; ++it) dup_and_sum(t);
    return NULL;
}

/* ---- the other constructors that agree on context ids -------------------- */
static void* constructors(void* arg) {
    const int t = (int)(intptr_t)arg;
    for (int it = 0; it < 5; ++it) {
        const int color = rank % 2;
        MPI_Comm half, evens = MPI_COMM_NULL, inter = MPI_COMM_NULL, merged;
        CHECK_MPI(MPI_Comm_split(tcomm[t], color, -rank, &half));
        int hs = 0, hr = -1, sum = 0;
        MPI_Comm_size(half, &hs);
        MPI_Comm_rank(half, &hr);
        CHECK(hs == (size + 1 - color) / 2, "thread %d: split size %d", t, hs);
        CHECK(hr == hs - 1 - rank / 2, "thread %d: split rank %d (key -rank)", t, hr);
        CHECK_MPI(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, half));
        int want = 0;
        for (int r = color; r < size; r += 2) want += r;
        CHECK(sum == want, "thread %d: sum over a split %d, want %d", t, sum, want);

        MPI_Group world_g, even_g;
        MPI_Comm_group(tcomm[t], &world_g);
        int range[1][3] = {{0, size - 1, 2}};
        MPI_Group_range_incl(world_g, 1, range, &even_g);
        if (color == 0) {
            CHECK_MPI(MPI_Comm_create_group(tcomm[t], even_g, 50 + t, &evens));
            int es = 0;
            MPI_Comm_size(evens, &es);
            CHECK(es == (size + 1) / 2, "thread %d: create_group size %d", t, es);
            CHECK_MPI(MPI_Comm_free(&evens));
        }
        MPI_Group_free(&even_g);
        MPI_Group_free(&world_g);

        /* halves joined: leaders are the half's rank 0 (the highest world
         * rank of each color, key -rank), named by their rank in tcomm[t] */
        const int last_even = (size - 1) / 2 * 2, last_odd = size % 2 ? size - 2 : size - 1;
        CHECK_MPI(MPI_Intercomm_create(half, 0, tcomm[t], color ? last_even : last_odd, 60 + t, &inter));
        int rs = 0, lg = 0, ms = 0, mr = -1;
        MPI_Comm_remote_size(inter, &rs);
        CHECK(rs == size - hs, "thread %d: remote size %d", t, rs);
        CHECK_MPI(MPI_Intercomm_merge(inter, color, &merged));
        MPI_Comm_size(merged, &ms);
        MPI_Comm_rank(merged, &mr);
        CHECK(ms == size, "thread %d: merged size %d", t, ms);
        CHECK(color ? mr >= size - hs : mr < hs, "thread %d: merged rank %d (high=%d)", t, mr, color);
        CHECK_MPI(MPI_Allreduce(&rank, &lg, 1, MPI_INT, MPI_SUM, merged));
        CHECK(lg == size * (size - 1) / 2, "thread %d: sum over merged %d", t, lg);
        CHECK_MPI(MPI_Comm_free(&merged));
        CHECK_MPI(MPI_Comm_free(&inter));
        CHECK_MPI(MPI_Comm_free(&half));
    }
    return NULL;
}

/* ---- a local dup beside a dup that waits for another process ------------- */
static pthread_mutex_t self_lock = PTHREAD_MUTEX_INITIALIZER;
static void* self_and_shared(void* arg) {
    const int t = (int)(intptr_t)arg;
    /* rank t's thread t comes late: the other ranks' thread t waits for it
     * in the dup of tcomm[t] while their other threads dup MPI_COMM_SELF */
    if (t == rank % 2) nap_ms(300);
    MPI_Comm self_dup;
    pthread_mutex_lock(&self_lock);
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_SELF, &self_dup));
    pthread_mutex_unlock(&self_lock);
    int s = -1;
    CHECK_MPI(MPI_Comm_size(self_dup, &s));
    CHECK(s == 1, "thread %d: dup of MPI_COMM_SELF has size %d", t, s);
    CHECK_MPI(MPI_Comm_free(&self_dup));
    dup_and_sum(t);
    return NULL;
}

/* ---- passive-target RMA and matched probes, per thread ------------------- */
static void* rma_probe(void* arg) {
    const int t = (int)(intptr_t)arg;
    const int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    long* base;
    MPI_Win win;
    CHECK_MPI(MPI_Win_allocate((MPI_Aint)(size * sizeof(long)), sizeof(long), MPI_INFO_NULL, tcomm[t],
                               &base, &win));
    for (int it = 0; it < 20; ++it) {
        CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, win));
        for (int r = 0; r < size; ++r) base[r] = -1;
        CHECK_MPI(MPI_Win_unlock(rank, win));
        CHECK_MPI(MPI_Barrier(tcomm[t]));
        const long v = rank * 1000 + t * 100 + it;
        CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, next, 0, win));
        CHECK_MPI(MPI_Put(&v, 1, MPI_LONG, next, rank, 1, MPI_LONG, win));
        CHECK_MPI(MPI_Win_unlock(next, win));
        /* the put is done at the target: tell it with a message it probes */
        CHECK_MPI(MPI_Send(&v, 1, MPI_LONG, next, 300 + t, MPI_COMM_WORLD));
        MPI_Message m;
        MPI_Status st;
        long got = 0;
        CHECK_MPI(MPI_Mprobe(prev, 300 + t, MPI_COMM_WORLD, &m, &st));
        CHECK(st.MPI_SOURCE == prev && st.MPI_TAG == 300 + t, "thread %d: mprobe %d/%d", t, st.MPI_SOURCE,
              st.MPI_TAG);
        CHECK_MPI(MPI_Mrecv(&got, 1, MPI_LONG, &m, MPI_STATUS_IGNORE));
        const long want = prev * 1000 + t * 100 + it;
        CHECK(got == want, "thread %d iter %d: message %ld, want %ld", t, it, got, want);
        CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win));
        const long seen = base[prev];
        CHECK_MPI(MPI_Win_unlock(rank, win));
        CHECK(seen == want, "thread %d iter %d: put from %d left %ld, want %ld", t, it, prev, seen, want);
        CHECK_MPI(MPI_Barrier(tcomm[t]));
    }
    CHECK_MPI(MPI_Win_free(&win));
    return NULL;
}

/* ---- a generalized request completed by another thread ------------------- */
static int gq_query(void* extra, MPI_Status* st) {
    (void)extra;
    MPI_Status_set_elements(st, MPI_BYTE, 0);
    MPI_Status_set_cancelled(st, 0);
    st->MPI_SOURCE = MPI_UNDEFINED;
    st->MPI_TAG = MPI_UNDEFINED;
    return MPI_SUCCESS;
}
static int gq_free(void* extra) {
    (void)extra;
    return MPI_SUCCESS;
}
static int gq_cancel(void* extra, int complete) {
    (void)extra;
    (void)complete;
    return MPI_SUCCESS;
}
static void* gq_completer(void* arg) {
    nap_ms(30);
    CHECK_MPI(MPI_Grequest_complete(*(MPI_Request*)arg));
    return NULL;
}

static void run(void* (*fn)(void*), int n) {
    pthread_t th[NT];
    for (int t = 0; t < n; ++t) CHECK(pthread_create(&th[t], NULL, fn, (void*)(intptr_t)t) == 0, "pthread_create");
    for (int t = 0; t < n; ++t) pthread_join(th[t], NULL);
}

static void* is_main(void* arg) {
    int flag = -1;
    CHECK_MPI(MPI_Is_thread_main(&flag));
    *(int*)arg = flag;
    return NULL;
}

int main(int argc, char** argv) {
    int provided = -1;
    CHECK(MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided) == MPI_SUCCESS, "init");
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    mt_rank = rank;
    mt_check_path();
    CHECK(provided == MPI_THREAD_MULTIPLE, "provided %d", provided);
    int q = -1, flag = -1;
    CHECK_MPI(MPI_Query_thread(&q));
    CHECK(q == MPI_THREAD_MULTIPLE, "MPI_Query_thread %d", q);
    CHECK_MPI(MPI_Is_thread_main(&flag));
    CHECK(flag == 1, "main thread: MPI_Is_thread_main %d", flag);
    {
        pthread_t th;
        flag = -1;
        pthread_create(&th, NULL, is_main, &flag);
        pthread_join(th, NULL);
        CHECK(flag == 0, "other thread: MPI_Is_thread_main %d", flag);
    }

    run(ring, NT);
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));

    {
        pthread_t a, b;
        pthread_create(&a, NULL, self_recv, NULL);
        pthread_create(&b, NULL, self_send, NULL);
        pthread_join(a, NULL);
        pthread_join(b, NULL);
    }
    if (rank == 0) {
        pthread_t a, b;
        pthread_create(&a, NULL, wait_reply, NULL);
        pthread_create(&b, NULL, late_request, NULL);
        pthread_join(a, NULL);
        pthread_join(b, NULL);
    } else if (rank == 1) {
        int v = 0;
        CHECK_MPI(MPI_Recv(&v, 1, MPI_INT, 0, 102, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        v += 1;
        CHECK_MPI(MPI_Send(&v, 1, MPI_INT, 0, 101, MPI_COMM_WORLD));
    }
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));

    for (int t = 0; t < NT; ++t) CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &tcomm[t]));
    run(colls, NT);
    run(dups, NT);
    run(constructors, NT);
    run(self_and_shared, 2);
    run(rma_probe, NT);
    for (int t = 0; t < NT; ++t) CHECK_MPI(MPI_Comm_free(&tcomm[t]));

    {
        MPI_Request g;
        pthread_t th;
        CHECK_MPI(MPI_Grequest_start(gq_query, gq_free, gq_cancel, NULL, &g));
        MPI_Request copy = g;
        pthread_create(&th, NULL, gq_completer, &copy);
        CHECK_MPI(MPI_Wait(&g, MPI_STATUS_IGNORE));
        pthread_join(th, NULL);
        CHECK(g == MPI_REQUEST_NULL, "grequest not freed by MPI_Wait");
    }

    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0) printf("threads: %d ranks x %d threads ok\n", size, NT);
    MPI_Finalize();
    return 0;
}
