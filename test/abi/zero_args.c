/* SPDX-License-Identifier: MIT
 * Every function mpi.h declares, called with every argument 0 (calls.h is
 * generated from include/mpi_proto.h by gen_calls.sh, so a new function is
 * swept without editing this file). A 0 handle is not a valid handle in the
 * standard ABI (MPI_COMM_NULL is 0x100), so nearly every call is bad input.
 *
 *   zero_args pre       call each function before MPI_Init, in a forked
 *                       child: it must end the child through the initial
 *                       error handler with "<its name>: called before
 *                       MPI_Init" (naming the MPI function, not an internal
 *                       helper), unless MPI allows it at any time (then it
 *                       must return)
 *   zero_args all       MPI_Init, MPI_ERRORS_RETURN on MPI_COMM_WORLD and
 *                       MPI_COMM_SELF, then every function (but those that
 *                       end or start MPI): none may crash, each must return
 *                       an error whose class is valid and whose text names
 *                       the function (MPI_Waitall and MPI_Startall, for which all-zero
 *                       arguments are valid, must succeed; conversions and
 *                       timers return values); MPI stays usable.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

typedef int (*call_fn)(void);
struct entry {
    const char* name;
    call_fn fn;
};

#define CALL(f, args) \
    static int call_##f(void) { return (int)(intptr_t)f args; }
#include "calls.h"
#undef CALL
#define CALL(f, args) {#f, call_##f},
static const struct entry table[] = {
#include "calls.h"
};
#undef CALL
static const int ntable = (int)(sizeof table / sizeof table[0]);

static int in_list(const char* name, const char* const* list) {
    for (; *list; ++list)
        if (strcmp(name, *list) == 0) return 1;
    return 0;
}

/* Callable before MPI_Init and after MPI_Finalize: those MPI lists, and the
 * address functions and timers, which ch4lite (like MPICH) also allows. */
static const char* const anytime[] = {
    "MPI_Initialized",  "MPI_Finalized",   "MPI_Get_version", "MPI_Get_library_version",
    "MPI_Abi_get_version", "MPI_Error_class", "MPI_Error_string", "MPI_Get_address",
    "MPI_Aint_add",     "MPI_Aint_diff",   "MPI_Wtime",       "MPI_Wtick",
    /* MPI-4.1 §11.4.1: the info functions (for the Sessions model) */
    "MPI_Info_create", "MPI_Info_create_env", "MPI_Info_dup", "MPI_Info_free", "MPI_Info_set",
    "MPI_Info_delete", "MPI_Info_get", "MPI_Info_get_string", "MPI_Info_get_valuelen",
    "MPI_Info_get_nkeys", "MPI_Info_get_nthkey", NULL};
/* Not swept: they start MPI, end it or end the process. */
static const char* const skip_all[] = {"MPI_Init", "MPI_Init_thread", "MPI_Finalize", "MPI_Abort",
                                       NULL};
/* All-zero arguments are valid input for this one: it must succeed. */
static const char* const zero_ok[] = {"MPI_Waitall", "MPI_Startall", NULL};
/* These return a value, not an error code: they must only not crash. */
static int returns_value(const char* name) {
    static const char* const value_fns[] = {"MPI_Wtime", "MPI_Wtick", "MPI_Aint_add",
                                            "MPI_Aint_diff", NULL};
    const size_t n = strlen(name);
    return in_list(name, value_fns) || (n > 6 && strcmp(name + n - 6, "_toint") == 0) ||
           (n > 8 && strcmp(name + n - 8, "_fromint") == 0);
}

