// SPDX-License-Identifier: MIT
// Commit, free, size / extent queries, addresses, element counts, handle
// conversion. Queries work on uncommitted types (MPI allows it).
#include <climits>

#include "api/datatype_attr.hpp"
#include "api/datatype_util.hpp"
#include "api/status_util.hpp"
#include "dame/program.hpp"

using namespace ch4lite;
using ch4lite::api::dt::check_ptr;
using ch4lite::api::dt::resolve;

namespace {

template <class N>
int size_impl(const char* fn, MPI_Datatype datatype, N* size) {
    DT_REQUIRE_INIT();
    dame::type* t = nullptr;
    DT_TRY(resolve(fn, "datatype", datatype, &t));
    DT_TRY(check_ptr(fn, "size", size));
    if (sizeof(N) < 8 && t->size() > INT_MAX) {
        *size = MPI_UNDEFINED;  // MPI 5.1.5: too large for an int
        return MPI_SUCCESS;
    }
    *size = static_cast<N>(t->size());
    return MPI_SUCCESS;
}

template <class N>
int extent_impl(const char* fn, MPI_Datatype datatype, N* lb, N* extent, bool true_ext) {
    DT_REQUIRE_INIT();
    dame::type* t = nullptr;
    DT_TRY(resolve(fn, "datatype", datatype, &t));
    DT_TRY(check_ptr(fn, true_ext ? "true_lb" : "lb", lb));
    DT_TRY(check_ptr(fn, true_ext ? "true_extent" : "extent", extent));
    *lb = static_cast<N>(true_ext ? t->true_lb() : t->lb());
    *extent = static_cast<N>(true_ext ? t->true_extent() : t->extent());
    return MPI_SUCCESS;
}

template <class N>
int elements_impl(const char* fn, const MPI_Status* status, MPI_Datatype datatype, N* count) {
    DT_REQUIRE_INIT();
    dame::type* t = nullptr;
    DT_TRY(check_ptr(fn, "status", status));
    DT_TRY(resolve(fn, "datatype", datatype, &t));
    DT_TRY(check_ptr(fn, "count", count));
    const int64_t bytes = api::status_bytes(status);
    int64_t n = t->size() == 0 ? 0 : dame::elements_in(*t, bytes);
    if (sizeof(N) < 8 && n > INT_MAX) n = MPI_UNDEFINED;
    *count = static_cast<N>(n);
    return MPI_SUCCESS;
}

int set_elements_impl(const char* fn, MPI_Status* status, MPI_Datatype datatype, int64_t count) {
    DT_REQUIRE_INIT();
    dame::type* t = nullptr;
    DT_TRY(check_ptr(fn, "status", status));
    DT_TRY(resolve(fn, "datatype", datatype, &t));
    if (count < 0) DT_FAIL(MPI_ERR_COUNT, "invalid count %lld: must be >= 0", static_cast<long long>(count));
    const int64_t bytes = dame::bytes_for_elements(*t, count);
    if (bytes < 0)
        DT_FAIL(MPI_ERR_COUNT, "invalid count %lld: that many elements of the datatype span more than 2^63 - 1 bytes",
                static_cast<long long>(count));
    api::set_status_bytes(status, bytes);
    return MPI_SUCCESS;
}

}  // namespace

