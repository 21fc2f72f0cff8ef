/* SPDX-License-Identifier: MIT */
/* Once MPI_Init returned everywhere, no shared-memory segment of this job is
 * left in /dev/shm (they are unlinked as soon as every local rank attached,
 * so a crash later cannot leak them), yet shm is in use: the version string
 * reports every rank as local, and messages flow. Needs our mpiexec (it
 * exports the job key the segment names start with). */
#include <dirent.h>
#include <unistd.h>

#include "shmtest.h"

static int count_segments(const char* prefix) {
    DIR* d = opendir("/dev/shm");
    CHECK(d != NULL, "cannot open /dev/shm");
    int n = 0;
    struct dirent* e;
    while ((e = readdir(d)) != NULL)
        if (strncmp(e->d_name, prefix, strlen(prefix)) == 0) {
            fprintf(stderr, "left in /dev/shm: %s\n", e->d_name);
            ++n;
        }
    closedir(d);
    return n;
}

int main(int argc, char** argv) {
    mt_init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char* key = getenv("CH4LITE_JOB_KEY");
    CHECK(key != NULL, "CH4LITE_JOB_KEY is not set: run under ch4lite's mpiexec");
    char prefix[128];
    snprintf(prefix, sizeof prefix, "ch4lite-%u-%s-", (unsigned)getuid(), key);
    if (st_shm_on()) {
        char want[64];
        snprintf(want, sizeof want, "shm on (%d local ranks", size);
        CHECK(st_version_has(want), "expected '%s' in: %s", want, st_version());
    } else {
        CHECK(st_version_has("shm off"), "expected shm off: %s", st_version());
    }
    /* Traffic through the segment after its name is gone. */
    int token = rank;
    const int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    CHECK_MPI(MPI_Sendrecv_replace(&token, 1, MPI_INT, next, 3, prev, 3, MPI_COMM_WORLD,
                                   MPI_STATUS_IGNORE));
    CHECK(token == prev, "token %d, expected %d", token, prev);
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    CHECK(count_segments(prefix) == 0, "segments of this job are still named in /dev/shm");
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0) printf("segment_gone: OK\n");
    MPI_Finalize();
    return 0;
}
