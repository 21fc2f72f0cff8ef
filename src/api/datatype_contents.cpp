// SPDX-License-Identifier: MIT
// MPI_Type_get_envelope / MPI_Type_get_contents: report the arguments a type
// was built with (recorded by the constructors in datatype_create.cpp).
#include <mpi.h>

#include <climits>

#include "api/datatype_f90.hpp"
#include "api/datatype_util.hpp"

using namespace ch4lite;
using ch4lite::api::dt::check_ptr;
using ch4lite::api::dt::resolve;

namespace {

int combiner_of(const dame::type& t) {
    switch (t.comb()) {
        case dame::combiner::named: return MPI_COMBINER_NAMED;
        case dame::combiner::dup: return MPI_COMBINER_DUP;
        case dame::combiner::contiguous: return MPI_COMBINER_CONTIGUOUS;
        case dame::combiner::vector: return MPI_COMBINER_VECTOR;
        case dame::combiner::hvector: return MPI_COMBINER_HVECTOR;
        case dame::combiner::indexed: return MPI_COMBINER_INDEXED;
        case dame::combiner::hindexed: return MPI_COMBINER_HINDEXED;
        case dame::combiner::indexed_block: return MPI_COMBINER_INDEXED_BLOCK;
        case dame::combiner::hindexed_block: return MPI_COMBINER_HINDEXED_BLOCK;
        case dame::combiner::struct_: return MPI_COMBINER_STRUCT;
        case dame::combiner::subarray: return MPI_COMBINER_SUBARRAY;
        case dame::combiner::darray: return MPI_COMBINER_DARRAY;
        case dame::combiner::resized: return MPI_COMBINER_RESIZED;
        case dame::combiner::f90_real: return MPI_COMBINER_F90_REAL;
        case dame::combiner::f90_complex: return MPI_COMBINER_F90_COMPLEX;
        case dame::combiner::f90_integer: return MPI_COMBINER_F90_INTEGER;
    }
    return MPI_COMBINER_NAMED;
}

template <class N>
int contents_impl(const char* fn, MPI_Datatype datatype, int64_t max_i, int64_t max_a,
                  int64_t max_c, int64_t max_d, int* ints, MPI_Aint* aints, N* counts,
                  MPI_Datatype* types) {
    DT_REQUIRE_INIT();
    dame::type* t = nullptr;
    DT_TRY(resolve(fn, "datatype", datatype, &t));
    if (t->comb() == dame::combiner::named)
        DT_FAIL(MPI_ERR_TYPE, "datatype %s is predefined: it has no contents", t->predef()->name);
    const dame::contents& c = t->user_contents();
    const auto& ut = t->user_types();
    auto small = [](int64_t max, size_t n) { return max < static_cast<int64_t>(n); };
    if (small(max_i, c.ints.size()) || small(max_a, c.aints.size()) ||
        small(max_c, c.counts.size()) || small(max_d, ut.size()))
        DT_FAIL(MPI_ERR_ARG,
                "output arrays too small: need %zu integers, %zu addresses, %zu large counts, %zu datatypes",
                c.ints.size(), c.aints.size(), c.counts.size(), ut.size());
    if ((!c.ints.empty() && !ints) || (!c.aints.empty() && !aints) ||
        (!c.counts.empty() && !counts) || (!ut.empty() && !types))
        DT_FAIL(MPI_ERR_ARG, "an output array needed for this combiner is NULL");
    for (size_t i = 0; i < c.ints.size(); ++i) ints[i] = c.ints[i];
    for (size_t i = 0; i < c.aints.size(); ++i) aints[i] = c.aints[i];
    for (size_t i = 0; i < c.counts.size(); ++i) counts[i] = static_cast<N>(c.counts[i]);
    for (size_t i = 0; i < ut.size(); ++i) {
        dame::type* k = ut[i];
        if (k->is_predefined()) {
            types[i] = reinterpret_cast<MPI_Datatype>(k->predefined_handle());
            continue;
        }
        if (k->f90()) {  // predefined for MPI: its one handle
            types[i] = api::dt::f90_handle(k);
            continue;
        }
        // MPI: returned derived types are new handles the caller frees.
        k->retain();
        int cls = 0;
        types[i] = api::new_type_handle(k, &cls);
        if (types[i] == MPI_DATATYPE_NULL)
            DT_FAIL(cls, "%s", cls == MPI_ERR_NO_MEM ? "out of memory for a handle" : "handle table full");
    }
    return MPI_SUCCESS;
}

}  // namespace

