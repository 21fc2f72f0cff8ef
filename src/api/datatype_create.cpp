// SPDX-License-Identifier: MIT
// MPI type constructors: argument checks, then dame::make_* (all logic is in
// DAME). The _c (large-count) variants share the same bodies; what differs is
// only which contents arrays MPI_Type_get_contents reports.
#include <cstring>
#include <new>

#include "api/datatype_attr.hpp"
#include "api/datatype_util.hpp"

using namespace ch4lite;
using ch4lite::api::dt::check_count;
using ch4lite::api::dt::check_ptr;
using ch4lite::api::dt::finish;
using ch4lite::api::dt::resolve;
using ch4lite::api::dt::widen;

namespace {

using dame::contents;
using dame::type;

// Runs body (build the type into t, record its contents, finish()); out of
// memory on the way drops the new type (if any) and fails the call cleanly.
template <class Body>
int guarded(const char* fn, type*& t, Body&& body) {
    try {
        return body();
    } catch (const std::bad_alloc&) {
        if (t) t->release();
        DT_FAIL(MPI_ERR_NO_MEM, "out of memory creating the datatype");
    }
}

// Room for n values in ints (small) or counts (large), allocated once.
void reserve(contents& c, bool large, size_t n) {
    if (large) c.counts.reserve(n);
    else c.ints.reserve(n);
}
// Appends v to ints (small) or counts (large).
void put(contents& c, bool large, std::initializer_list<int64_t> v) {
    for (int64_t x : v) {
        if (large) c.counts.push_back(x);
        else c.ints.push_back(static_cast<int>(x));
    }
}
template <class T>
void put(contents& c, bool large, const T* v, int64_t n) {
    if (large) {
        c.counts.insert(c.counts.end(), v, v + n);
        return;
    }
    const size_t at = c.ints.size();
    c.ints.resize(at + static_cast<size_t>(n));
    if constexpr (std::is_same_v<T, int>) {
        if (n) std::memcpy(c.ints.data() + at, v, static_cast<size_t>(n) * sizeof(int));
    } else {
        for (int64_t i = 0; i < n; ++i) c.ints[at + i] = static_cast<int>(v[i]);
    }
}
void put(contents& c, bool large, const dame::pool_vec<int64_t>& v) {
    put(c, large, v.data(), static_cast<int64_t>(v.size()));
}

// The array order of subarray and darray: MPI_ORDER_C or MPI_ORDER_FORTRAN.
int check_order(const char* fn, int order) {
    if (order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN)
        DT_FAIL(MPI_ERR_ARG, "invalid order %d: must be MPI_ORDER_C or MPI_ORDER_FORTRAN", order);
    return MPI_SUCCESS;
}

int contiguous_impl(const char* fn, int64_t count, bool large, MPI_Datatype oldtype,
                    MPI_Datatype* newtype) {
    DT_REQUIRE_INIT();
    type* old = nullptr;
    DT_TRY(check_count(fn, "count", count));
    DT_TRY(resolve(fn, "oldtype", oldtype, &old));
    DT_TRY(check_ptr(fn, "newtype", newtype));
    type* t = nullptr;
    const status s = dame::make_contiguous(count, old, &t);
    return guarded(fn, t, [&] {
        contents c;
        put(c, large, {count});
        return finish(fn, s, t, std::move(c), large, {&old, 1}, newtype);
    });
}

int vector_impl(const char* fn, int64_t count, int64_t bl, int64_t stride, bool bytes, bool large,
                MPI_Datatype oldtype, MPI_Datatype* newtype) {
    DT_REQUIRE_INIT();
    type* old = nullptr;
    DT_TRY(check_count(fn, "count", count));
    DT_TRY(check_count(fn, "blocklength", bl));
    DT_TRY(resolve(fn, "oldtype", oldtype, &old));
    DT_TRY(check_ptr(fn, "newtype", newtype));
    type* t = nullptr;
    const status s = dame::make_vector(count, bl, stride, bytes, old, &t);
    return guarded(fn, t, [&] {
        contents c;
        reserve(c, large, bytes && !large ? 2 : 3);
        put(c, large, {count, bl});
        if (bytes && !large) c.aints.push_back(stride);
        else put(c, large, {stride});
        return finish(fn, s, t, std::move(c), large, {&old, 1}, newtype);
    });
}

template <class B, class D>
int indexed_impl(const char* fn, int64_t count, const B* bl, const D* disps, bool bytes, bool large,
                 MPI_Datatype oldtype, MPI_Datatype* newtype) {
    DT_REQUIRE_INIT();
    type* old = nullptr;
    DT_TRY(check_count(fn, "count", count));
    if (count > 0) {
        DT_TRY(check_ptr(fn, "array_of_blocklengths", bl));
        DT_TRY(check_ptr(fn, "array_of_displacements", disps));
    }
    for (int64_t i = 0; i < count; ++i)
        if (bl[i] < 0)
            DT_FAIL(MPI_ERR_COUNT, "invalid array_of_blocklengths[%lld] = %lld: must be >= 0",
                    static_cast<long long>(i), static_cast<long long>(bl[i]));
    DT_TRY(resolve(fn, "oldtype", oldtype, &old));
    DT_TRY(check_ptr(fn, "newtype", newtype));
    type* t = nullptr;
    return guarded(fn, t, [&] {
        const auto b = widen(bl, count);
        auto d = widen(disps, count);
        const status s = dame::make_indexed(count, b.data(), d.data(), bytes, old, &t);
        contents c;
        reserve(c, large, 1 + count + (bytes && !large ? 0 : count));
        put(c, large, {count});
        put(c, large, b);
        if (bytes && !large) c.aints = std::move(d);  // the type holds its own copy
        else put(c, large, d);
        return finish(fn, s, t, std::move(c), large, {&old, 1}, newtype);
    });
}

template <class D>
int block_impl(const char* fn, int64_t count, int64_t bl, const D* disps, bool bytes, bool large,
               MPI_Datatype oldtype, MPI_Datatype* newtype) {
    DT_REQUIRE_INIT();
    type* old = nullptr;
    DT_TRY(check_count(fn, "count", count));
    DT_TRY(check_count(fn, "blocklength", bl));
    if (count > 0) DT_TRY(check_ptr(fn, "array_of_displacements", disps));
    DT_TRY(resolve(fn, "oldtype", oldtype, &old));
    DT_TRY(check_ptr(fn, "newtype", newtype));
    type* t = nullptr;
    return guarded(fn, t, [&] {
        // The user's list goes to the type and to the contents as it is
        // (ints, or 64-bit values), without a widened copy in between.
        status s;
        if constexpr (std::is_same_v<D, int>) {
            s = dame::make_indexed_block(count, bl, disps, old, &t);  // bytes: only with MPI_Aint
        } else {
            static_assert(std::is_same_v<D, int64_t>);  // MPI_Aint, MPI_Count
            s = dame::make_indexed_block(count, bl, disps, bytes, old, &t);
        }
        contents c;
        reserve(c, large, 2 + (bytes && !large ? 0 : count));
        put(c, large, {count, bl});
        if (bytes && !large) c.aints.assign(disps, disps + count);
        else put(c, large, disps, count);
        return finish(fn, s, t, std::move(c), large, {&old, 1}, newtype);
    });
}

template <class B, class D>
int struct_impl(const char* fn, int64_t count, const B* bl, const D* disps,
                const MPI_Datatype* types, bool large, MPI_Datatype* newtype) {
    DT_REQUIRE_INIT();
    DT_TRY(check_count(fn, "count", count));
    if (count > 0) {
        DT_TRY(check_ptr(fn, "array_of_blocklengths", bl));
        DT_TRY(check_ptr(fn, "array_of_displacements", disps));
        DT_TRY(check_ptr(fn, "array_of_types", types));
    }
    DT_TRY(check_ptr(fn, "newtype", newtype));
    type* t = nullptr;
    return guarded(fn, t, [&] {
        dame::pool_vec<type*> ts(static_cast<size_t>(count), nullptr);
        for (int64_t i = 0; i < count; ++i) {
            if (bl[i] < 0)
                DT_FAIL(MPI_ERR_COUNT, "invalid array_of_blocklengths[%lld] = %lld: must be >= 0",
                        static_cast<long long>(i), static_cast<long long>(bl[i]));
            if (types[i] == MPI_DATATYPE_NULL || !(ts[i] = api::lookup_type_mut(types[i])))
                DT_FAIL(MPI_ERR_TYPE, "invalid array_of_types[%lld] %p: not a valid datatype",
                        static_cast<long long>(i), static_cast<void*>(types[i]));
        }
        const auto b = widen(bl, count);
        auto d = widen(disps, count);
        const status s = dame::make_struct(count, b.data(), d.data(), ts.data(), &t);
        contents c;
        reserve(c, large, 1 + count + (large ? count : 0));
        put(c, large, {count});
        put(c, large, b);
        if (!large) c.aints = std::move(d);  // the type holds its own copy
        else put(c, large, d);
        return finish(fn, s, t, std::move(c), large, ts, newtype);
    });
}

template <class N>
int subarray_impl(const char* fn, int ndims, const N* sizes, const N* subsizes, const N* starts,
                  int order, bool large, MPI_Datatype oldtype, MPI_Datatype* newtype) {
    DT_REQUIRE_INIT();
    type* old = nullptr;
    if (ndims <= 0) DT_FAIL(MPI_ERR_ARG, "invalid ndims %d: must be > 0", ndims);
    DT_TRY(check_ptr(fn, "array_of_sizes", sizes));
    DT_TRY(check_ptr(fn, "array_of_subsizes", subsizes));
    DT_TRY(check_ptr(fn, "array_of_starts", starts));
    for (int i = 0; i < ndims; ++i) {
        const long long z = sizes[i], sub = subsizes[i], st = starts[i];
        if (z <= 0) DT_FAIL(MPI_ERR_ARG, "invalid array_of_sizes[%d] = %lld: must be > 0", i, z);
        if (sub <= 0 || sub > z)
            DT_FAIL(MPI_ERR_ARG, "invalid array_of_subsizes[%d] = %lld: must be in [1, %lld]", i, sub, z);
        if (st < 0 || st > z - sub)
            DT_FAIL(MPI_ERR_ARG, "invalid array_of_starts[%d] = %lld: must be in [0, %lld]", i, st, z - sub);
    }
    DT_TRY(check_order(fn, order));
    DT_TRY(resolve(fn, "oldtype", oldtype, &old));
    DT_TRY(check_ptr(fn, "newtype", newtype));
    type* t = nullptr;
    return guarded(fn, t, [&] {
        const auto z = widen(sizes, ndims), sub = widen(subsizes, ndims), st = widen(starts, ndims);
        const status s = dame::make_subarray(ndims, z.data(), sub.data(), st.data(),
                                             order == MPI_ORDER_C, old, &t);
        contents c;
        c.ints.reserve(large ? 2 : 3 * ndims + 2);
        if (large) c.counts.reserve(3 * ndims);
        c.ints.push_back(ndims);
        put(c, large, z);
        put(c, large, sub);
        put(c, large, st);
        c.ints.push_back(order);
        return finish(fn, s, t, std::move(c), large, {&old, 1}, newtype);
    });
}

template <class N>
int darray_impl(const char* fn, int size, int rank, int ndims, const N* gsizes, const int* distribs,
                const int* dargs, const int* psizes, int order, bool large, MPI_Datatype oldtype,
                MPI_Datatype* newtype) {
    DT_REQUIRE_INIT();
    type* old = nullptr;
    if (size <= 0) DT_FAIL(MPI_ERR_ARG, "invalid size %d: must be > 0", size);
    if (rank < 0 || rank >= size) DT_FAIL(MPI_ERR_ARG, "invalid rank %d: must be in [0, %d]", rank, size - 1);
    if (ndims <= 0) DT_FAIL(MPI_ERR_ARG, "invalid ndims %d: must be > 0", ndims);
    DT_TRY(check_ptr(fn, "array_of_gsizes", gsizes));
    DT_TRY(check_ptr(fn, "array_of_distribs", distribs));
    DT_TRY(check_ptr(fn, "array_of_dargs", dargs));
    DT_TRY(check_ptr(fn, "array_of_psizes", psizes));
    long long procs = 1;
    for (int i = 0; i < ndims; ++i) {
        const long long g = gsizes[i];
        const int d = distribs[i], a = dargs[i], p = psizes[i];
        if (g <= 0) DT_FAIL(MPI_ERR_ARG, "invalid array_of_gsizes[%d] = %lld: must be > 0", i, g);
        if (p <= 0) DT_FAIL(MPI_ERR_ARG, "invalid array_of_psizes[%d] = %d: must be > 0", i, p);
        if (d != MPI_DISTRIBUTE_NONE && d != MPI_DISTRIBUTE_BLOCK && d != MPI_DISTRIBUTE_CYCLIC)
            DT_FAIL(MPI_ERR_ARG,
                    "invalid array_of_distribs[%d] = %d: must be MPI_DISTRIBUTE_NONE, _BLOCK or _CYCLIC", i, d);
        if (a != MPI_DISTRIBUTE_DFLT_DARG && a <= 0)
            DT_FAIL(MPI_ERR_ARG, "invalid array_of_dargs[%d] = %d: must be > 0 or MPI_DISTRIBUTE_DFLT_DARG", i, a);
        if (d == MPI_DISTRIBUTE_NONE && p != 1)
            DT_FAIL(MPI_ERR_ARG, "invalid array_of_psizes[%d] = %d: must be 1 for MPI_DISTRIBUTE_NONE", i, p);
        if (d == MPI_DISTRIBUTE_BLOCK && a != MPI_DISTRIBUTE_DFLT_DARG && static_cast<long long>(a) * p < g)
            DT_FAIL(MPI_ERR_ARG,
                    "invalid array_of_dargs[%d] = %d: blocks of %d on %d processes do not cover %lld elements",
                    i, a, a, p, g);
        procs *= p;
        if (procs > size) break;
    }
    if (procs != size)
        DT_FAIL(MPI_ERR_ARG, "the process grid (product of array_of_psizes%s) is not size = %d",
                procs > size ? ", at least" : "", size);
    DT_TRY(check_order(fn, order));
    DT_TRY(resolve(fn, "oldtype", oldtype, &old));
    DT_TRY(check_ptr(fn, "newtype", newtype));
    type* t = nullptr;
    return guarded(fn, t, [&] {
        const auto g = widen(gsizes, ndims), p = widen(psizes, ndims);
        std::vector<int64_t> a(static_cast<size_t>(ndims));
        std::vector<dame::distrib> d(static_cast<size_t>(ndims));
        for (int i = 0; i < ndims; ++i) {
            a[i] = dargs[i] == MPI_DISTRIBUTE_DFLT_DARG ? dame::darg_default : dargs[i];
            d[i] = distribs[i] == MPI_DISTRIBUTE_NONE    ? dame::distrib::none
                   : distribs[i] == MPI_DISTRIBUTE_BLOCK ? dame::distrib::block
                                                         : dame::distrib::cyclic;
        }
        const status s = dame::make_darray(size, rank, ndims, g.data(), d.data(), a.data(), p.data(),
                                           order == MPI_ORDER_C, old, &t);
        contents c;  // MPI order: size, rank, ndims, gsizes, distribs, dargs, psizes, order
        c.ints.reserve(static_cast<size_t>(large ? 3 * ndims + 4 : 4 * ndims + 4));
        c.ints.insert(c.ints.end(), {size, rank, ndims});
        put(c, large, g);
        c.ints.insert(c.ints.end(), distribs, distribs + ndims);
        c.ints.insert(c.ints.end(), dargs, dargs + ndims);
        c.ints.insert(c.ints.end(), psizes, psizes + ndims);
        c.ints.push_back(order);
        return finish(fn, s, t, std::move(c), large, {&old, 1}, newtype);
    });
}

int resized_impl(const char* fn, MPI_Datatype oldtype, int64_t lb, int64_t extent, bool large,
                 MPI_Datatype* newtype) {
    DT_REQUIRE_INIT();
    type* old = nullptr;
    DT_TRY(resolve(fn, "oldtype", oldtype, &old));
    DT_TRY(check_ptr(fn, "newtype", newtype));
    type* t = nullptr;
    const status s = dame::make_resized(old, lb, extent, &t);
    return guarded(fn, t, [&] {
        contents c;
        if (large) c.counts = {lb, extent};
        else c.aints = {lb, extent};
        return finish(fn, s, t, std::move(c), large, {&old, 1}, newtype);
    });
}

}  // namespace

