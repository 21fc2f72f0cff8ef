/* SPDX-License-Identifier: MIT */
/* Minimal harness for MPI test programs (plain C, also builds against other
 * MPIs). A failed check prints file:line, rank and message, then aborts the
 * job, so mpiexec exits non-zero and ctest reports the failure. */
#ifndef CH4LITE_MPITEST_H
#define CH4LITE_MPITEST_H
#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int mt_rank = -1;

static void mt_fail(const char* file, int line, const char* fmt, ...) {
    va_list ap;
    fprintf(stderr, "FAIL %s:%d rank %d: ", file, line, mt_rank);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\n");
    fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 1);
    exit(1);
}

#define CHECK(cond, ...) \
    do { if (!(cond)) mt_fail(__FILE__, __LINE__, __VA_ARGS__); } while (0)
#define CHECK_MPI(call)                                                        \
    do {                                                                       \
        int mt_rc_ = (call);                                                   \
        if (mt_rc_ != MPI_SUCCESS) {                                           \
            char mt_s_[MPI_MAX_ERROR_STRING]; int mt_l_ = 0;                   \
            MPI_Error_string(mt_rc_, mt_s_, &mt_l_);                           \
            mt_fail(__FILE__, __LINE__, "%s returned %d: %s", #call, mt_rc_, mt_s_); \
        }                                                                      \
    } while (0)

/* Checks that we run against the libmpi variant ctest asked for
 * (CH4LITE_EXPECT_PATH=tagged|am|ucx|ucx_am), so a wrong LD_LIBRARY_PATH cannot make a
 * test silently exercise the other path. */
static void mt_check_path(void) {
#ifdef CH4LITE
    const char* want = getenv("CH4LITE_EXPECT_PATH");
    char v[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0;
    if (!want) return;
    MPI_Get_library_version(v, &len);
    if (strcmp(want, "am") == 0 || strcmp(want, "ucx_am") == 0)
        CHECK(strstr(v, "active-message path") != NULL, "expected the AM path, library says: %s", v);
    else if (strcmp(want, "tagged") == 0 || strcmp(want, "ucx") == 0)
        CHECK(strstr(v, "native tagged path") != NULL, "expected the tagged path, library says: %s", v);
    if (strncmp(want, "ucx", 3) == 0)
        CHECK(strstr(v, "netmod ucx") != NULL, "expected the ucx netmod, library says: %s", v);
#endif
}

/* Whether a truncated receive leaves the message's first bytes in the
 * buffer (MPI leaves the buffer's content open on overflow). Every path
 * does, except the ucx netmod's native tagged one: UCX copies nothing of a
 * message too long for the receive (docs/netmod-ucx.md). */
static int mt_truncation_keeps_data(void) {
#ifdef CH4LITE
    char v[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0;
    MPI_Get_library_version(v, &len);
    return !(strstr(v, "netmod ucx") && strstr(v, "native tagged path") &&
             !strstr(v, "matched in the device"));
#else
    return 1;
#endif
}

static void mt_init(int* argc, char*** argv) {
    MPI_Init(argc, argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &mt_rank);
    mt_check_path();
}

/* True under `make check-full` (CH4LITE_TEST_FULL=1): soak and large tests
 * run their long form then, a short one in `make check` (docs/testing.md). */
static int mt_full(void) {
    const char* v = getenv("CH4LITE_TEST_FULL");
    return v && *v && strcmp(v, "0") != 0;
}

/* Deterministic fill so receivers can verify every byte. */
static unsigned char mt_byte(long long i, int seed) {
    return (unsigned char)((i * 131 + seed * 7 + (i >> 8)) & 0xff);
}
static void mt_fill(void* buf, size_t n, int seed) {
    unsigned char* p = (unsigned char*)buf;
    for (size_t i = 0; i < n; ++i) p[i] = mt_byte((long long)i, seed);
}
static size_t mt_verify(const void* buf, size_t n, int seed) {
    const unsigned char* p = (const unsigned char*)buf;
    for (size_t i = 0; i < n; ++i)
        if (p[i] != mt_byte((long long)i, seed)) return i + 1;
    return 0;
}

#endif
