// SPDX-License-Identifier: MIT
// MPI_Pack_external / MPI_Unpack_external / MPI_Pack_external_size and their
// _c forms: the "external32" representation (dame/external32.hpp), the only
// one MPI defines for them. They take no communicator: errors go to
// MPI_COMM_SELF's handler.
#include <cstring>

#include "api/datatype_util.hpp"
#include "api/handles.hpp"
#include "dame/external32.hpp"

using namespace ch4lite;

namespace {

// datarep, count and datatype; on success *t is the committed type and
// *bytes the external32 size of count instances.
int check(const char* fn, const char* datarep, int64_t count, MPI_Datatype datatype,
          const dame::type** t, int64_t* bytes) {
    if (!datarep) DT_FAIL(MPI_ERR_ARG, "invalid datarep: must not be NULL");
    if (std::strcmp(datarep, "external32") != 0)
        DT_FAIL(MPI_ERR_UNSUPPORTED_DATAREP, "datarep \"%.64s\" is not supported: only \"external32\"",
                datarep);
    if (const int code = api::dt::check_moved_type(fn, count, datatype, t)) return api::raise_self(code);
    int64_t one = 0;
    const status s = dame::ext32_size(**t, &one);
    if (s == status::no_mem) DT_FAIL(MPI_ERR_NO_MEM, "out of memory walking the datatype");
    if (s != status::ok || __builtin_mul_overflow(count, one, bytes))
        DT_FAIL(MPI_ERR_VALUE_TOO_LARGE, "the external32 size of %lld elements of this datatype overflows 64 bits",
                static_cast<long long>(count));
    return MPI_SUCCESS;
}

template <class N>
int pack_external_impl(const char* fn, const char* datarep, const void* inbuf, int64_t incount,
                       MPI_Datatype datatype, void* outbuf, int64_t outsize, N* position) {
    DT_REQUIRE_INIT();
    const dame::type* t = nullptr;
    int64_t bytes = 0;
    DT_TRY(check(fn, datarep, incount, datatype, &t, &bytes));
    const int64_t pos = position ? *position : 0;
    if (const int code = api::dt::check_span(fn, true, "external32 ", !position, pos, outsize, bytes, outbuf))
        return api::raise_self(code);
    if (bytes > 0) {
        dame::ext32_fault fault;
        const status s = dame::ext32_pack(*t, inbuf, incount, static_cast<char*>(outbuf) + pos, &fault);
        if (s == status::no_mem)
            DT_FAIL(MPI_ERR_NO_MEM, "out of memory walking the datatype; position left at %lld",
                    static_cast<long long>(pos));
        if (s != status::ok)
            DT_FAIL(MPI_ERR_CONVERSION,
                    "element %lld (%s) does not fit its external32 size; position left at %lld",
                    static_cast<long long>(fault.element), fault.type_name, static_cast<long long>(pos));
    }
    *position = static_cast<N>(pos + bytes);
    return MPI_SUCCESS;
}

template <class N>
int unpack_external_impl(const char* fn, const char* datarep, const void* inbuf, int64_t insize, N* position,
                         void* outbuf, int64_t outcount, MPI_Datatype datatype) {
    DT_REQUIRE_INIT();
    const dame::type* t = nullptr;
    int64_t bytes = 0;
    DT_TRY(check(fn, datarep, outcount, datatype, &t, &bytes));
    const int64_t pos = position ? *position : 0;
    if (const int code = api::dt::check_span(fn, false, "external32 ", !position, pos, insize, bytes, inbuf))
        return api::raise_self(code);
    if (bytes > 0 && dame::ext32_unpack(*t, outbuf, outcount, static_cast<const char*>(inbuf) + pos) != status::ok)
        DT_FAIL(MPI_ERR_NO_MEM, "out of memory walking the datatype; position left at %lld",
                static_cast<long long>(pos));
    *position = static_cast<N>(pos + bytes);
    return MPI_SUCCESS;
}

template <class N>
int size_impl(const char* fn, const char* datarep, int64_t incount, MPI_Datatype datatype, N* size) {
    DT_REQUIRE_INIT();
    const dame::type* t = nullptr;
    int64_t bytes = 0;
    DT_TRY(check(fn, datarep, incount, datatype, &t, &bytes));
    if (!size) DT_FAIL(MPI_ERR_ARG, "invalid size: must not be NULL");
    *size = static_cast<N>(bytes);
    return MPI_SUCCESS;
}

}  // namespace

extern "C" {

CH4_PMPI(MPI_Pack_external)
int MPI_Pack_external(const char datarep[], const void* inbuf, int incount, MPI_Datatype datatype,
                      void* outbuf, MPI_Aint outsize, MPI_Aint* position) {
    CH4_API_LOCK();
    return pack_external_impl(__func__, datarep, inbuf, incount, datatype, outbuf, outsize, position);
}
CH4_PMPI(MPI_Pack_external_c)
int MPI_Pack_external_c(const char datarep[], const void* inbuf, MPI_Count incount, MPI_Datatype datatype,
                        void* outbuf, MPI_Count outsize, MPI_Count* position) {
    CH4_API_LOCK();
    return pack_external_impl(__func__, datarep, inbuf, incount, datatype, outbuf, outsize, position);
}
CH4_PMPI(MPI_Unpack_external)
int MPI_Unpack_external(const char datarep[], const void* inbuf, MPI_Aint insize, MPI_Aint* position,
                        void* outbuf, int outcount, MPI_Datatype datatype) {
    CH4_API_LOCK();
    return unpack_external_impl(__func__, datarep, inbuf, insize, position, outbuf, outcount, datatype);
}
CH4_PMPI(MPI_Unpack_external_c)
int MPI_Unpack_external_c(const char datarep[], const void* inbuf, MPI_Count insize, MPI_Count* position,
                          void* outbuf, MPI_Count outcount, MPI_Datatype datatype) {
    CH4_API_LOCK();
    return unpack_external_impl(__func__, datarep, inbuf, insize, position, outbuf, outcount, datatype);
}
CH4_PMPI(MPI_Pack_external_size)
int MPI_Pack_external_size(const char datarep[], int incount, MPI_Datatype datatype, MPI_Aint* size) {
    CH4_API_LOCK();
    return size_impl(__func__, datarep, incount, datatype, size);
}
CH4_PMPI(MPI_Pack_external_size_c)
int MPI_Pack_external_size_c(const char datarep[], MPI_Count incount, MPI_Datatype datatype,
                             MPI_Count* size) {
    CH4_API_LOCK();
    return size_impl(__func__, datarep, incount, datatype, size);
}

}  // extern "C"
