// SPDX-License-Identifier: MIT
// MPI_Type_set_name / MPI_Type_get_name. Names live here, by handle, not in
// DAME (a name is not part of a type map): predefined types start with their
// MPI name ("MPI_DOUBLE_INT") and may be renamed, derived types and dups start
// unnamed, MPI_Type_free forgets the name (erase_type_name). Names longer
// than MPI_MAX_OBJECT_NAME - 1 characters are truncated. MPI is at most
// MPI_THREAD_SERIALIZED here: nothing is locked.
#include <cstring>
#include <new>
#include <string>
#include <unordered_map>

#include "api/datatype_util.hpp"

using namespace ch4lite;
using ch4lite::api::dt::check_ptr;
using ch4lite::api::dt::resolve;

namespace {

std::unordered_map<uintptr_t, std::string>* g_names = nullptr;  // allocated on first use

uintptr_t key(MPI_Datatype h) { return reinterpret_cast<uintptr_t>(h); }

}  // namespace

namespace ch4lite::api {

void erase_type_name(MPI_Datatype dt) noexcept {
    if (g_names) g_names->erase(key(dt));
}

}  // namespace ch4lite::api

extern "C" {

CH4_PMPI(MPI_Type_set_name)
int MPI_Type_set_name(MPI_Datatype datatype, const char* type_name) {
    CH4_API_LOCK();
    const char* fn = __func__;
    DT_REQUIRE_INIT();
    dame::type* t = nullptr;
    DT_TRY(resolve(fn, "datatype", datatype, &t));
    DT_TRY(check_ptr(fn, "type_name", type_name));
    try {
            if (!g_names) g_names = new std::unordered_map<uintptr_t, std::string>();
        (*g_names)[key(datatype)].assign(type_name, strnlen(type_name, MPI_MAX_OBJECT_NAME - 1));
    } catch (const std::bad_alloc&) {
        DT_FAIL(MPI_ERR_NO_MEM, "out of memory storing the name");
    }
    return MPI_SUCCESS;
}

CH4_PMPI(MPI_Type_get_name)
int MPI_Type_get_name(MPI_Datatype datatype, char* type_name, int* resultlen) {
    CH4_API_LOCK();
    const char* fn = __func__;
    DT_REQUIRE_INIT();
    dame::type* t = nullptr;
    DT_TRY(resolve(fn, "datatype", datatype, &t));
    DT_TRY(check_ptr(fn, "type_name", type_name));
    DT_TRY(check_ptr(fn, "resultlen", resultlen));
    const char* name = t->is_predefined() ? t->predef()->name : "";
    size_t len = std::strlen(name);
    if (g_names) {
        if (auto it = g_names->find(key(datatype)); it != g_names->end()) {
            name = it->second.c_str();
            len = it->second.size();
        }
    }
    std::memcpy(type_name, name, len + 1);
    *resultlen = static_cast<int>(len);
    return MPI_SUCCESS;
}

}  // extern "C"
