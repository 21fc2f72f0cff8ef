/* SPDX-License-Identifier: MIT */
/* The environment functions of issue 42:
 *  - communicator info hints: MPI_Comm_set_info / get_info round trip of
 *    the mpi_assert_* hints we keep (others ignored), MPI_Comm_dup keeps
 *    them, MPI_Comm_dup_with_info replaces them with its own;
 *  - MPI_Alloc_mem / MPI_Free_mem: aligned, writable, usable as a window's
 *    memory (a put into a neighbour's Alloc_mem window), the
 *    mpi_minimum_memory_alignment hint; MPI_Free_mem of anything else is
 *    MPI_ERR_BASE;
 *  - user error classes, codes and strings: MPI_Error_class /
 *    MPI_Error_string answer for them, a user code reaches an error handler
 *    (MPI_Comm_call_errhandler), MPI_LASTUSEDCODE follows them, the
 *    MPI-4.1 removal functions and their errors;
 *  - MPI_Pcontrol; MPI_Get_hw_resource_info's URI keys with boolean values. */
#include <stdint.h>

#include "mpitest.h"

static void expect_class(int rc, int cls, const char* what) {
    int c = MPI_SUCCESS;
    MPI_Error_class(rc, &c);
    CHECK(c == cls, "%s: error class %d, expected %d", what, c, cls);
}

static int info_is(MPI_Info info, const char* key, const char* want) {
    char v[64];
    int len = (int)sizeof v, flag = 0;
    MPI_Info_get_string(info, key, &len, v, &flag);
    return flag && strcmp(v, want) == 0;
}

static int g_handler_code = 0;
static void handler(MPI_Comm* comm, int* code, ...) {
    (void)comm;
    g_handler_code = *code;
}

