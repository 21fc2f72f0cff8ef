// SPDX-License-Identifier: MIT
// Error classes, codes and strings of the user (MPI-4.1 §9.5):
// MPI_Add_error_class, MPI_Add_error_code, MPI_Add_error_string and
// MPI_Remove_error_class, _code, _string. A user value is
// MPI_ERR_LASTCODE + 1 + an index into a table of entries; values are never
// reused, so a stale code cannot name a newer one. MPI_Error_class and
// MPI_Error_string answer for them (api/errors.cpp), error handlers receive
// them like any code, and MPI_LASTUSEDCODE is the largest one alive
// (MPI_ERR_LASTCODE when there is none).
#include "api/errors_user.hpp"

#include <mpi.h>

#include <cstring>
#include <new>
#include <string>
#include <vector>

#include "api/errors.hpp"

using namespace ch4lite;

namespace {

struct entry {
    bool live = false;
    bool is_class = false;
    int cls = 0;        // a code's class (a class: itself)
    int codes = 0;      // a class: live codes in it
    bool has_text = false;
    std::string text;
};
std::vector<entry> g_entries;
constexpr int first_value = MPI_ERR_LASTCODE + 1;

entry* find(int code) noexcept {
    if (code < first_value) return nullptr;
    const auto i = static_cast<std::size_t>(code - first_value);
    return i < g_entries.size() && g_entries[i].live ? &g_entries[i] : nullptr;
}

bool predefined_class(int cls) noexcept {
    return cls > MPI_SUCCESS && cls <= MPI_ERR_LASTCODE && api::valid_code(cls) && api::class_of(cls) == cls;
}

// A new entry's value, or 0 when none is left or memory ran out.
int add(bool is_class, int cls) noexcept {
    if (g_entries.size() >= static_cast<std::size_t>(INT32_MAX - first_value)) return 0;
    try {
        g_entries.emplace_back();
    } catch (const std::bad_alloc&) {
        return 0;
    }
    const int v = first_value + static_cast<int>(g_entries.size() - 1);
    entry& e = g_entries.back();
    e.live = true;
    e.is_class = is_class;
    e.cls = is_class ? v : cls;
    return v;
}

}  // namespace

namespace ch4lite::api {

bool user_code_valid(int code) noexcept { return find(code) != nullptr; }
int user_class_of(int code) noexcept {
    const entry* e = find(code);
    return e ? e->cls : code;
}
const char* user_text_of(int code) noexcept {
    const entry* e = find(code);
    return e ? e->text.c_str() : "unknown error code";
}
int last_used_code() noexcept {
    for (std::size_t i = g_entries.size(); i-- > 0;)
        if (g_entries[i].live) return first_value + static_cast<int>(i);
    return MPI_ERR_LASTCODE;
}

}  // namespace ch4lite::api

extern "C" {

CH4_PMPI(MPI_Add_error_class)
int MPI_Add_error_class(int* errorclass) {
    CH4_API_LOCK();
    CH4_REQUIRE_INIT();
    if (!errorclass) CH4_FAIL_SELF(MPI_ERR_ARG, "errorclass (output) is NULL");
    const int v = add(true, 0);
    if (!v) CH4_FAIL_SELF(MPI_ERR_NO_MEM, "cannot add an error class");
    *errorclass = v;
    return MPI_SUCCESS;
}

CH4_PMPI(MPI_Add_error_code)
int MPI_Add_error_code(int errorclass, int* errorcode) {
    CH4_API_LOCK();
    CH4_REQUIRE_INIT();
    if (!errorcode) CH4_FAIL_SELF(MPI_ERR_ARG, "errorcode (output) is NULL");
    entry* c = find(errorclass);
    if (!(c && c->is_class) && !predefined_class(errorclass))
        CH4_FAIL_SELF(MPI_ERR_ARG,
                      "invalid errorclass %d: not a predefined error class or one added with "
                      "MPI_Add_error_class", errorclass);
    const int v = add(false, errorclass);
    if (!v) CH4_FAIL_SELF(MPI_ERR_NO_MEM, "cannot add an error code");
    if (entry* cls = find(errorclass)) ++cls->codes;  // (find again: add may have moved the table)
    *errorcode = v;
    return MPI_SUCCESS;
}

CH4_PMPI(MPI_Add_error_string)
int MPI_Add_error_string(int errorcode, const char* string) {
    CH4_API_LOCK();
    CH4_REQUIRE_INIT();
    if (!string) CH4_FAIL_SELF(MPI_ERR_ARG, "string is NULL");
    entry* e = find(errorcode);
    if (!e)
        CH4_FAIL_SELF(MPI_ERR_ARG,
                      "invalid errorcode %d: only classes and codes added with MPI_Add_error_class "
                      "or MPI_Add_error_code take a string", errorcode);
    const std::size_t n = std::strlen(string);
    if (n >= MPI_MAX_ERROR_STRING)
        CH4_FAIL_SELF(MPI_ERR_ARG, "the string has %zu characters: at most %d fit", n,
                      MPI_MAX_ERROR_STRING - 1);
    try {
        e->text.assign(string, n);
    } catch (const std::bad_alloc&) {
        CH4_FAIL_SELF(MPI_ERR_NO_MEM, "cannot store the string");
    }
    e->has_text = true;
    return MPI_SUCCESS;
}

CH4_PMPI(MPI_Remove_error_class)
int MPI_Remove_error_class(int errorclass) {
    CH4_API_LOCK();
    CH4_REQUIRE_INIT();
    entry* e = find(errorclass);
    if (!e || !e->is_class)
        CH4_FAIL_SELF(MPI_ERR_ARG, "invalid errorclass %d: not a class added with MPI_Add_error_class",
                      errorclass);
    if (e->codes > 0)
        CH4_FAIL_SELF(MPI_ERR_ARG,
                      "error class %d still has %d error codes: remove them first (MPI_Remove_error_code)",
                      errorclass, e->codes);
    e->live = false;
    e->text.clear();
    return MPI_SUCCESS;
}

CH4_PMPI(MPI_Remove_error_code)
int MPI_Remove_error_code(int errorcode) {
    CH4_API_LOCK();
    CH4_REQUIRE_INIT();
    entry* e = find(errorcode);
    if (!e || e->is_class)
        CH4_FAIL_SELF(MPI_ERR_ARG, "invalid errorcode %d: not a code added with MPI_Add_error_code",
                      errorcode);
    if (entry* c = find(e->cls)) --c->codes;
    e->live = false;
    e->text.clear();
    return MPI_SUCCESS;
}

CH4_PMPI(MPI_Remove_error_string)
int MPI_Remove_error_string(int errorcode) {
    CH4_API_LOCK();
    CH4_REQUIRE_INIT();
    entry* e = find(errorcode);
    if (!e)
        CH4_FAIL_SELF(MPI_ERR_ARG, "invalid errorcode %d: not a class or code added by the user",
                      errorcode);
    if (!e->has_text)
        CH4_FAIL_SELF(MPI_ERR_ARG, "error %d has no string (MPI_Add_error_string)", errorcode);
    e->text.clear();
    e->has_text = false;
    return MPI_SUCCESS;
}

}  // extern "C"
