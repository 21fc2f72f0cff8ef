/* SPDX-License-Identifier: MIT */
/* Buffered mode (MPI-4.1 §3.6): MPI_Bsend, MPI_Ibsend, MPI_Bsend_init,
 * MPI_Buffer_attach / detach / flush / iflush, the communicator forms and
 * MPI_BUFFER_AUTOMATIC.
 *  - no buffer, or one too small: MPI_ERR_BUFFER, and the buffer's
 *    bookkeeping intact (a message that fits still goes; the space comes
 *    back); attaching twice: MPI_ERR_BUFFER;
 *  - a window of buffered messages of 3 B .. 64 KiB (eager and rendezvous)
 *    sent before the receiver posts anything, received and checked, many
 *    rounds over one buffer sized by MPI_BSEND_OVERHEAD: the space comes back;
 *  - order: Bsend, Send, Bsend_init, Isend, Ibsend to one peer and tag
 *    arrive in that order;
 *  - noncontiguous (vector) buffered messages into a contiguous receive;
 *  - MPI_Buffer_detach blocks until a pending rendezvous message is
 *    received, and returns the address and size attached;
 *  - MPI_Buffer_iflush / MPI_Buffer_flush / MPI_Comm_iflush_buffer complete
 *    when the pending messages have left;
 *  - a communicator's buffer is used for its messages, the process's for
 *    others; MPI_BUFFER_AUTOMATIC takes any message.
 * Argument: rounds (default 20). */
#include "mpitest.h"

static void expect_class(int rc, int cls, const char* what) {
    int c = MPI_SUCCESS;
    MPI_Error_class(rc, &c);
    CHECK(c == cls, "%s: error class %d, expected %d", what, c, cls);
}

enum { NMSG = 6 };
static const int sizes[NMSG] = {3, 100, 1000, 8000, 30000, 65536};