extern "C" {

CH4_PMPI(MPI_Type_get_envelope)
int MPI_Type_get_envelope(MPI_Datatype datatype, int* ni, int* na, int* nd, int* combiner) {
    CH4_API_LOCK();
    const char* fn = __func__;
    DT_REQUIRE_INIT();
    dame::type* t = nullptr;
    DT_TRY(resolve(fn, "datatype", datatype, &t));
    DT_TRY(check_ptr(fn, "num_integers", ni));
    DT_TRY(check_ptr(fn, "num_addresses", na));
    DT_TRY(check_ptr(fn, "num_datatypes", nd));
    DT_TRY(check_ptr(fn, "combiner", combiner));
    const dame::contents& c = t->user_contents();
    if (!c.counts.empty())
        DT_FAIL(MPI_ERR_TYPE, "datatype was built with large counts: use MPI_Type_get_envelope_c");
    *ni = static_cast<int>(c.ints.size());
    *na = static_cast<int>(c.aints.size());
    *nd = static_cast<int>(t->user_types().size());
    *combiner = combiner_of(*t);
    return MPI_SUCCESS;
}

CH4_PMPI(MPI_Type_get_envelope_c)
int MPI_Type_get_envelope_c(MPI_Datatype datatype, MPI_Count* ni, MPI_Count* na, MPI_Count* nc,
                            MPI_Count* nd, int* combiner) {
    CH4_API_LOCK();
    const char* fn = __func__;
    DT_REQUIRE_INIT();
    dame::type* t = nullptr;
    DT_TRY(resolve(fn, "datatype", datatype, &t));
    DT_TRY(check_ptr(fn, "num_integers", ni));
    DT_TRY(check_ptr(fn, "num_addresses", na));
    DT_TRY(check_ptr(fn, "num_large_counts", nc));
    DT_TRY(check_ptr(fn, "num_datatypes", nd));
    DT_TRY(check_ptr(fn, "combiner", combiner));
    const dame::contents& c = t->user_contents();
    *ni = static_cast<MPI_Count>(c.ints.size());
    *na = static_cast<MPI_Count>(c.aints.size());
    *nc = static_cast<MPI_Count>(c.counts.size());
    *nd = static_cast<MPI_Count>(t->user_types().size());
    *combiner = combiner_of(*t);
    return MPI_SUCCESS;
}

CH4_PMPI(MPI_Type_get_contents)
int MPI_Type_get_contents(MPI_Datatype datatype, int max_integers, int max_addresses,
                          int max_datatypes, int ints[], MPI_Aint aints[], MPI_Datatype types[]) {
    CH4_API_LOCK();
    return contents_impl<MPI_Count>(__func__, datatype, max_integers, max_addresses, 0,
                                    max_datatypes, ints, aints, nullptr, types);
}

CH4_PMPI(MPI_Type_get_contents_c)
int MPI_Type_get_contents_c(MPI_Datatype datatype, MPI_Count max_integers, MPI_Count max_addresses,
                            MPI_Count max_large_counts, MPI_Count max_datatypes, int ints[],
                            MPI_Aint aints[], MPI_Count counts[], MPI_Datatype types[]) {
    CH4_API_LOCK();
    return contents_impl(__func__, datatype, max_integers, max_addresses, max_large_counts,
                         max_datatypes, ints, aints, counts, types);
}

}  // extern "C"