extern "C" {

CH4_PMPI(MPI_Type_contiguous)
int MPI_Type_contiguous(int count, MPI_Datatype oldtype, MPI_Datatype* newtype) {
    CH4_API_LOCK();
    return contiguous_impl(__func__, count, false, oldtype, newtype);
}
CH4_PMPI(MPI_Type_contiguous_c)
int MPI_Type_contiguous_c(MPI_Count count, MPI_Datatype oldtype, MPI_Datatype* newtype) {
    CH4_API_LOCK();
    return contiguous_impl(__func__, count, true, oldtype, newtype);
}
CH4_PMPI(MPI_Type_vector)
int MPI_Type_vector(int count, int blocklength, int stride, MPI_Datatype oldtype,
                    MPI_Datatype* newtype) {
    CH4_API_LOCK();
    return vector_impl(__func__, count, blocklength, stride, false, false, oldtype, newtype);
}
CH4_PMPI(MPI_Type_vector_c)
int MPI_Type_vector_c(MPI_Count count, MPI_Count blocklength, MPI_Count stride,
                      MPI_Datatype oldtype, MPI_Datatype* newtype) {
    CH4_API_LOCK();
    return vector_impl(__func__, count, blocklength, stride, false, true, oldtype, newtype);
}
CH4_PMPI(MPI_Type_create_hvector)
int MPI_Type_create_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
                            MPI_Datatype* newtype) {
    CH4_API_LOCK();
    return vector_impl(__func__, count, blocklength, stride, true, false, oldtype, newtype);
}
CH4_PMPI(MPI_Type_create_hvector_c)
int MPI_Type_create_hvector_c(MPI_Count count, MPI_Count blocklength, MPI_Count stride,
                              MPI_Datatype oldtype, MPI_Datatype* newtype) {
    CH4_API_LOCK();
    return vector_impl(__func__, count, blocklength, stride, true, true, oldtype, newtype);
}
CH4_PMPI(MPI_Type_indexed)
int MPI_Type_indexed(int count, const int bl[], const int disps[], MPI_Datatype oldtype,
                     MPI_Datatype* newtype) {
    CH4_API_LOCK();
    return indexed_impl(__func__, count, bl, disps, false, false, oldtype, newtype);
}
CH4_PMPI(MPI_Type_indexed_c)
int MPI_Type_indexed_c(MPI_Count count, const MPI_Count bl[], const MPI_Count disps[],
                       MPI_Datatype oldtype, MPI_Datatype* newtype) {
    CH4_API_LOCK();
    return indexed_impl(__func__, count, bl, disps, false, true, oldtype, newtype);
}
CH4_PMPI(MPI_Type_create_hindexed)
int MPI_Type_create_hindexed(int count, const int bl[], const MPI_Aint disps[],
                             MPI_Datatype oldtype, MPI_Datatype* newtype) {
    CH4_API_LOCK();
    return indexed_impl(__func__, count, bl, disps, true, false, oldtype, newtype);
}
CH4_PMPI(MPI_Type_create_hindexed_c)
int MPI_Type_create_hindexed_c(MPI_Count count, const MPI_Count bl[], const MPI_Count disps[],
                               MPI_Datatype oldtype, MPI_Datatype* newtype) {
    CH4_API_LOCK();
    return indexed_impl(__func__, count, bl, disps, true, true, oldtype, newtype);
}
CH4_PMPI(MPI_Type_create_indexed_block)
int MPI_Type_create_indexed_block(int count, int blocklength, const int disps[],
                                  MPI_Datatype oldtype, MPI_Datatype* newtype) {
    CH4_API_LOCK();
    return block_impl(__func__, count, blocklength, disps, false, false, oldtype, newtype);
}
CH4_PMPI(MPI_Type_create_indexed_block_c)
int MPI_Type_create_indexed_block_c(MPI_Count count, MPI_Count blocklength,
                                    const MPI_Count disps[], MPI_Datatype oldtype,
                                    MPI_Datatype* newtype) {
    CH4_API_LOCK();
    return block_impl(__func__, count, blocklength, disps, false, true, oldtype, newtype);
}
CH4_PMPI(MPI_Type_create_hindexed_block)
int MPI_Type_create_hindexed_block(int count, int blocklength, const MPI_Aint disps[],
                                   MPI_Datatype oldtype, MPI_Datatype* newtype) {
    CH4_API_LOCK();
    return block_impl(__func__, count, blocklength, disps, true, false, oldtype, newtype);
}
CH4_PMPI(MPI_Type_create_hindexed_block_c)
int MPI_Type_create_hindexed_block_c(MPI_Count count, MPI_Count blocklength,
                                     const MPI_Count disps[], MPI_Datatype oldtype,
                                     MPI_Datatype* newtype) {
    CH4_API_LOCK();
    return block_impl(__func__, count, blocklength, disps, true, true, oldtype, newtype);
}
CH4_PMPI(MPI_Type_create_struct)
int MPI_Type_create_struct(int count, const int bl[], const MPI_Aint disps[],
                           const MPI_Datatype types[], MPI_Datatype* newtype) {
    CH4_API_LOCK();
    return struct_impl(__func__, count, bl, disps, types, false, newtype);
}
CH4_PMPI(MPI_Type_create_struct_c)
int MPI_Type_create_struct_c(MPI_Count count, const MPI_Count bl[], const MPI_Count disps[],
                             const MPI_Datatype types[], MPI_Datatype* newtype) {
    CH4_API_LOCK();
    return struct_impl(__func__, count, bl, disps, types, true, newtype);
}
CH4_PMPI(MPI_Type_create_subarray)
int MPI_Type_create_subarray(int ndims, const int sizes[], const int subsizes[],
                             const int starts[], int order, MPI_Datatype oldtype,
                             MPI_Datatype* newtype) {
    CH4_API_LOCK();
    return subarray_impl(__func__, ndims, sizes, subsizes, starts, order, false, oldtype, newtype);
}
CH4_PMPI(MPI_Type_create_subarray_c)
int MPI_Type_create_subarray_c(int ndims, const MPI_Count sizes[], const MPI_Count subsizes[],
                               const MPI_Count starts[], int order, MPI_Datatype oldtype,
                               MPI_Datatype* newtype) {
    CH4_API_LOCK();
    return subarray_impl(__func__, ndims, sizes, subsizes, starts, order, true, oldtype, newtype);
}
CH4_PMPI(MPI_Type_create_darray)
int MPI_Type_create_darray(int size, int rank, int ndims, const int gsizes[], const int distribs[],
                           const int dargs[], const int psizes[], int order, MPI_Datatype oldtype,
                           MPI_Datatype* newtype) {
    CH4_API_LOCK();
    return darray_impl(__func__, size, rank, ndims, gsizes, distribs, dargs, psizes, order, false,
                       oldtype, newtype);
}
CH4_PMPI(MPI_Type_create_darray_c)
int MPI_Type_create_darray_c(int size, int rank, int ndims, const MPI_Count gsizes[],
                             const int distribs[], const int dargs[], const int psizes[], int order,
                             MPI_Datatype oldtype, MPI_Datatype* newtype) {
    CH4_API_LOCK();
    return darray_impl(__func__, size, rank, ndims, gsizes, distribs, dargs, psizes, order, true,
                       oldtype, newtype);
}
CH4_PMPI(MPI_Type_create_resized)
int MPI_Type_create_resized(MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent,
                            MPI_Datatype* newtype) {
    CH4_API_LOCK();
    return resized_impl(__func__, oldtype, lb, extent, false, newtype);
}
CH4_PMPI(MPI_Type_create_resized_c)
int MPI_Type_create_resized_c(MPI_Datatype oldtype, MPI_Count lb, MPI_Count extent,
                              MPI_Datatype* newtype) {
    CH4_API_LOCK();
    return resized_impl(__func__, oldtype, lb, extent, true, newtype);
}
CH4_PMPI(MPI_Type_dup)
int MPI_Type_dup(MPI_Datatype oldtype, MPI_Datatype* newtype) {
    CH4_API_LOCK();
    const char* fn = __func__;
    DT_REQUIRE_INIT();
    dame::type* old = nullptr;
    DT_TRY(resolve(fn, "oldtype", oldtype, &old));
    DT_TRY(check_ptr(fn, "newtype", newtype));
    dame::type* t = nullptr;
    const status s = dame::make_dup(old, &t);
    DT_TRY(finish(fn, s, t, {}, false, {&old, 1}, newtype));
    // The attributes' copy callbacks (MPI 7.7.4); on an error the new type goes again.
    if (const int rc = api::type_attrs_copy(fn, oldtype, *newtype); rc != MPI_SUCCESS) {
        dame::type* dup = api::lookup_type_mut(*newtype);
        api::erase_type_handle(*newtype);
        dup->release();
        *newtype = MPI_DATATYPE_NULL;
        return api::raise_self(rc);
    }
    return MPI_SUCCESS;
}

}  // extern "C"
