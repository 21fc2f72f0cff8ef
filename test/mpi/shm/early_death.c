/* SPDX-License-Identifier: MIT */
/* Rank 1 dies by SIGKILL before MPI_Init, while the other ranks are in it:
 * the node's segment has been created by rank 0, which waits for rank 1 at
 * the bootstrap fence, and the launcher ends the job. Nothing may be left
 * in /dev/shm (early_death.sh checks), whichever launcher ran the job:
 * under Hydra nobody cleans up after us. With EARLY_DEATH_WAIT_NAME=1 rank
 * 1 first waits (up to 20 s) for a new ch4lite-<uid>-* name to appear (the
 * named backend's segment), so that it surely dies after its creation. */
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mpi.h>

static int count_names(void) {
    char prefix[64];
    snprintf(prefix, sizeof prefix, "ch4lite-%u-", (unsigned)getuid());
    int n = 0;
    DIR* d = opendir("/dev/shm");
    if (!d) return 0;
    struct dirent* e;
    while ((e = readdir(d)) != NULL) n += strncmp(e->d_name, prefix, strlen(prefix)) == 0;
    closedir(d);
    return n;
}

int main(int argc, char** argv) {
    const char* r = getenv("PMI_RANK");
    if (r && atoi(r) == 1) {
        const char* w = getenv("EARLY_DEATH_WAIT_NAME");
        if (w && atoi(w)) {
            const int before = count_names();
            for (int i = 0; i < 2000 && count_names() <= before; ++i) usleep(10000);
        } else {
            usleep(1500000); /* the others are in MPI_Init by now */
        }
        fprintf(stderr, "early_death: rank 1 dies now\n");
        raise(SIGKILL);
    }
    MPI_Init(&argc, &argv);
    MPI_Finalize(); /* not reached: the job ends during MPI_Init */
    return 0;
}
