/* SPDX-License-Identifier: MIT */
/* Every collective on MPI_COMM_WORLD (and MPI_COMM_SELF), checked against
 * sequential results; sizes from 0 to past the long-message algorithms,
 * and large broadcasts.
 * Registered a second time with every CH4LITE_COLL_*_LONG switch point at 0,
 * so the long-message algorithms also run on the small sizes.
 * TEST_SLOW_COPY_RANK=r: world rank r alone (PMI_RANK, before MPI_Init)
 * counts every timed copy of a staged exchange as slow, the others none, so
 * only its flag
 * can send the communicator back to point-to-point: every member must
 * follow it, or the job hangs. The checks then run a second time. */
#include "collcheck.h"

int main(int argc, char** argv) {
    const char* slow = getenv("TEST_SLOW_COPY_RANK");
    const char* me = getenv("PMI_RANK");
    if (slow && me) /* the others never slow, so they can only follow */
        setenv("CH4LITE_COLL_STAGE_SLOW", atoi(slow) == atoi(me) ? "1000000" : "0.000001", 1);
    mt_init(&argc, &argv);
    static const int sizes[] = {0, 1, 3, 17, 1000, 40000};
    check_all(MPI_COMM_WORLD, sizes, 6);
    if (slow) check_all(MPI_COMM_WORLD, sizes, 6); /* after the switch (its large sizes came last) */
    check_all(MPI_COMM_SELF, sizes, 4);
    /* Broadcasts of 3 MiB, back to back from every root: more chunks than
     * the staged broadcast's ring holds, so its root must wait for slow
     * readers before it reuses a slot. */
    for (int k = 0; k < 3; ++k) check_bcast(MPI_COMM_WORLD, 3 << 18);
    MPI_Finalize();
    return 0;
}
