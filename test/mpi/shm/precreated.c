/* SPDX-License-Identifier: MIT */
/* A segment name pre-created by someone else neither hijacks nor blocks the
 * job. Before MPI_Init, rank 0 (the creator of its node's segment) plants
 * an object under the first name the library will try,
 * /dev/shm/ch4lite-<uid>-<job key>-0:
 *   file     a world-readable/writable file with junk in it
 *   link     a symbolic link to a file of ours
 *   private  a 0600 file of the right kind and size-ish, as a stale run
 *            could leave
 * The job must come up with shm in use (under another, random name), carry
 * traffic, and leave the planted object (and the link's target) untouched. */
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "shmtest.h"

static char planted[256], target[256];
static const char junk[] = "planted by someone else";

static void plant(const char* how) {
    const char* key = getenv("CH4LITE_JOB_KEY");
    CHECK(key != NULL, "CH4LITE_JOB_KEY is not set: run under ch4lite's mpiexec");
    snprintf(planted, sizeof planted, "/dev/shm/ch4lite-%u-%s-0", (unsigned)getuid(), key);
    snprintf(target, sizeof target, "/dev/shm/ch4lite-test-target-%s", key);
    if (strcmp(how, "link") == 0) {
        int fd = open(target, O_CREAT | O_EXCL | O_WRONLY, 0600);
        CHECK(fd >= 0, "cannot create %s", target);
        CHECK(write(fd, junk, sizeof junk) == (ssize_t)sizeof junk, "write");
        close(fd);
        CHECK(symlink(target, planted) == 0, "cannot plant the link %s", planted);
        return;
    }
    const mode_t mode = strcmp(how, "file") == 0 ? 0666 : 0600;
    int fd = open(planted, O_CREAT | O_EXCL | O_WRONLY, mode);
    CHECK(fd >= 0, "cannot plant %s", planted);
    CHECK(fchmod(fd, mode) == 0, "chmod");
    CHECK(write(fd, junk, sizeof junk) == (ssize_t)sizeof junk, "write");
    close(fd);
}

static void check_untouched(const char* how) {
    struct stat st;
    CHECK(lstat(planted, &st) == 0, "the planted %s is gone", planted);
    const char* file = planted;
    if (strcmp(how, "link") == 0) {
        CHECK(S_ISLNK(st.st_mode), "the planted link is no longer a link");
        file = target;
        CHECK(stat(target, &st) == 0, "the link's target is gone");
    }
    CHECK(S_ISREG(st.st_mode), "%s is no longer a regular file", file);
    CHECK((st.st_mode & 07777) == (strcmp(how, "file") == 0 ? 0666u : 0600u), "mode of %s changed",
          file);
    CHECK(st.st_size == (off_t)sizeof junk, "size of %s changed: %lld", file,
          (long long)st.st_size);
    char got[sizeof junk] = {0};
    int fd = open(file, O_RDONLY);
    CHECK(fd >= 0 && read(fd, got, sizeof got) == (ssize_t)sizeof got, "cannot read %s", file);
    close(fd);
    CHECK(memcmp(got, junk, sizeof junk) == 0, "content of %s changed", file);
}

int main(int argc, char** argv) {
    const char* how = argc > 1 ? argv[1] : "file";
    const char* r = getenv("PMI_RANK");
    const int creator = r && strcmp(r, "0") == 0;
    if (creator) plant(how);
    mt_init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    char want[64];
    snprintf(want, sizeof want, "shm on (%d local ranks", size);
    CHECK(st_version_has(want), "expected '%s' in: %s", want, st_version());
    /* Small and large messages around the ring of ranks. */
    const int n = 1 << 20;
    unsigned char* sbuf = malloc(n);
    unsigned char* rbuf = malloc(n);
    CHECK(sbuf && rbuf, "malloc");
    const int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    for (int len = 1; len <= n; len *= 32) {
        st_fill(sbuf, (size_t)len, rank, len);
        CHECK_MPI(MPI_Sendrecv(sbuf, len, MPI_BYTE, next, 1, rbuf, len, MPI_BYTE, prev, 1,
                               MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        size_t bad = st_check(rbuf, (size_t)len, prev, len);
        CHECK(bad == 0, "%d bytes from %d: byte %zu differs", len, prev, bad - 1);
    }
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    if (creator) {
        check_untouched(how);
        unlink(planted);
        if (strcmp(how, "link") == 0) unlink(target);
        printf("precreated %s: OK\n", how);
    }
    free(sbuf);
    free(rbuf);
    MPI_Finalize();
    return 0;
}