int main(int argc, char** argv) {
    mt_init(&argc, &argv);
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int me = mt_rank, right = (me + 1) % size, left = (me + size - 1) % size;
    const int rounds = argc > 1 ? atoi(argv[1]) : 20;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);

    /* no buffer attached */
    {
        int x = 1;
        expect_class(MPI_Bsend(&x, 1, MPI_INT, right, 1, MPI_COMM_WORLD), MPI_ERR_BUFFER,
                     "Bsend with no buffer");
        void* b = (void*)1;
        int n = 5;
        CHECK_MPI(MPI_Buffer_detach(&b, &n));
        CHECK(b == NULL && n == 0, "detach with nothing attached gave %p %d", b, n);
    }

    /* one buffer sized for the whole window, reused every round */
    int total = 0;
    for (int k = 0; k < NMSG; ++k) total += sizes[k] + MPI_BSEND_OVERHEAD;
    char* attach = malloc((size_t)total);
    CHECK_MPI(MPI_Buffer_attach(attach, total));
    expect_class(MPI_Buffer_attach(attach, total), MPI_ERR_BUFFER, "second MPI_Buffer_attach");
    char* sb = malloc(65536);
    char* rb = malloc(65536);
    for (int it = 0; it < rounds; ++it) {
        for (int k = 0; k < NMSG; ++k) {
            mt_fill(sb, (size_t)sizes[k], me * 100 + it * 7 + k);
            CHECK_MPI(MPI_Bsend(sb, sizes[k], MPI_CHAR, right, k, MPI_COMM_WORLD));
            memset(sb, 0, (size_t)sizes[k]); /* the message was copied: the buffer is ours */
        }
        MPI_Barrier(MPI_COMM_WORLD); /* every message buffered before anyone receives */
        for (int k = 0; k < NMSG; ++k) {
            MPI_Status st;
            memset(rb, 0, (size_t)sizes[k]);
            CHECK_MPI(MPI_Recv(rb, sizes[k], MPI_CHAR, left, k, MPI_COMM_WORLD, &st));
            size_t bad = mt_verify(rb, (size_t)sizes[k], left * 100 + it * 7 + k);
            CHECK(bad == 0, "round %d message %d (%d B): byte %zu wrong", it, k, sizes[k], bad - 1);
            int cnt = -1;
            MPI_Get_count(&st, MPI_CHAR, &cnt);
            CHECK(cnt == sizes[k] && st.MPI_SOURCE == left && st.MPI_TAG == k, "status %d %d %d", cnt,
                  st.MPI_SOURCE, st.MPI_TAG);
        }
        CHECK_MPI(MPI_Buffer_flush()); /* our rendezvous messages have left */
    }

    /* too small for one message: error, and the buffer still works */
    {
        expect_class(MPI_Bsend(sb, total, MPI_CHAR, right, 9, MPI_COMM_WORLD), MPI_ERR_BUFFER,
                     "Bsend larger than the buffer");
        int v = me + 40, w = -1;
        CHECK_MPI(MPI_Bsend(&v, 1, MPI_INT, right, 9, MPI_COMM_WORLD));
        CHECK_MPI(MPI_Recv(&w, 1, MPI_INT, left, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK(w == left + 40, "after the error: %d", w);
    }

    /* order: Bsend, Send, Bsend_init, Isend, Ibsend; a vector in between */
    {
        MPI_Datatype vec;
        MPI_Type_vector(5, 1, 2, MPI_INT, &vec);
        MPI_Type_commit(&vec);
        int v[10], a = 1, b = 2, c = 3, d = 4, e = 5;
        for (int i = 0; i < 10; ++i) v[i] = me * 10 + i;
        MPI_Request ps, is, ib;
        CHECK_MPI(MPI_Bsend_init(&c, 1, MPI_INT, right, 7, MPI_COMM_WORLD, &ps));
        CHECK_MPI(MPI_Bsend(&a, 1, MPI_INT, right, 7, MPI_COMM_WORLD));
        CHECK_MPI(MPI_Bsend(v, 1, vec, right, 8, MPI_COMM_WORLD));
        CHECK_MPI(MPI_Send(&b, 1, MPI_INT, right, 7, MPI_COMM_WORLD)); /* eager: returns */
        CHECK_MPI(MPI_Start(&ps));
        CHECK_MPI(MPI_Isend(&d, 1, MPI_INT, right, 7, MPI_COMM_WORLD, &is));
        CHECK_MPI(MPI_Ibsend(&e, 1, MPI_INT, right, 7, MPI_COMM_WORLD, &ib));
        int flag = 0;
        CHECK_MPI(MPI_Test(&ib, &flag, MPI_STATUS_IGNORE));
        CHECK(flag, "MPI_Ibsend's request is not complete at once");
        CHECK_MPI(MPI_Wait(&ps, MPI_STATUS_IGNORE));
        int got[5], vr[5];
        for (int i = 0; i < 5; ++i)
            CHECK_MPI(MPI_Recv(&got[i], 1, MPI_INT, left, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK_MPI(MPI_Recv(vr, 5, MPI_INT, left, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        for (int i = 0; i < 5; ++i) {
            CHECK(got[i] == i + 1, "order: message %d is %d", i, got[i]);
            CHECK(vr[i] == left * 10 + 2 * i, "vector element %d: %d", i, vr[i]);
        }
        CHECK_MPI(MPI_Wait(&is, MPI_STATUS_IGNORE));
        for (int it = 0; it < 5; ++it) { /* the persistent buffered send again */
            c = 100 + it;
            CHECK_MPI(MPI_Start(&ps));
            CHECK_MPI(MPI_Wait(&ps, MPI_STATUS_IGNORE));
            int w = 0;
            CHECK_MPI(MPI_Recv(&w, 1, MPI_INT, left, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            CHECK(w == 100 + it, "Bsend_init restart %d: %d", it, w);
        }
        CHECK_MPI(MPI_Request_free(&ps));
        MPI_Type_free(&vec);
    }

    /* detach waits for a pending rendezvous message; iflush */
    {
        void* b = NULL;
        int n = 0;
        if (me == 0 && size > 1) {
            mt_fill(sb, 65536, 77);
            CHECK_MPI(MPI_Bsend(sb, 65536, MPI_CHAR, 1, 20, MPI_COMM_WORLD));
            MPI_Request fr;
            CHECK_MPI(MPI_Buffer_iflush(&fr));
            CHECK_MPI(MPI_Send(&n, 0, MPI_INT, 1, 21, MPI_COMM_WORLD)); /* now receive it */
            CHECK_MPI(MPI_Wait(&fr, MPI_STATUS_IGNORE));
            CHECK_MPI(MPI_Bsend(sb, 65536, MPI_CHAR, 1, 20, MPI_COMM_WORLD));
            CHECK_MPI(MPI_Send(&n, 0, MPI_INT, 1, 21, MPI_COMM_WORLD));
        } else if (me == 1) {
            for (int i = 0; i < 2; ++i) {
                CHECK_MPI(MPI_Recv(&n, 0, MPI_INT, 0, 21, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
                memset(rb, 0, 65536);
                CHECK_MPI(MPI_Recv(rb, 65536, MPI_CHAR, 0, 20, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
                CHECK(mt_verify(rb, 65536, 77) == 0, "flushed message %d corrupt", i);
            }
        }
        CHECK_MPI(MPI_Buffer_detach(&b, &n)); /* rank 0: waits for the second one */
        CHECK(b == attach && n == total, "detach gave %p %d, attached %p %d", b, n, (void*)attach, total);
        expect_class(MPI_Bsend(&n, 1, MPI_INT, right, 22, MPI_COMM_WORLD), MPI_ERR_BUFFER,
                     "Bsend after detach");
    }

    /* a communicator's buffer; MPI_BUFFER_AUTOMATIC for the process */
    {
        MPI_Comm dup;
        MPI_Comm_dup(MPI_COMM_WORLD, &dup);
        MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN);
        char cbuf[256 + MPI_BSEND_OVERHEAD];
        CHECK_MPI(MPI_Comm_attach_buffer(dup, cbuf, (int)sizeof cbuf));
        int v = me, w = -1;
        CHECK_MPI(MPI_Bsend(&v, 1, MPI_INT, right, 30, dup));
        expect_class(MPI_Bsend(&v, 1, MPI_INT, right, 30, MPI_COMM_WORLD), MPI_ERR_BUFFER,
                     "Bsend on a communicator without a buffer");
        CHECK_MPI(MPI_Recv(&w, 1, MPI_INT, left, 30, dup, MPI_STATUS_IGNORE));
        CHECK(w == left, "communicator buffer: %d", w);
        MPI_Request fr;
        CHECK_MPI(MPI_Comm_iflush_buffer(dup, &fr));
        CHECK_MPI(MPI_Wait(&fr, MPI_STATUS_IGNORE));
        CHECK_MPI(MPI_Comm_flush_buffer(dup));
        CHECK_MPI(MPI_Buffer_attach(MPI_BUFFER_AUTOMATIC, 0));
        for (int k = 0; k < NMSG; ++k) {
            mt_fill(sb, (size_t)sizes[k], 300 + k);
            CHECK_MPI(MPI_Bsend(sb, sizes[k], MPI_CHAR, right, 31, MPI_COMM_WORLD));
        }
        for (int k = 0; k < NMSG; ++k) {
            CHECK_MPI(MPI_Recv(rb, sizes[k], MPI_CHAR, left, 31, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            CHECK(mt_verify(rb, (size_t)sizes[k], 300 + k) == 0, "automatic buffer message %d", k);
        }
        void* b = NULL;
        MPI_Count n = -1;
        CHECK_MPI(MPI_Buffer_detach_c(&b, &n));
        CHECK(b == MPI_BUFFER_AUTOMATIC && n == 0, "automatic detach gave %p %lld", b, (long long)n);
        int ni = -1;
        CHECK_MPI(MPI_Comm_detach_buffer(dup, &b, &ni));
        CHECK(b == cbuf && ni == (int)sizeof cbuf, "communicator detach gave %p %d", b, ni);
        MPI_Comm_free(&dup);
        /* freeing a communicator detaches its buffer: a new one has none */
        for (int k = 0; k < 3; ++k) {
            MPI_Comm d2;
            MPI_Comm_dup(MPI_COMM_WORLD, &d2);
            MPI_Comm_set_errhandler(d2, MPI_ERRORS_RETURN);
            expect_class(MPI_Bsend(&v, 1, MPI_INT, right, 32, d2), MPI_ERR_BUFFER,
                         "Bsend on a new communicator");
            CHECK_MPI(MPI_Comm_attach_buffer(d2, cbuf, (int)sizeof cbuf));
            CHECK_MPI(MPI_Bsend(&v, 1, MPI_INT, right, 32, d2));
            CHECK_MPI(MPI_Recv(&w, 1, MPI_INT, left, 32, d2, MPI_STATUS_IGNORE));
            MPI_Comm_free(&d2); /* with the buffer attached */
        }
    }
    free(attach);
    free(sb);
    free(rb);
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == 0) printf("bsend: OK\n");
    MPI_Finalize();
    return 0;
}