int main(int argc, char** argv) {
    mt_init(&argc, &argv);
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int me = mt_rank;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);

    /* ---- communicator hints */
    {
        MPI_Comm c1, c2, c3;
        MPI_Info in, out;
        MPI_Comm_dup(MPI_COMM_WORLD, &c1);
        MPI_Info_create(&in);
        MPI_Info_set(in, "mpi_assert_no_any_tag", "true");
        MPI_Info_set(in, "mpi_assert_allow_overtaking", "true");
        MPI_Info_set(in, "ch4lite_not_a_hint", "whatever");
        CHECK_MPI(MPI_Comm_set_info(c1, in));
        CHECK_MPI(MPI_Comm_get_info(c1, &out));
        CHECK(info_is(out, "mpi_assert_no_any_tag", "true") &&
                  info_is(out, "mpi_assert_allow_overtaking", "true") &&
                  info_is(out, "mpi_assert_no_any_source", "false") &&
                  info_is(out, "mpi_assert_exact_length", "false"),
              "Comm_get_info after set_info");
        int flag = 1;
        char v[16];
        int len = 16;
        MPI_Info_get_string(out, "ch4lite_not_a_hint", &len, v, &flag);
        CHECK(!flag, "an unknown hint came back");
        MPI_Info_free(&out);
        /* update: one hint cleared, the others kept */
        MPI_Info_free(&in);
        MPI_Info_create(&in);
        MPI_Info_set(in, "mpi_assert_allow_overtaking", "false");
        CHECK_MPI(MPI_Comm_set_info(c1, in));
        MPI_Info_free(&in);
        CHECK_MPI(MPI_Comm_dup(c1, &c2)); /* keeps c1's hints */
        CHECK_MPI(MPI_Comm_get_info(c2, &out));
        CHECK(info_is(out, "mpi_assert_no_any_tag", "true") &&
                  info_is(out, "mpi_assert_allow_overtaking", "false"),
              "MPI_Comm_dup did not keep the hints");
        MPI_Info_free(&out);
        MPI_Info_create(&in);
        MPI_Info_set(in, "mpi_assert_exact_length", "true");
        CHECK_MPI(MPI_Comm_dup_with_info(c1, in, &c3)); /* its own hints only */
        MPI_Info_free(&in);
        CHECK_MPI(MPI_Comm_get_info(c3, &out));
        CHECK(info_is(out, "mpi_assert_exact_length", "true") && info_is(out, "mpi_assert_no_any_tag", "false"),
              "MPI_Comm_dup_with_info hints");
        MPI_Info_free(&out);
        expect_class(MPI_Comm_set_info(c1, (MPI_Info)(intptr_t)0x7777), MPI_ERR_INFO, "set_info of a bad info");
        int x = me, y = -1; /* the communicators still work */
        MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_MAX, c3);
        CHECK(y == size - 1, "allreduce on the dup: %d", y);
        MPI_Comm_free(&c1);
        MPI_Comm_free(&c2);
        MPI_Comm_free(&c3);
    }

    /* ---- MPI_Alloc_mem as window memory */
    {
        int* mem = NULL;
        CHECK_MPI(MPI_Alloc_mem(sizeof(int) * 1024, MPI_INFO_NULL, &mem));
        CHECK(mem && ((uintptr_t)mem & 63) == 0, "Alloc_mem gave %p", (void*)mem);
        for (int i = 0; i < 1024; ++i) mem[i] = -1;
        MPI_Win win;
        CHECK_MPI(MPI_Win_create(mem, sizeof(int) * 1024, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
        int src[8];
        for (int i = 0; i < 8; ++i) src[i] = me * 100 + i;
        MPI_Win_fence(0, win);
        MPI_Put(src, 8, MPI_INT, (me + 1) % size, 16, 8, MPI_INT, win);
        MPI_Win_fence(0, win);
        const int left = (me + size - 1) % size;
        for (int i = 0; i < 8; ++i) CHECK(mem[16 + i] == left * 100 + i, "window element %d: %d", i, mem[16 + i]);
        MPI_Win_free(&win);
        CHECK_MPI(MPI_Free_mem(mem));
        expect_class(MPI_Free_mem(mem), MPI_ERR_BASE, "Free_mem twice");
        int stack = 0;
        expect_class(MPI_Free_mem(&stack), MPI_ERR_BASE, "Free_mem of a stack address");
        MPI_Info in;
        MPI_Info_create(&in);
        MPI_Info_set(in, "mpi_minimum_memory_alignment", "65536");
        void* big = NULL;
        CHECK_MPI(MPI_Alloc_mem(100, in, &big));
        CHECK(((uintptr_t)big & 65535) == 0, "alignment hint ignored: %p", big);
        CHECK_MPI(MPI_Free_mem(big));
        void* zero = NULL;
        CHECK_MPI(MPI_Alloc_mem(0, MPI_INFO_NULL, &zero));
        CHECK_MPI(MPI_Free_mem(zero));
        MPI_Info_free(&in);
        expect_class(MPI_Alloc_mem(-1, MPI_INFO_NULL, &zero), MPI_ERR_SIZE, "Alloc_mem of -1 bytes");
    }

    /* ---- user error classes, codes and strings */
    {
        int* last = NULL;
        int flag = 0;
        MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &last, &flag);
        CHECK(flag && *last == MPI_ERR_LASTCODE, "LASTUSEDCODE at start: %d", *last);
        int cls = 0, code = 0, code2 = 0, c = -1, len = 0;
        char text[MPI_MAX_ERROR_STRING];
        CHECK_MPI(MPI_Add_error_class(&cls));
        CHECK(cls > MPI_ERR_LASTCODE, "a user class %d not above MPI_ERR_LASTCODE", cls);
        CHECK_MPI(MPI_Add_error_code(cls, &code));
        CHECK_MPI(MPI_Add_error_code(MPI_ERR_OTHER, &code2));
        MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &last, &flag);
        CHECK(*last >= code2 && *last >= code && *last >= cls, "LASTUSEDCODE %d below %d", *last, code2);
        CHECK_MPI(MPI_Error_class(code, &c));
        CHECK(c == cls, "class of the user code: %d, not %d", c, cls);
        CHECK_MPI(MPI_Error_class(code2, &c));
        CHECK(c == MPI_ERR_OTHER, "class of a code in MPI_ERR_OTHER: %d", c);
        CHECK_MPI(MPI_Error_string(code, text, &len));
        CHECK(len == 0 && text[0] == '\0', "a code without a string: \"%s\"", text);
        CHECK_MPI(MPI_Add_error_string(code, "the frobnicator jammed"));
        CHECK_MPI(MPI_Error_string(code, text, &len));
        CHECK(strcmp(text, "the frobnicator jammed") == 0 && len == (int)strlen(text), "user string \"%s\"", text);
        CHECK_MPI(MPI_Add_error_string(cls, "frobnicator trouble"));
        CHECK_MPI(MPI_Error_string(cls, text, &len));
        CHECK(strcmp(text, "frobnicator trouble") == 0, "class string \"%s\"", text);
        expect_class(MPI_Add_error_string(MPI_ERR_TRUNCATE, "no"), MPI_ERR_ARG, "string for a predefined class");
        expect_class(MPI_Add_error_code(cls + 12345, &c), MPI_ERR_ARG, "code for an unknown class");
        /* a user code through an error handler */
        MPI_Errhandler eh;
        MPI_Comm dup;
        MPI_Comm_dup(MPI_COMM_WORLD, &dup);
        MPI_Comm_create_errhandler(handler, &eh);
        MPI_Comm_set_errhandler(dup, eh);
        MPI_Comm_call_errhandler(dup, code);
        CHECK(g_handler_code == code, "the handler got %d, not %d", g_handler_code, code);
        MPI_Errhandler_free(&eh);
        MPI_Comm_free(&dup);
        /* removal */
        expect_class(MPI_Remove_error_class(cls), MPI_ERR_ARG, "removing a class that has codes");
        CHECK_MPI(MPI_Remove_error_string(code));
        CHECK_MPI(MPI_Error_string(code, text, &len));
        CHECK(text[0] == '\0', "string after removal: \"%s\"", text);
        expect_class(MPI_Remove_error_string(code), MPI_ERR_ARG, "removing a string twice");
        CHECK_MPI(MPI_Remove_error_code(code));
        expect_class(MPI_Remove_error_code(code), MPI_ERR_ARG, "removing a code twice");
        CHECK_MPI(MPI_Remove_error_class(cls));
        CHECK_MPI(MPI_Remove_error_code(code2));
        MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &last, &flag);
        CHECK(*last == MPI_ERR_LASTCODE, "LASTUSEDCODE after removing everything: %d", *last);
        expect_class(MPI_Remove_error_class(MPI_ERR_OTHER), MPI_ERR_ARG, "removing a predefined class");
        int newer = 0;
        CHECK_MPI(MPI_Add_error_class(&newer));
        CHECK(newer != cls, "a removed class value was reused");
    }

    /* ---- MPI_Pcontrol; MPI_Get_hw_resource_info */
    {
        CHECK_MPI(MPI_Pcontrol(0));
        CHECK_MPI(MPI_Pcontrol(2, "ignored", 3));
        MPI_Info hw;
        CHECK_MPI(MPI_Get_hw_resource_info(&hw));
        int n = 0;
        MPI_Info_get_nkeys(hw, &n);
        CHECK(n > 0, "no hardware resources reported");
        for (int i = 0; i < n; ++i) {
            char key[MPI_MAX_INFO_KEY];
            MPI_Info_get_nthkey(hw, i, key);
            CHECK(strncmp(key, "hwloc://", 8) == 0, "key %s is not in URI form", key);
            CHECK(info_is(hw, key, "true") || info_is(hw, key, "false"), "key %s: not a boolean", key);
        }
        CHECK(info_is(hw, "hwloc://Machine", "true"), "a process runs within one machine");
        MPI_Info_free(&hw);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == 0) printf("env_extra: OK\n");
    MPI_Finalize();
    return 0;
}