extern "C" {

CH4_PMPI(MPI_Type_commit)
int MPI_Type_commit(MPI_Datatype* datatype) {
    CH4_API_LOCK();
    const char* fn = __func__;
    DT_REQUIRE_INIT();
    DT_TRY(check_ptr(fn, "datatype", datatype));
    dame::type* t = nullptr;
    DT_TRY(resolve(fn, "datatype", *datatype, &t));
    switch (t->commit()) {
        case status::ok: return MPI_SUCCESS;
        case status::no_mem: DT_FAIL(MPI_ERR_NO_MEM, "out of memory building the datatype's program");
        case status::range:
            DT_FAIL(MPI_ERR_TYPE, "the datatype's normalized program nests deeper than %lld levels",
                    static_cast<long long>(dame::max_program_depth));
        default: DT_FAIL(MPI_ERR_INTERN, "could not build the datatype's program");
    }
}

CH4_PMPI(MPI_Type_free)
int MPI_Type_free(MPI_Datatype* datatype) {
    CH4_API_LOCK();
    const char* fn = __func__;
    DT_REQUIRE_INIT();
    DT_TRY(check_ptr(fn, "datatype", datatype));
    dame::type* t = nullptr;
    DT_TRY(resolve(fn, "datatype", *datatype, &t));
    if (t->is_predefined())
        DT_FAIL(MPI_ERR_TYPE, "cannot free predefined datatype %s", t->predef()->name);
    if (t->f90())
        DT_FAIL(MPI_ERR_TYPE, "cannot free a datatype MPI_Type_create_f90_* returned: MPI counts it as predefined");
    // The attributes' delete callbacks first; one that fails keeps the type.
    if (const int rc = api::type_attrs_delete_all(*datatype); rc != MPI_SUCCESS) return api::raise_self(rc);
    api::erase_type_handle(*datatype);
    t->release();  // pending operations and enclosing types keep their own references
    *datatype = MPI_DATATYPE_NULL;
    return MPI_SUCCESS;
}

// The named Fortran type of that class and size (MPI 19.1.9): handles, not
// duplicates; sizes no type has are MPI_ERR_ARG.
CH4_PMPI(MPI_Type_match_size)
int MPI_Type_match_size(int typeclass, int size, MPI_Datatype* datatype) {
    CH4_API_LOCK();
    const char* fn = __func__;
    DT_REQUIRE_INIT();
    DT_TRY(check_ptr(fn, "datatype", datatype));
    MPI_Datatype t = MPI_DATATYPE_NULL;
    switch (typeclass) {
        case MPI_TYPECLASS_INTEGER:
            t = size == 1 ? MPI_INTEGER1 : size == 2 ? MPI_INTEGER2 : size == 4 ? MPI_INTEGER4
                : size == 8 ? MPI_INTEGER8 : size == 16 ? MPI_INTEGER16 : MPI_DATATYPE_NULL;
            break;
        case MPI_TYPECLASS_REAL:
            t = size == 2 ? MPI_REAL2 : size == 4 ? MPI_REAL4 : size == 8 ? MPI_REAL8
                : size == 16 ? MPI_REAL16 : MPI_DATATYPE_NULL;
            break;
        case MPI_TYPECLASS_COMPLEX:
            t = size == 4 ? MPI_COMPLEX4 : size == 8 ? MPI_COMPLEX8 : size == 16 ? MPI_COMPLEX16
                : size == 32 ? MPI_COMPLEX32 : MPI_DATATYPE_NULL;
            break;
        default:
            DT_FAIL(MPI_ERR_ARG,
                    "invalid typeclass %d: must be MPI_TYPECLASS_INTEGER, MPI_TYPECLASS_REAL or MPI_TYPECLASS_COMPLEX",
                    typeclass);
    }
    if (t == MPI_DATATYPE_NULL)
        DT_FAIL(MPI_ERR_ARG, "no predefined %s type has %d bytes",
                typeclass == MPI_TYPECLASS_INTEGER ? "integer" : typeclass == MPI_TYPECLASS_REAL ? "real" : "complex",
                size);
    *datatype = t;
    return MPI_SUCCESS;
}

// The predefined (value, index) pair type for MPI_MINLOC/MPI_MAXLOC, or
// MPI_DATATYPE_NULL when there is none (MPI 6.9.4; not an error).
CH4_PMPI(MPI_Type_get_value_index)
int MPI_Type_get_value_index(MPI_Datatype value_type, MPI_Datatype index_type, MPI_Datatype* pair_type) {
    CH4_API_LOCK();
    const char* fn = __func__;
    DT_REQUIRE_INIT();
    dame::type* t = nullptr;
    DT_TRY(resolve(fn, "value_type", value_type, &t));
    DT_TRY(resolve(fn, "index_type", index_type, &t));
    DT_TRY(check_ptr(fn, "pair_type", pair_type));
    MPI_Datatype p = MPI_DATATYPE_NULL;
    if (index_type == MPI_INT) {
        if (value_type == MPI_FLOAT) p = MPI_FLOAT_INT;
        else if (value_type == MPI_DOUBLE) p = MPI_DOUBLE_INT;
        else if (value_type == MPI_LONG) p = MPI_LONG_INT;
        else if (value_type == MPI_SHORT) p = MPI_SHORT_INT;
        else if (value_type == MPI_INT) p = MPI_2INT;
        else if (value_type == MPI_LONG_DOUBLE) p = MPI_LONG_DOUBLE_INT;
    } else if (index_type == MPI_INTEGER) {
        if (value_type == MPI_REAL) p = MPI_2REAL;
        else if (value_type == MPI_DOUBLE_PRECISION) p = MPI_2DOUBLE_PRECISION;
        else if (value_type == MPI_INTEGER) p = MPI_2INTEGER;
    }
    *pair_type = p;
    return MPI_SUCCESS;
}

CH4_PMPI(MPI_Type_size)
int MPI_Type_size(MPI_Datatype datatype, int* size) { CH4_API_LOCK(); return size_impl(__func__, datatype, size); }
CH4_PMPI(MPI_Type_size_c)
int MPI_Type_size_c(MPI_Datatype datatype, MPI_Count* size) {
    CH4_API_LOCK();
    return size_impl(__func__, datatype, size);
}
// The MPI-3.0 _x forms take MPI_Count as the _c forms do.
CH4_PMPI(MPI_Type_size_x)
int MPI_Type_size_x(MPI_Datatype datatype, MPI_Count* size) {
    CH4_API_LOCK();
    return size_impl(__func__, datatype, size);
}
CH4_PMPI(MPI_Type_get_extent)
int MPI_Type_get_extent(MPI_Datatype datatype, MPI_Aint* lb, MPI_Aint* extent) {
    CH4_API_LOCK();
    return extent_impl(__func__, datatype, lb, extent, false);
}
CH4_PMPI(MPI_Type_get_extent_c)
int MPI_Type_get_extent_c(MPI_Datatype datatype, MPI_Count* lb, MPI_Count* extent) {
    CH4_API_LOCK();
    return extent_impl(__func__, datatype, lb, extent, false);
}
CH4_PMPI(MPI_Type_get_extent_x)
int MPI_Type_get_extent_x(MPI_Datatype datatype, MPI_Count* lb, MPI_Count* extent) {
    CH4_API_LOCK();
    return extent_impl(__func__, datatype, lb, extent, false);
}
CH4_PMPI(MPI_Type_get_true_extent)
int MPI_Type_get_true_extent(MPI_Datatype datatype, MPI_Aint* lb, MPI_Aint* extent) {
    CH4_API_LOCK();
    return extent_impl(__func__, datatype, lb, extent, true);
}
CH4_PMPI(MPI_Type_get_true_extent_c)
int MPI_Type_get_true_extent_c(MPI_Datatype datatype, MPI_Count* lb, MPI_Count* extent) {
    CH4_API_LOCK();
    return extent_impl(__func__, datatype, lb, extent, true);
}
CH4_PMPI(MPI_Type_get_true_extent_x)
int MPI_Type_get_true_extent_x(MPI_Datatype datatype, MPI_Count* lb, MPI_Count* extent) {
    CH4_API_LOCK();
    return extent_impl(__func__, datatype, lb, extent, true);
}

CH4_PMPI(MPI_Get_address)
int MPI_Get_address(const void* location, MPI_Aint* address) {
    CH4_API_LOCK();
    // usable before MPI_Init (MPI 5.1.5)
    if (!address) CH4_FAIL_ANYTIME(MPI_ERR_ARG, "invalid address: must not be NULL");
    *address = reinterpret_cast<MPI_Aint>(location);
    return MPI_SUCCESS;
}
CH4_PMPI(MPI_Aint_add)
MPI_Aint MPI_Aint_add(MPI_Aint base, MPI_Aint disp) {
    CH4_API_LOCK();
    return static_cast<MPI_Aint>(static_cast<uintptr_t>(base) + static_cast<uintptr_t>(disp));
}
CH4_PMPI(MPI_Aint_diff)
MPI_Aint MPI_Aint_diff(MPI_Aint addr1, MPI_Aint addr2) {
    CH4_API_LOCK();
    return static_cast<MPI_Aint>(static_cast<uintptr_t>(addr1) - static_cast<uintptr_t>(addr2));
}

CH4_PMPI(MPI_Get_elements)
int MPI_Get_elements(const MPI_Status* status, MPI_Datatype datatype, int* count) {
    CH4_API_LOCK();
    return elements_impl(__func__, status, datatype, count);
}
CH4_PMPI(MPI_Get_elements_c)
int MPI_Get_elements_c(const MPI_Status* status, MPI_Datatype datatype, MPI_Count* count) {
    CH4_API_LOCK();
    return elements_impl(__func__, status, datatype, count);
}
CH4_PMPI(MPI_Get_elements_x)
int MPI_Get_elements_x(const MPI_Status* status, MPI_Datatype datatype, MPI_Count* count) {
    CH4_API_LOCK();
    return elements_impl(__func__, status, datatype, count);
}
CH4_PMPI(MPI_Status_set_elements)
int MPI_Status_set_elements(MPI_Status* status, MPI_Datatype datatype, int count) {
    CH4_API_LOCK();
    return set_elements_impl(__func__, status, datatype, count);
}
CH4_PMPI(MPI_Status_set_elements_c)
int MPI_Status_set_elements_c(MPI_Status* status, MPI_Datatype datatype, MPI_Count count) {
    CH4_API_LOCK();
    return set_elements_impl(__func__, status, datatype, count);
}
CH4_PMPI(MPI_Status_set_elements_x)
int MPI_Status_set_elements_x(MPI_Status* status, MPI_Datatype datatype, MPI_Count count) {
    CH4_API_LOCK();
    return set_elements_impl(__func__, status, datatype, count);
}

// Handles are 31-bit positive values (util/handle.hpp), so the conversion is exact.
CH4_PMPI(MPI_Type_toint)
int MPI_Type_toint(MPI_Datatype datatype) {
    CH4_API_LOCK();
    return static_cast<int>(reinterpret_cast<uintptr_t>(datatype));
}
CH4_PMPI(MPI_Type_fromint)
MPI_Datatype MPI_Type_fromint(int datatype) {
    CH4_API_LOCK();
    return reinterpret_cast<MPI_Datatype>(static_cast<uintptr_t>(static_cast<unsigned>(datatype)));
}

}  // extern "C"
