/* SPDX-License-Identifier: MIT */
/* The netmod is opened, and libfabric loaded, only when some rank of the job
 * is outside this node's shared-memory segment (docs/netmod-ofi.md,
 * "LOADING LIBFABRIC"): with shm on and one node (a 1-rank job included) it
 * stays closed; with shm off, nodes of fewer ranks than the job (-ppn, which
 * the test harness announces in CH4LITE_TEST_PPN) or CH4LITE_NETMOD_ALWAYS=1
 * it is opened. Either way every rank exchanges messages with every rank,
 * itself included, and signal handlers installed before MPI_Init are still
 * in place after it (libinfinipath, which libfabric loads, installs its
 * own). */
#include <signal.h>

#include "mpitest.h"

static void on_signal(int sig) { (void)sig; }

static int env_is(const char* name, const char* value) {
    const char* e = getenv(name);
    return e && strcmp(e, value) == 0;
}

/* Whether this process has libfabric mapped. */
static int libfabric_loaded(void) {
    FILE* f = fopen("/proc/self/maps", "r");
    char line[4096];
    int found = 0;
    CHECK(f != NULL, "cannot open /proc/self/maps");
    while (!found && fgets(line, sizeof line, f)) found = strstr(line, "libfabric.so") != NULL;
    fclose(f);
    return found;
}

int main(int argc, char** argv) {
    struct sigaction mine, got;
    memset(&mine, 0, sizeof mine);
    mine.sa_handler = on_signal;
    sigemptyset(&mine.sa_mask);
    CHECK(sigaction(SIGSEGV, &mine, NULL) == 0 && sigaction(SIGTERM, &mine, NULL) == 0,
          "cannot install the test's handlers");
    mt_init(&argc, &argv);
    int size = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    const int ppn = getenv("CH4LITE_TEST_PPN") ? atoi(getenv("CH4LITE_TEST_PPN")) : 0;
    const int one_node = ppn == 0 || ppn >= size;
    const int closed = !env_is("CH4LITE_SHM", "0") && one_node && !env_is("CH4LITE_NETMOD_ALWAYS", "1");
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0;
    CHECK_MPI(MPI_Get_library_version(lib, &len));
    const int says_closed = strstr(lib, "provider not opened") != NULL;
    CHECK(says_closed == closed, "expected the netmod %s (size %d, ppn %d), library says: %s",
          closed ? "closed" : "opened", size, ppn, lib);
    /* The ofi netmod loads libfabric when it opens (ucx links UCX; stub has
     * no library). */
    if (strstr(lib, "netmod ofi"))
        CHECK(libfabric_loaded() == !closed, "libfabric %s, the netmod %s",
              libfabric_loaded() ? "loaded" : "not loaded", closed ? "closed" : "opened");

    for (int sig = SIGSEGV; sig; sig = sig == SIGSEGV ? SIGTERM : 0) {
        CHECK(sigaction(sig, NULL, &got) == 0 && got.sa_handler == on_signal,
              "signal %d: the handler installed before MPI_Init was replaced", sig);
    }

    /* Every rank to every rank, itself included, eager and rendezvous. */
    const int counts[] = {1, 1 << 16};
    for (int c = 0; c < 2; ++c) {
        const int n = counts[c];
        int* out = malloc((size_t)n * sizeof(int));
        int* in = malloc((size_t)n * size * sizeof(int));
        CHECK(out && in, "out of memory");
        for (int i = 0; i < n; ++i) out[i] = mt_rank * 1000003 + i;
        MPI_Request* rq = malloc(2 * (size_t)size * sizeof(MPI_Request));
        CHECK(rq != NULL, "out of memory");
        for (int p = 0; p < size; ++p) {
            CHECK_MPI(MPI_Irecv(in + (size_t)p * n, n, MPI_INT, p, c, MPI_COMM_WORLD, &rq[p]));
            CHECK_MPI(MPI_Isend(out, n, MPI_INT, p, c, MPI_COMM_WORLD, &rq[size + p]));
        }
        CHECK_MPI(MPI_Waitall(2 * size, rq, MPI_STATUSES_IGNORE));
        for (int p = 0; p < size; ++p)
            for (int i = 0; i < n; ++i)
                CHECK(in[(size_t)p * n + i] == p * 1000003 + i, "count %d: word %d from rank %d is %d", n, i,
                      p, in[(size_t)p * n + i]);
        free(rq);
        free(in);
        free(out);
    }
    CHECK_MPI(MPI_Finalize());
    if (mt_rank == 0) printf("netmod_open: OK (%s)\n", closed ? "closed" : "opened");
    return 0;
}