static int sweep_all(void) {
    MPI_Init(NULL, NULL);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    int bad = 0, errors = 0;
    for (int i = 0; i < ntable; ++i) {
        const char* name = table[i].name;
        if (in_list(name, skip_all)) continue;
        printf("%-34s ", name);
        fflush(stdout); /* the last name printed is the culprit of a crash */
        const int rc = table[i].fn();
        if (returns_value(name)) {
            printf("returned (a value)\n");
            continue;
        }
        if (in_list(name, zero_ok)) {
            if (rc != MPI_SUCCESS) {
                printf("FAIL: valid call returned %d\n", rc);
                ++bad;
            } else {
                printf("ok (valid)\n");
            }
            continue;
        }
        if (rc == MPI_SUCCESS) {
            printf("FAIL: accepted all-zero arguments\n");
            ++bad;
            continue;
        }
        int cls = -1, len = 0;
        char text[MPI_MAX_ERROR_STRING] = "";
        if (MPI_Error_class(rc, &cls) != MPI_SUCCESS || cls <= MPI_SUCCESS || cls > MPI_ERR_LASTCODE ||
            MPI_Error_string(rc, text, &len) != MPI_SUCCESS) {
            printf("FAIL: returned %d, not a valid error code\n", rc);
            ++bad;
            continue;
        }
        /* "MPI_Send: invalid datatype": the message names the function
         * (an _c form may report under its own name or the int form's) */
        char own[72], base[72];
        snprintf(own, sizeof own, "%s:", name);
        snprintf(base, sizeof base, "%s", own);
        const size_t n = strlen(name);
        if (n > 2 && strcmp(name + n - 2, "_c") == 0) strcpy(base + n - 2, ":");
        if (strncmp(text, own, strlen(own)) != 0 && strncmp(text, base, strlen(base)) != 0) {
            printf("FAIL: class %d, message does not name the function: \"%s\"\n", cls, text);
            ++bad;
            continue;
        }
        printf("class %2d  %s\n", cls, text);
        ++errors;
    }
    /* MPI must still work after all that */
    int size = 0, sum = 0, one = 1;
    if (MPI_Comm_size(MPI_COMM_WORLD, &size) != MPI_SUCCESS ||
        MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD) != MPI_SUCCESS || sum != size) {
        printf("FAIL: MPI unusable after the sweep (size %d, sum %d)\n", size, sum);
        ++bad;
    }
    MPI_Finalize();
    printf("%d functions swept: %d errors as expected, %d failures\n", ntable, errors, bad);
    return bad ? 1 : 0;
}

/* Runs table[i] in a child before MPI_Init; returns 1 when it behaved. */
static int pre_one(int i) {
    const char* name = table[i].name;
    int fd[2];
    if (pipe(fd) != 0) return 0;
    fflush(stdout);
    const pid_t pid = fork();
    if (pid < 0) return 0;
    if (pid == 0) {
        dup2(fd[1], 1);
        dup2(fd[1], 2);
        close(fd[0]);
        alarm(20);
        (void)table[i].fn();
        printf("%s returned\n", name);
        fflush(stdout);
        _exit(0);
    }
    close(fd[1]);
    char out[4096];
    size_t len = 0;
    ssize_t r;
    while ((r = read(fd[0], out + len, sizeof out - 1 - len)) > 0) len += (size_t)r;
    close(fd[0]);
    out[len] = '\0';
    int st = 0;
    waitpid(pid, &st, 0);
    char want[128];
    int good;
    if (in_list(name, anytime) || returns_value(name)) {
        snprintf(want, sizeof want, "%s returned", name);
        good = WIFEXITED(st) && WEXITSTATUS(st) == 0 && strstr(out, want);
    } else {
        snprintf(want, sizeof want, "%s: called before MPI_Init", name);
        good = WIFEXITED(st) && WEXITSTATUS(st) != 0 && strstr(out, want);
    }
    if (!good) {
        if (WIFSIGNALED(st))
            printf("FAIL: %s before MPI_Init: killed by signal %d; output: %s\n", name, WTERMSIG(st), out);
        else
            printf("FAIL: %s before MPI_Init: exit %d, want \"%s\"; output: %s\n", name,
                   WEXITSTATUS(st), want, out);
    }
    return good;
}

static int sweep_pre(void) {
    int bad = 0, n = 0;
    for (int i = 0; i < ntable; ++i) {
        /* MPI_Finalize is checked too: before MPI_Init it ends nothing */
        if (in_list(table[i].name, skip_all) && strcmp(table[i].name, "MPI_Finalize") != 0) continue;
        ++n;
        bad += !pre_one(i);
    }
    printf("%d functions called before MPI_Init: %d failures\n", n, bad);
    return bad ? 1 : 0;
}

int main(int argc, char** argv) {
    if (argc == 2 && strcmp(argv[1], "pre") == 0) return sweep_pre();
    if (argc == 2 && strcmp(argv[1], "all") == 0) return sweep_all();
    fprintf(stderr, "usage: zero_args pre | all\n");
    return 2;
}
