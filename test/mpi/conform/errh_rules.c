/* SPDX-License-Identifier: MIT */
/* The error-handling chapter (MPI-4.1 §9.3-9.5, §2.8) rule by rule; each
 * rule is checked by the block tagged with it. Rules marked * changed with
 * issue 48. With argument "initial" the program expects to run under
 * `mpiexec -initial-errhandler mpi_errors_return` (or
 * CH4LITE_INITIAL_ERRHANDLER=mpi_errors_return) and checks E12-E14 too.
 *
 * | tag | rule                                                                 | check                                       |
 * |-----|----------------------------------------------------------------------|---------------------------------------------|
 * | E1  | calls not related to an object raise errors on MPI_COMM_SELF (§9.3,  | Type_commit(NULL), Group_incl, Op_free,     |
 * |     | §2.8: "considered attached to MPI_COMM_SELF")                        | Reduce_local, Type_size: SELF's handler     |
 * | E2  | ... not on MPI_COMM_WORLD: a handler set only there is not called    | WORLD's handler counts 0 for those          |
 * | E3  | errors of a communicator call go to its handler, with comm and code  | Send to a bad rank on a dup                 |
 * | E4  | a new communicator inherits its parent's handler                     | dup, split, create, dup of a child         |
 * | E5  | windows do not inherit the initial/communicator handler: they start  | Win_get_errhandler on a window of a comm    |
 * |     | with MPI_ERRORS_ARE_FATAL (§12.6)                                    | whose handler is a user one                 |
 * | E6  | *_GET_ERRHANDLER behaves as if a new handle were created: free it    | get + free, the object keeps its handler    |
 * | E7  | Errhandler_free of a handler in use: deallocated after its objects   | freed, then still called                    |
 * | E8  | Comm/Win_call_errhandler run the handler; SUCCESS when it returns    | user handlers                               |
 * | E9* | a handler of the wrong kind is refused (advice to implementors):    | Win handler on a comm, comm handler on a    |
 * |     | MPI_ERR_ERRHANDLER (MPI-4.1 class); invalid handles likewise        | window, garbage, MPI_ERRHANDLER_NULL        |
 * | E10 | MPI_ERRORS_RETURN: the code comes back, MPI stays usable             | after each error, a Barrier                 |
 * | E11 | every class maps to itself and has a string < MPI_MAX_ERROR_STRING;  | classes 0..MPI_ERR_ABI; codes' strings name |
 * |     | codes map to their class                                             | the function                                |
 * | E12*| initial error handler (§9.3, §11.8.4 mpi_initial_errhandler): WORLD  | "initial": both MPI_ERRORS_RETURN           |
 * |     | and SELF start with it                                               |                                             |
 * | E13*| before MPI_Init / after MPI_Finalize errors raise the initial handler | "initial": MPI_Comm_size before init and    |
 * |     | (§9.3); Error_class/string work then (§11.4.1)                       | after finalize return MPI_ERR_OTHER         |
 * | E14*| a fatal handler's message says which handler of which object ran and | fatal_msg.sh (test list: conform.fatal_*)   |
 * |     | how to get codes back; printed once                                  |                                             | */
#include "mpitest.h"

static int world_calls, self_calls, comm_calls, win_calls, last_code;
static MPI_Comm last_comm;
static MPI_Win last_win;

static void on_world(MPI_Comm* c, int* code, ...) { ++world_calls, last_code = *code, last_comm = *c; }
static void on_self(MPI_Comm* c, int* code, ...) { ++self_calls, last_code = *code, last_comm = *c; }
static void on_comm(MPI_Comm* c, int* code, ...) { ++comm_calls, last_code = *code, last_comm = *c; }
static void on_win(MPI_Win* w, int* code, ...) { ++win_calls, last_code = *code, last_win = *w; }

static int cls_of(int rc) {
    int c = -1;
    MPI_Error_class(rc, &c);
    return c;
}

/* E1/E2: one call that raises on SELF, the class it must give. */
static void objectless(int rc, int want, const char* what) {
    CHECK(rc != MPI_SUCCESS && cls_of(rc) == want, "E1 %s: class %d, expected %d", what, cls_of(rc), want);
    CHECK(self_calls == 1 && world_calls == 0 && last_comm == MPI_COMM_SELF && last_code == rc,
          "E1/E2 %s: SELF's handler %d calls, WORLD's %d", what, self_calls, world_calls);
    self_calls = 0;
}

