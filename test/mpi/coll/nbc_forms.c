/* SPDX-License-Identifier: MIT */
/* Every nonblocking (MPI_I...) and persistent (..._init) collective checked
 * against sequential results, by running the blocking checks of
 * collcheck.h (every root, MPI_IN_PLACE wherever MPI allows it, uneven
 * v-counts, sizes past the long-message switch points) with each blocking
 * call replaced by one of the other forms:
 *   form 0  MPI_I<coll> + MPI_Wait
 *   form 1  MPI_I<coll>, then MPI_Test until done, with computation between
 *   form 2  MPI_<coll>_init + MPI_Start + MPI_Wait + MPI_Request_free
 *   form 3  MPI_<coll>_init, MPI_Start/MPI_Wait twice with the inputs
 *           restored in between (the schedule reused), MPI_Request_free
 * (nbcwrap.h). argv[1]: the forms to run (digits, default all), argv[2]:
 * how many sizes. Also on a split communicator with an irregular rank map. */
#include "nbcwrap.h"
#include "collcheck.h"
#undef MPI_Barrier

int main(int argc, char** argv) {
    mt_init(&argc, &argv);
    int me, p;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    static const int sizes[] = {0, 1, 17, 1000, 40000};
    /* argv[1]: the forms to run ("02": 0 and 2; default all); argv[2]:
     * how many of the sizes (default 5: up to 40000 ints). */
    const char* forms = argc > 1 ? argv[1] : "0123";
    const int nsizes = argc > 2 ? atoi(argv[2]) : 5;
    /* Irregular: odd ranks first, in reverse order. */
    MPI_Comm odd;
    MPI_Comm_split(MPI_COMM_WORLD, 0, (me % 2 ? -me : me + p), &odd);
    for (g_form = 0; g_form < 4; ++g_form) {
        if (!strchr(forms, '0' + g_form)) continue;
        check_all(MPI_COMM_WORLD, sizes, nsizes);
        check_all(MPI_COMM_SELF, sizes, nsizes < 3 ? nsizes : 3);
        check_all(odd, sizes, nsizes < 4 ? nsizes : 4);
    }
    MPI_Comm_free(&odd);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
