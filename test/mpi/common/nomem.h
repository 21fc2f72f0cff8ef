/* SPDX-License-Identifier: MIT */
/* Allocation-failure injection for out-of-memory tests (dt_nomem,
 * obj_nomem). Replaces malloc, calloc and realloc (glibc's __libc_*
 * functions do the work), so libmpi, libstdc++ (operator new) and
 * libfabric see the failures. arm(k) makes the k-th allocation from now
 * fail (once); `failed` counts the failures since. Only the thread that
 * called nomem_init() fails: a library's helper thread (libfabric's
 * progress) is left alone. Include it in one file of a program; not for
 * sanitizer builds, whose interceptors own malloc. */
#ifndef CH4LITE_NOMEM_H
#define CH4LITE_NOMEM_H
#include <pthread.h>
#include <stddef.h>

extern void* __libc_malloc(size_t);
extern void* __libc_calloc(size_t, size_t);
extern void* __libc_realloc(void*, size_t);

static long countdown = -1;   /* allocations left before the one that fails; -1: off */
static long failed = 0;       /* failures injected since the last arm() */
static pthread_t main_thread; /* set by nomem_init(), before MPI_Init starts threads */

static int fail_now(void) {
    if (!pthread_equal(pthread_self(), main_thread) || countdown < 0) return 0;
    if (countdown-- > 0) return 0;
    ++failed; /* one failure, then off */
    return 1;
}
void* malloc(size_t n) { return fail_now() ? NULL : __libc_malloc(n); }
void* calloc(size_t a, size_t b) { return fail_now() ? NULL : __libc_calloc(a, b); }
void* realloc(void* p, size_t n) { return fail_now() ? NULL : __libc_realloc(p, n); }

static void nomem_init(void) { main_thread = pthread_self(); }
static void arm(long k) { failed = 0, countdown = k; }
static void disarm(void) { countdown = -1; }

#endif
