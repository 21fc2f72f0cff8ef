/* SPDX-License-Identifier: MIT */
/* Helpers of the shared-memory tests (on top of mpitest.h). */
#ifndef CH4LITE_SHMTEST_H
#define CH4LITE_SHMTEST_H
#include "mpitest.h"

/* The library version string contains `what`. */
static int st_version_has(const char* what) {
    char v[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0;
    MPI_Get_library_version(v, &len);
    return strstr(v, what) != NULL;
}

static const char* st_version(void) {
    static char v[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0;
    MPI_Get_library_version(v, &len);
    return v;
}

/* Whether the test runs with shm on (ctest sets CH4LITE_SHM). */
static int st_shm_on(void) {
    const char* s = getenv("CH4LITE_SHM");
    return !s || strcmp(s, "0") != 0;
}

/* Content of message `seq` from `src`: every byte checkable. */
static void st_fill(unsigned char* p, size_t n, int src, int seq) { mt_fill(p, n, src * 100003 + seq); }
static size_t st_check(const unsigned char* p, size_t n, int src, int seq) {
    return mt_verify(p, n, src * 100003 + seq);
}

#endif
