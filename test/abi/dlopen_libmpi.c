/* SPDX-License-Identifier: MIT */
/* dlopen()s each libmpi given on the command line (as Python's mpi4py or a
 * plugin host would load it). libmpi reaches one per-thread pool with
 * initial-exec TLS (src/dame/alloc.cpp), so glibc must place its whole TLS
 * block in the static TLS surplus it reserved at start-up; the test runs
 * with that surplus cut to what glibc sets aside for dlopen()ed modules by
 * default (glibc.rtld.optional_static_tls=512, one namespace). A large
 * thread_local in libmpi fails here with "cannot allocate memory in static
 * TLS block". */
#include <dlfcn.h>
#include <stdio.h>

int main(int argc, char **argv) {
    for (int i = 1; i < argc; ++i) {
        void *h = dlopen(argv[i], RTLD_NOW | RTLD_LOCAL);
        if (!h) {
            printf("FAIL: %s\n", dlerror());
            return 1;
        }
        printf("dlopen %s: ok\n", argv[i]);
        dlclose(h);
    }
    return argc > 1 ? 0 : 2;
}