int main(int argc, char** argv) {
    const int initial = argc > 1 && strcmp(argv[1], "initial") == 0;
    int np, flag;
    if (initial) {
        /* E13: before MPI_Init, errors raise the initial handler (here: returned). */
        const int rc = MPI_Comm_size(MPI_COMM_WORLD, &np);
        CHECK(rc != MPI_SUCCESS && cls_of(rc) == MPI_ERR_OTHER, "E13 MPI_Comm_size before MPI_Init: %d", rc);
        char s[MPI_MAX_ERROR_STRING];
        int len = 0;
        CHECK(MPI_Error_string(MPI_ERR_WIN, s, &len) == MPI_SUCCESS && len > 0, "E13 Error_string before init");
    }
    mt_init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    MPI_Errhandler eh, got;
    if (initial) {
        /* E12 */
        CHECK_MPI(MPI_Comm_get_errhandler(MPI_COMM_WORLD, &got));
        CHECK(got == MPI_ERRORS_RETURN, "E12 WORLD starts with the initial handler");
        CHECK_MPI(MPI_Errhandler_free(&got));
        CHECK_MPI(MPI_Comm_get_errhandler(MPI_COMM_SELF, &got));
        CHECK(got == MPI_ERRORS_RETURN, "E12 SELF starts with the initial handler");
        CHECK_MPI(MPI_Errhandler_free(&got));
        /* an objectless error just returns */
        CHECK(cls_of(MPI_Type_commit(NULL)) == MPI_ERR_ARG || cls_of(MPI_Type_commit(NULL)) == MPI_ERR_TYPE,
              "E12 objectless error under the initial MPI_ERRORS_RETURN");
    }
    MPI_Errhandler hw, hs, hc, hwin;
    CHECK_MPI(MPI_Comm_create_errhandler(on_world, &hw));
    CHECK_MPI(MPI_Comm_create_errhandler(on_self, &hs));
    CHECK_MPI(MPI_Comm_create_errhandler(on_comm, &hc));
    CHECK_MPI(MPI_Win_create_errhandler(on_win, &hwin));
    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, hw));
    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_SELF, hs));

    /* E1, E2 */
    MPI_Datatype dnull = MPI_DATATYPE_NULL;
    objectless(MPI_Type_commit(&dnull), MPI_ERR_TYPE, "MPI_Type_commit(MPI_DATATYPE_NULL)");
    MPI_Group wg, g;
    CHECK_MPI(MPI_Comm_group(MPI_COMM_WORLD, &wg));
    int bad_rank = np + 3;
    objectless(MPI_Group_incl(wg, 1, &bad_rank, &g), MPI_ERR_RANK, "MPI_Group_incl, rank out of range");
    MPI_Op sum = MPI_SUM;
    objectless(MPI_Op_free(&sum), MPI_ERR_OP, "MPI_Op_free(MPI_SUM)");
    int in = 1, io = 2;
    objectless(MPI_Reduce_local(&in, &io, 1, MPI_INT, MPI_OP_NULL), MPI_ERR_OP, "MPI_Reduce_local(MPI_OP_NULL)");
    int sz;
    objectless(MPI_Type_size(MPI_DATATYPE_NULL, &sz), MPI_ERR_TYPE, "MPI_Type_size(MPI_DATATYPE_NULL)");
    /* and an invalid communicator: no object either */
    objectless(MPI_Comm_rank(MPI_COMM_NULL, &sz), MPI_ERR_COMM, "MPI_Comm_rank(MPI_COMM_NULL)");

    /* E3, E4 */
    MPI_Comm d, s, c, i;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &d));
    CHECK_MPI(MPI_Comm_set_errhandler(d, hc));
    int x = 0;
    const int rc = MPI_Send(&x, 1, MPI_INT, np + 1, 0, d);
    CHECK(comm_calls == 1 && last_comm == d && last_code == rc && cls_of(rc) == MPI_ERR_RANK && world_calls == 0,
          "E3 the communicator's handler, with it and the code");
    comm_calls = 0;
    CHECK_MPI(MPI_Comm_split(d, 0, 0, &s));
    CHECK_MPI(MPI_Comm_create(d, wg, &c));
    CHECK_MPI(MPI_Comm_dup(s, &i));
    MPI_Comm kids[3] = {s, c, i};
    for (int k = 0; k < 3; ++k) {
        CHECK_MPI(MPI_Comm_get_errhandler(kids[k], &got));
        CHECK(got == hc, "E4 communicator %d did not inherit its parent's handler", k);
        CHECK_MPI(MPI_Errhandler_free(&got)); /* E6 */
    }
    MPI_Comm d2;
    CHECK_MPI(MPI_Comm_dup(d, &d2));
    CHECK_MPI(MPI_Comm_get_errhandler(d2, &got));
    CHECK(got == hc, "E4 dup");
    CHECK_MPI(MPI_Errhandler_free(&got));

    /* E7: freed while attached; still called */
    CHECK_MPI(MPI_Errhandler_free(&hc));
    CHECK(hc == MPI_ERRHANDLER_NULL, "E7 free resets the handle");
    comm_calls = 0;
    MPI_Send(&x, 1, MPI_INT, -7, 0, d2);
    CHECK(comm_calls == 1, "E7 a freed handler still attached is still called");
    /* E8 */
    comm_calls = 0;
    CHECK(MPI_Comm_call_errhandler(d2, MPI_ERR_OTHER) == MPI_SUCCESS && comm_calls == 1 &&
              last_code == MPI_ERR_OTHER, "E8 Comm_call_errhandler");

    /* E5, E8 for windows */
    int mem[4];
    MPI_Win w;
    CHECK_MPI(MPI_Win_create(mem, sizeof mem, 1, MPI_INFO_NULL, d2, &w));
    CHECK_MPI(MPI_Win_get_errhandler(w, &got));
    CHECK(got == MPI_ERRORS_ARE_FATAL, "E5 a window starts with MPI_ERRORS_ARE_FATAL");
    CHECK_MPI(MPI_Errhandler_free(&got));
    CHECK_MPI(MPI_Win_set_errhandler(w, hwin));
    CHECK(MPI_Win_call_errhandler(w, MPI_ERR_WIN) == MPI_SUCCESS && win_calls == 1 && last_win == w &&
              last_code == MPI_ERR_WIN, "E8 Win_call_errhandler");

    /* E9: wrong kinds and invalid handles; raised on the object itself */
    comm_calls = win_calls = 0;
    int r = MPI_Comm_set_errhandler(d2, hwin);
    CHECK(cls_of(r) == MPI_ERR_ERRHANDLER && comm_calls == 1, "E9 window handler on a communicator: class %d",
          cls_of(r));
    r = MPI_Win_set_errhandler(w, hs);
    CHECK(cls_of(r) == MPI_ERR_ERRHANDLER && win_calls == 1, "E9 communicator handler on a window: class %d",
          cls_of(r));
    r = MPI_Comm_set_errhandler(d2, MPI_ERRHANDLER_NULL);
    CHECK(cls_of(r) == MPI_ERR_ERRHANDLER, "E9 MPI_ERRHANDLER_NULL: class %d", cls_of(r));
    MPI_Errhandler garbage = (MPI_Errhandler)0x4545;
    self_calls = 0;
    r = MPI_Errhandler_free(&garbage);
    CHECK(cls_of(r) == MPI_ERR_ERRHANDLER && self_calls == 1, "E9 Errhandler_free(garbage): class %d", cls_of(r));
    self_calls = 0;
    CHECK_MPI(MPI_Win_free(&w));

    /* E10: after all that, MPI works */
    CHECK_MPI(MPI_Barrier(d2));
    /* E11 */
    for (int k = 0; k <= MPI_ERR_ABI; ++k) {
        int len = 0, kk = -1;
        char str[MPI_MAX_ERROR_STRING];
        CHECK(MPI_Error_class(k, &kk) == MPI_SUCCESS && kk == k, "E11 class of class %d", k);
        CHECK(MPI_Error_string(k, str, &len) == MPI_SUCCESS && len > 0 && len < MPI_MAX_ERROR_STRING,
              "E11 string of class %d", k);
    }
    {
        int len = 0;
        char str[MPI_MAX_ERROR_STRING];
        MPI_Error_string(rc, str, &len);
        CHECK(strstr(str, "MPI_Send") != NULL, "E11 a code's string names its function: %s", str);
    }

    MPI_Comm_free(&s), MPI_Comm_free(&c), MPI_Comm_free(&i), MPI_Comm_free(&d), MPI_Comm_free(&d2);
    MPI_Group_free(&wg);
    MPI_Errhandler_free(&hwin);
    /* Leave WORLD and SELF with the predefined handlers, then free ours. */
    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL));
    MPI_Errhandler_free(&hw), MPI_Errhandler_free(&hs);
    (void)eh, (void)flag;
    MPI_Barrier(MPI_COMM_WORLD);
    if (mt_rank == 0) printf("errh_rules: OK\n");
    MPI_Finalize();
    if (initial) {
        /* E13: after MPI_Finalize, the initial handler again */
        const int rc2 = MPI_Comm_size(MPI_COMM_WORLD, &np);
        if (rc2 == MPI_SUCCESS || cls_of(rc2) != MPI_ERR_OTHER) {
            fprintf(stderr, "FAIL: E13 MPI_Comm_size after MPI_Finalize returned %d\n", rc2);
            return 1;
        }
    }
    return 0;
}
