/* SPDX-License-Identifier: MIT */
/* Environment functions: init state, thread levels, versions, the library
 * string, timers, processor name, status accessors, handle <-> int
 * conversions. Runs under mpiexec and as a singleton. */
#include <unistd.h>

#include "mpitest.h"

int main(int argc, char** argv) {
    int flag = -1, provided = -1;
    CHECK_MPI(MPI_Initialized(&flag));
    CHECK(flag == 0, "initialized before MPI_Init");
    int v = 0, sv = -1;
    CHECK_MPI(MPI_Get_version(&v, &sv)); /* callable before init */
    CHECK(v == MPI_VERSION && sv == MPI_SUBVERSION, "version %d.%d", v, sv);
    CHECK_MPI(MPI_Abi_get_version(&v, &sv));
    CHECK(v == 1 && sv == 0, "abi version %d.%d", v, sv);
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0;
    CHECK_MPI(MPI_Get_library_version(lib, &len));
    CHECK(strncmp(lib, "ch4lite", 7) == 0 && len == (int)strlen(lib), "library version '%s'", lib);

    CHECK_MPI(MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided));
    mt_rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &mt_rank);
    mt_check_path();
    CHECK(provided == MPI_THREAD_MULTIPLE, "provided %d, expected MULTIPLE (every level is provided)", provided);
    CHECK_MPI(MPI_Query_thread(&v));
    CHECK(v == provided, "query_thread %d", v);
    CHECK_MPI(MPI_Is_thread_main(&flag));
    CHECK(flag == 1, "is_thread_main");
    CHECK_MPI(MPI_Initialized(&flag));
    CHECK(flag == 1, "not initialized after MPI_Init_thread");
    CHECK_MPI(MPI_Finalized(&flag));
    CHECK(flag == 0, "finalized too early");

    CHECK_MPI(MPI_Get_library_version(lib, &len));
    CHECK(strstr(lib, "netmod ofi") && strstr(lib, "provider ") && strstr(lib, "shm "),
          "library version lacks netmod/provider/shm: %s", lib);
    char name[MPI_MAX_PROCESSOR_NAME], host[256];
    CHECK_MPI(MPI_Get_processor_name(name, &len));
    gethostname(host, sizeof host);
    CHECK(strcmp(name, host) == 0 && len == (int)strlen(name), "processor name '%s'", name);

    const double t0 = MPI_Wtime(), tick = MPI_Wtick();
    CHECK(tick > 0 && tick < 1e-3, "Wtick %g", tick);
    usleep(20000);
    const double dt = MPI_Wtime() - t0;
    CHECK(dt >= 0.019 && dt < 5.0, "Wtime advanced %g s over a 20 ms sleep", dt);

    MPI_Status st;
    CHECK_MPI(MPI_Status_set_source(&st, 3));
    CHECK_MPI(MPI_Status_set_tag(&st, 77));
    CHECK_MPI(MPI_Status_set_error(&st, MPI_ERR_TAG));
    CHECK_MPI(MPI_Status_set_cancelled(&st, 1));
    int s = 0, t = 0, e = 0;
    CHECK_MPI(MPI_Status_get_source(&st, &s));
    CHECK_MPI(MPI_Status_get_tag(&st, &t));
    CHECK_MPI(MPI_Status_get_error(&st, &e));
    CHECK_MPI(MPI_Test_cancelled(&st, &flag));
    CHECK(s == 3 && t == 77 && e == MPI_ERR_TAG && flag == 1, "status accessors");

    CHECK(MPI_Comm_fromint(MPI_Comm_toint(MPI_COMM_WORLD)) == MPI_COMM_WORLD, "comm toint");
    CHECK(MPI_Comm_toint(MPI_COMM_WORLD) == 0x101, "toint(WORLD) = %#x", MPI_Comm_toint(MPI_COMM_WORLD));
    CHECK(MPI_Type_fromint(MPI_Type_toint(MPI_DOUBLE)) == MPI_DOUBLE, "type toint");
    CHECK(MPI_Errhandler_fromint(MPI_Errhandler_toint(MPI_ERRORS_RETURN)) == MPI_ERRORS_RETURN, "eh toint");
    MPI_Request r;
    CHECK_MPI(MPI_Irecv(&v, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &r));
    MPI_Request r2 = MPI_Request_fromint(MPI_Request_toint(r));
    CHECK(r2 == r, "request toint round trip");
    CHECK_MPI(MPI_Wait(&r2, MPI_STATUS_IGNORE));

    CHECK_MPI(MPI_Finalize());
    CHECK_MPI(MPI_Finalized(&flag));
    CHECK(flag == 1, "not finalized after MPI_Finalize");
    if (mt_rank == 0) printf("env: OK\n");
    return 0;
}
