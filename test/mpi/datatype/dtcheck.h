/* SPDX-License-Identifier: MIT */
/* Checks for the datatype programs (plain C: they also build against other MPIs). */
#ifndef DTCHECK_H
#define DTCHECK_H
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int dt_failures = 0;
#define EXPECT(cond, ...)                                               \
    do {                                                                \
        if (!(cond)) {                                                  \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);        \
            fprintf(stderr, __VA_ARGS__);                               \
            fprintf(stderr, "\n");                                      \
            ++dt_failures;                                              \
        }                                                               \
    } while (0)
#define OK(call)                                                                    \
    do {                                                                            \
        int rc_ = (call);                                                           \
        if (rc_ != MPI_SUCCESS) {                                                   \
            char s_[MPI_MAX_ERROR_STRING];                                          \
            int l_ = 0;                                                             \
            MPI_Error_string(rc_, s_, &l_);                                         \
            fprintf(stderr, "FAIL %s:%d: %s -> %d %s\n", __FILE__, __LINE__, #call, rc_, s_); \
            MPI_Abort(MPI_COMM_WORLD, 1);                                           \
        }                                                                           \
    } while (0)

/* The error class of a return code. */
static inline int dt_class(int rc) {
    int c = rc;
    MPI_Error_class(rc, &c);
    return c;
}
#define EXPECT_CLASS(call, want)                                                          \
    do {                                                                                  \
        int c_ = dt_class(call);                                                          \
        EXPECT(c_ == (want), "%s: class %d, want %d (%s)", #call, c_, (want), #want);     \
    } while (0)

static int dt_finish(const char* name) {
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) printf("%s: %s (%d failures)\n", name, dt_failures ? "FAILED" : "ok", dt_failures);
    MPI_Finalize();
    return dt_failures ? 1 : 0;
}
#endif
