// SPDX-License-Identifier: MIT
// MPI_Type_create_f90_integer / _real / _complex (MPI-4.1 19.1.9): the
// predefined type of the Fortran kind SELECTED_INT_KIND(r) or
// SELECTED_REAL_KIND(p, r) would select. The kinds are gfortran's on
// x86-64: INTEGER 1, 2, 4, 8, 16 bytes; REAL 4, 8 and 16 (IEEE binary128);
// COMPLEX twice those.
//
// MPI counts the result as predefined: it cannot be freed, and
// MPI_Type_get_envelope reports MPI_COMBINER_F90_* with p and r as given
// (MPI_UNDEFINED included). Each (combiner, p, r) gets one DAME wrapper of
// the named type of its kind, made on first use and returned again after.
#include <mpi.h>

#include <vector>

#include "api/datatype_f90.hpp"
#include "api/datatype_util.hpp"

using namespace ch4lite;
using ch4lite::api::dt::check_ptr;

namespace {

struct real_kind {
    int precision, range;
    MPI_Datatype real, complex;
};
// PRECISION() and RANGE() of each kind
const real_kind real_kinds[] = {{6, 37, MPI_REAL4, MPI_COMPLEX8},
                                {15, 307, MPI_REAL8, MPI_COMPLEX16},
                                {33, 4931, MPI_REAL16, MPI_COMPLEX32}};
struct int_kind {
    int range;
    MPI_Datatype type;
};
const int_kind int_kinds[] = {{2, MPI_INTEGER1}, {4, MPI_INTEGER2}, {9, MPI_INTEGER4},
                              {18, MPI_INTEGER8}, {38, MPI_INTEGER16}};

struct made {
    dame::combiner comb;
    int p, r;
    MPI_Datatype handle;
};
// Kept until MPI_Finalize (f90_release_all): MPI_Type_free refuses these
// handles. ch4lite provides at most MPI_THREAD_SERIALIZED, so one plain
// vector.
std::vector<made> g_made;

// The handle for (comb, p, r), made from `named` on first use.
int get(const char* fn, dame::combiner comb, int p, int r, MPI_Datatype named, MPI_Datatype* newtype) {
    for (const made& m : g_made)
        if (m.comb == comb && m.p == p && m.r == r) {
            *newtype = m.handle;
            return MPI_SUCCESS;
        }
    try {
        g_made.reserve(g_made.size() + 1);  // so that the push below cannot throw
    } catch (...) {
        DT_FAIL(MPI_ERR_NO_MEM, "out of memory");
    }
    dame::type* t = nullptr;
    const status s = dame::make_f90(comb, api::lookup_type_mut(named), &t);
    dame::contents c;
    try {
        if (comb == dame::combiner::f90_integer) c.ints = {r};
        else c.ints = {p, r};
    } catch (...) {
        if (t) t->release();
        DT_FAIL(MPI_ERR_NO_MEM, "out of memory");
    }
    MPI_Datatype h = MPI_DATATYPE_NULL;
    DT_TRY(api::dt::finish(fn, s, t, std::move(c), false, {}, &h));
    g_made.push_back({comb, p, r, h});
    *newtype = h;
    return MPI_SUCCESS;
}

int real_impl(const char* fn, bool complex, int p, int r, MPI_Datatype* newtype) {
    DT_REQUIRE_INIT();
    DT_TRY(check_ptr(fn, "newtype", newtype));
    if (p == MPI_UNDEFINED && r == MPI_UNDEFINED)
        DT_FAIL(MPI_ERR_ARG, "p and r are both MPI_UNDEFINED: at least one must be given");
    for (const real_kind& k : real_kinds)
        if ((p == MPI_UNDEFINED || p <= k.precision) && (r == MPI_UNDEFINED || r <= k.range))
            return get(fn, complex ? dame::combiner::f90_complex : dame::combiner::f90_real, p, r,
                       complex ? k.complex : k.real, newtype);
    DT_FAIL(MPI_ERR_ARG,
            "no %s kind has precision %d and range %d (the largest: precision 33, range 4931)",
            complex ? "COMPLEX" : "REAL", p, r);
}

}  // namespace

namespace ch4lite::api::dt {

MPI_Datatype f90_handle(const dame::type* t) noexcept {
    for (const made& m : g_made)
        if (lookup_type(m.handle) == t) return m.handle;
    return MPI_DATATYPE_NULL;
}

void f90_release_all() noexcept {
    for (const made& m : g_made) {
        dame::type* t = lookup_type_mut(m.handle);
        erase_type_handle(m.handle);
        if (t) t->release();
    }
    g_made.clear();
}

}  // namespace ch4lite::api::dt

extern "C" {

CH4_PMPI(MPI_Type_create_f90_integer)
int MPI_Type_create_f90_integer(int r, MPI_Datatype* newtype) {
    CH4_API_LOCK();
    const char* fn = __func__;
    DT_REQUIRE_INIT();
    DT_TRY(check_ptr(fn, "newtype", newtype));
    if (r == MPI_UNDEFINED) DT_FAIL(MPI_ERR_ARG, "r is MPI_UNDEFINED: the decimal range must be given");
    for (const int_kind& k : int_kinds)
        if (r <= k.range) return get(fn, dame::combiner::f90_integer, MPI_UNDEFINED, r, k.type, newtype);
    DT_FAIL(MPI_ERR_ARG, "no INTEGER kind has a decimal range of %d (the largest: 38)", r);
}

CH4_PMPI(MPI_Type_create_f90_real)
int MPI_Type_create_f90_real(int p, int r, MPI_Datatype* newtype) {
    CH4_API_LOCK();
    return real_impl(__func__, false, p, r, newtype);
}

CH4_PMPI(MPI_Type_create_f90_complex)
int MPI_Type_create_f90_complex(int p, int r, MPI_Datatype* newtype) {
    CH4_API_LOCK();
    return real_impl(__func__, true, p, r, newtype);
}

}  // extern "C"
