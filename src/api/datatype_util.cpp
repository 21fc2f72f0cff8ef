// SPDX-License-Identifier: MIT
#include "api/datatype_util.hpp"

namespace ch4lite::api::dt {

int resolve(const char* fn, const char* what, MPI_Datatype h, dame::type** out) noexcept {
    if (h == MPI_DATATYPE_NULL) DT_FAIL(MPI_ERR_TYPE, "invalid %s: MPI_DATATYPE_NULL", what);
    *out = lookup_type_mut(h);
    if (!*out)
        DT_FAIL(MPI_ERR_TYPE, "invalid %s %p: not a predefined or live derived datatype", what,
                static_cast<void*>(h));
    return MPI_SUCCESS;
}

int check_count(const char* fn, const char* what, int64_t v) noexcept {
    if (v < 0) DT_FAIL(MPI_ERR_COUNT, "invalid %s %lld: must be >= 0", what, static_cast<long long>(v));
    return MPI_SUCCESS;
}

int check_nonneg(const char* fn, const char* what, int64_t v) noexcept {
    if (v < 0) DT_FAIL(MPI_ERR_ARG, "invalid %s %lld: must be >= 0", what, static_cast<long long>(v));
    return MPI_SUCCESS;
}

int check_ptr(const char* fn, const char* what, const void* p) noexcept {
    if (!p) DT_FAIL(MPI_ERR_ARG, "invalid %s: must not be NULL", what);
    return MPI_SUCCESS;
}

int check_moved_type(const char* fn, int64_t count, MPI_Datatype datatype, const dame::type** t) noexcept {
    if (count < 0) return error_code(MPI_ERR_COUNT, fn, "invalid count %lld: must be >= 0", static_cast<long long>(count));
    if (datatype == MPI_DATATYPE_NULL) return error_code(MPI_ERR_TYPE, fn, "invalid datatype: MPI_DATATYPE_NULL");
    *t = lookup_type(datatype);
    if (!*t)
        return error_code(MPI_ERR_TYPE, fn, "invalid datatype %p: not a predefined or live derived datatype",
                          static_cast<void*>(datatype));
    if (!(*t)->committed()) return error_code(MPI_ERR_TYPE, fn, "datatype is not committed (call MPI_Type_commit)");
    return MPI_SUCCESS;
}

int check_span(const char* fn, bool pack, const char* kind, bool position_null, int64_t pos,
               int64_t size, int64_t bytes, const void* buf) noexcept {
    const char* size_name = pack ? "outsize" : "insize";
    const auto ll = [](int64_t v) { return static_cast<long long>(v); };
    if (position_null) return error_code(MPI_ERR_ARG, fn, "invalid position: must not be NULL");
    if (size < 0) return error_code(MPI_ERR_ARG, fn, "invalid %s %lld: must be >= 0", size_name, ll(size));
    if (pos < 0 || pos > size)
        return error_code(MPI_ERR_ARG, fn, "invalid position %lld: must be in [0, %s=%lld]", ll(pos), size_name,
                          ll(size));
    if (bytes > size - pos) {
        if (pack)
            return error_code(MPI_ERR_TRUNCATE, fn, "%lld %sbytes do not fit in outsize %lld at position %lld",
                              ll(bytes), kind, ll(size), ll(pos));
        return error_code(MPI_ERR_TRUNCATE, fn, "unpacking %lld %sbytes but only %lld remain after position %lld",
                          ll(bytes), kind, ll(size - pos), ll(pos));
    }
    if (bytes > 0 && !buf)
        return error_code(MPI_ERR_BUFFER, fn, "invalid %s: NULL with %lld bytes to %s", pack ? "outbuf" : "inbuf",
                          ll(bytes), pack ? "pack" : "unpack");
    return MPI_SUCCESS;
}

int finish(const char* fn, ch4lite::status s, dame::type* t, dame::contents c, bool large,
           std::span<dame::type* const> user, MPI_Datatype* newtype) noexcept {
    switch (s) {
        case ch4lite::status::ok: break;
        case ch4lite::status::no_mem: DT_FAIL(MPI_ERR_NO_MEM, "out of memory creating the datatype");
        case ch4lite::status::range:
            DT_FAIL(MPI_ERR_ARG, "datatype size or bounds overflow 64-bit byte arithmetic");
        default: DT_FAIL(MPI_ERR_ARG, "invalid datatype construction (%s)", ch4lite::to_string(s));
    }
    try {
        t->set_contents(std::move(c), large);
        t->set_user_types(user.data(), user.size());
    } catch (...) {
        t->release();
        DT_FAIL(MPI_ERR_NO_MEM, "out of memory recording the datatype's contents");
    }
    int cls = 0;
    const MPI_Datatype h = new_type_handle(t, &cls);
    if (h == MPI_DATATYPE_NULL)
        DT_FAIL(cls, "%s", cls == MPI_ERR_NO_MEM ? "out of memory for the datatype's handle"
                                                  : "too many live datatypes (handle table full)");
    *newtype = h;
    return MPI_SUCCESS;
}

}  // namespace ch4lite::api::dt
