/* SPDX-License-Identifier: MIT */
/* MPI_Type_set_name / MPI_Type_get_name: predefined types carry their MPI
 * names and can be renamed, derived types and dups start unnamed, long
 * names are truncated, a freed handle's name is gone, bad arguments give
 * the right class. Also MPI_Type_match_size and MPI_Type_get_value_index,
 * which hand out predefined types too. Plain C. */
#include <string.h>

#include "dtcheck.h"

static void expect_name(MPI_Datatype t, const char* want, const char* what) {
    char name[MPI_MAX_OBJECT_NAME];
    int len = -1;
    memset(name, 'x', sizeof name);
    OK(MPI_Type_get_name(t, name, &len));
    EXPECT(strcmp(name, want) == 0 && len == (int)strlen(want), "%s: name \"%s\" (%d), want \"%s\"", what,
           name, len, want);
}

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

    const struct {
        MPI_Datatype t;
        const char* name;
    } pre[] = {{MPI_INT, "MPI_INT"},
               {MPI_DOUBLE, "MPI_DOUBLE"},
               {MPI_CHAR, "MPI_CHAR"},
               {MPI_BYTE, "MPI_BYTE"},
               {MPI_LONG_DOUBLE, "MPI_LONG_DOUBLE"},
               {MPI_DOUBLE_INT, "MPI_DOUBLE_INT"},
               {MPI_2INT, "MPI_2INT"},
               {MPI_UINT64_T, "MPI_UINT64_T"},
               {MPI_C_DOUBLE_COMPLEX, "MPI_C_DOUBLE_COMPLEX"},
               {MPI_AINT, "MPI_AINT"},
               /* one handle, two names in the standard: the name MPICH and
                * Open MPI both return */
               {MPI_LONG_LONG, "MPI_LONG_LONG_INT"},
               {MPI_LONG_LONG_INT, "MPI_LONG_LONG_INT"},
               {MPI_C_FLOAT_COMPLEX, "MPI_C_COMPLEX"},
               {MPI_C_COMPLEX, "MPI_C_COMPLEX"}};
    for (size_t i = 0; i < sizeof pre / sizeof pre[0]; ++i) expect_name(pre[i].t, pre[i].name, pre[i].name);

    /* renaming a predefined type */
    OK(MPI_Type_set_name(MPI_FLOAT, "single"));
    expect_name(MPI_FLOAT, "single", "renamed MPI_FLOAT");
    OK(MPI_Type_set_name(MPI_FLOAT, "MPI_FLOAT"));

    /* derived types start unnamed; set, replace, truncate */
    MPI_Datatype v, d;
    OK(MPI_Type_vector(3, 2, 4, MPI_INT, &v));
    expect_name(v, "", "new vector");
    OK(MPI_Type_set_name(v, "halo"));
    expect_name(v, "halo", "named vector");
    OK(MPI_Type_set_name(v, "halo row"));
    expect_name(v, "halo row", "renamed vector");
    OK(MPI_Type_commit(&v));
    expect_name(v, "halo row", "committed vector");
    OK(MPI_Type_dup(v, &d));
    expect_name(d, "", "dup of a named type");
    char longname[300];
    memset(longname, 'n', sizeof longname - 1);
    longname[sizeof longname - 1] = '\0';
    OK(MPI_Type_set_name(d, longname));
    longname[MPI_MAX_OBJECT_NAME - 1] = '\0';
    expect_name(d, longname, "long name");
    OK(MPI_Type_free(&d));

    /* a freed handle forgets its name: new types are unnamed */
    for (int i = 0; i < 8; ++i) {
        MPI_Datatype t;
        OK(MPI_Type_contiguous(2 + i, MPI_INT, &t));
        expect_name(t, "", "type created after frees");
        OK(MPI_Type_set_name(t, "temporary"));
        OK(MPI_Type_free(&t));
    }

    /* errors */
    char name[MPI_MAX_OBJECT_NAME];
    int len = 0;
    int c = dt_class(MPI_Type_set_name(MPI_DATATYPE_NULL, "x"));
    EXPECT(c == MPI_ERR_TYPE, "set_name(MPI_DATATYPE_NULL): class %d", c);
    c = dt_class(MPI_Type_set_name(v, NULL));
    EXPECT(c == MPI_ERR_ARG, "set_name(NULL): class %d", c);
    c = dt_class(MPI_Type_get_name(MPI_DATATYPE_NULL, name, &len));
    EXPECT(c == MPI_ERR_TYPE, "get_name(MPI_DATATYPE_NULL): class %d", c);
    c = dt_class(MPI_Type_get_name(v, NULL, &len));
    EXPECT(c == MPI_ERR_ARG, "get_name(name NULL): class %d", c);
    c = dt_class(MPI_Type_get_name(v, name, NULL));
    EXPECT(c == MPI_ERR_ARG, "get_name(resultlen NULL): class %d", c);
    MPI_Datatype freed = v;
    OK(MPI_Type_free(&v));
    c = dt_class(MPI_Type_get_name(freed, name, &len));
    EXPECT(c == MPI_ERR_TYPE, "get_name(freed handle): class %d", c);
    expect_name(MPI_INT, "MPI_INT", "MPI_INT after the errors");

    /* MPI_Type_match_size: the named type of each class and size */
    const struct {
        int cl, size;
        MPI_Datatype want;
    } match[] = {{MPI_TYPECLASS_INTEGER, 1, MPI_INTEGER1}, {MPI_TYPECLASS_INTEGER, 2, MPI_INTEGER2},
                 {MPI_TYPECLASS_INTEGER, 4, MPI_INTEGER4}, {MPI_TYPECLASS_INTEGER, 8, MPI_INTEGER8},
                 {MPI_TYPECLASS_REAL, 4, MPI_REAL4},       {MPI_TYPECLASS_REAL, 8, MPI_REAL8},
                 {MPI_TYPECLASS_COMPLEX, 8, MPI_COMPLEX8}, {MPI_TYPECLASS_COMPLEX, 16, MPI_COMPLEX16}};
    for (size_t i = 0; i < sizeof match / sizeof match[0]; ++i) {
        MPI_Datatype t = MPI_DATATYPE_NULL;
        int size = 0;
        OK(MPI_Type_match_size(match[i].cl, match[i].size, &t));
        EXPECT(t == match[i].want, "match_size(%d, %d): wrong type", match[i].cl, match[i].size);
        OK(MPI_Type_size(t, &size));
        EXPECT(size == match[i].size, "match_size(%d, %d): size %d", match[i].cl, match[i].size, size);
    }
    MPI_Datatype m = MPI_INT;
    c = dt_class(MPI_Type_match_size(MPI_TYPECLASS_REAL, 3, &m));
    EXPECT(c == MPI_ERR_ARG, "match_size(real, 3): class %d", c);
    c = dt_class(MPI_Type_match_size(MPI_TYPECLASS_INTEGER, 0, &m));
    EXPECT(c == MPI_ERR_ARG, "match_size(integer, 0): class %d", c);
    c = dt_class(MPI_Type_match_size(12345, 4, &m));
    EXPECT(c == MPI_ERR_ARG, "match_size(bad class): class %d", c);
    c = dt_class(MPI_Type_match_size(MPI_TYPECLASS_REAL, 8, NULL));
    EXPECT(c == MPI_ERR_ARG, "match_size(NULL): class %d", c);

    /* MPI_Type_get_value_index: the MINLOC/MAXLOC pair types, else MPI_DATATYPE_NULL */
    const struct {
        MPI_Datatype v, i, want;
    } pairs[] = {{MPI_FLOAT, MPI_INT, MPI_FLOAT_INT},     {MPI_DOUBLE, MPI_INT, MPI_DOUBLE_INT},
                 {MPI_LONG, MPI_INT, MPI_LONG_INT},       {MPI_SHORT, MPI_INT, MPI_SHORT_INT},
                 {MPI_INT, MPI_INT, MPI_2INT},            {MPI_LONG_DOUBLE, MPI_INT, MPI_LONG_DOUBLE_INT},
                 {MPI_REAL, MPI_INTEGER, MPI_2REAL},      {MPI_DOUBLE_PRECISION, MPI_INTEGER, MPI_2DOUBLE_PRECISION},
                 {MPI_INTEGER, MPI_INTEGER, MPI_2INTEGER}, {MPI_FLOAT, MPI_FLOAT, MPI_DATATYPE_NULL},
                 {MPI_DOUBLE, MPI_LONG, MPI_DATATYPE_NULL}, {MPI_CHAR, MPI_INT, MPI_DATATYPE_NULL}};
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; ++i) {
        MPI_Datatype p = MPI_BYTE;
        OK(MPI_Type_get_value_index(pairs[i].v, pairs[i].i, &p));
        EXPECT(p == pairs[i].want, "get_value_index pair %zu: wrong type", i);
    }
    MPI_Datatype p = MPI_BYTE, dv;
    OK(MPI_Type_contiguous(1, MPI_DOUBLE, &dv));
    OK(MPI_Type_get_value_index(dv, MPI_INT, &p)); /* a derived value type has no pair type */
    EXPECT(p == MPI_DATATYPE_NULL, "get_value_index(derived, MPI_INT): not MPI_DATATYPE_NULL");
    OK(MPI_Type_free(&dv));
    c = dt_class(MPI_Type_get_value_index(MPI_DATATYPE_NULL, MPI_INT, &p));
    EXPECT(c == MPI_ERR_TYPE, "get_value_index(MPI_DATATYPE_NULL, ...): class %d", c);
    c = dt_class(MPI_Type_get_value_index(MPI_DOUBLE, MPI_INT, NULL));
    EXPECT(c == MPI_ERR_ARG, "get_value_index(NULL): class %d", c);
    return dt_finish("dt_name");
}
