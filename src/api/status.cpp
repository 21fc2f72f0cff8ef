// SPDX-License-Identifier: MIT
// MPI-5.0 status accessors.
#include "api/errors.hpp"
#include "api/status_util.hpp"

using namespace ch4lite;

extern "C" {

CH4_PMPI(MPI_Status_get_source)
int MPI_Status_get_source(const MPI_Status* s, int* source) {
    CH4_API_LOCK();
    CH4_REQUIRE_INIT();
    if (!s || !source) CH4_FAIL_SELF(MPI_ERR_ARG, "status or source is NULL");
    *source = s->MPI_SOURCE;
    return MPI_SUCCESS;
}
CH4_PMPI(MPI_Status_get_tag)
int MPI_Status_get_tag(const MPI_Status* s, int* tag) {
    CH4_API_LOCK();
    CH4_REQUIRE_INIT();
    if (!s || !tag) CH4_FAIL_SELF(MPI_ERR_ARG, "status or tag is NULL");
    *tag = s->MPI_TAG;
    return MPI_SUCCESS;
}
CH4_PMPI(MPI_Status_get_error)
int MPI_Status_get_error(const MPI_Status* s, int* error) {
    CH4_API_LOCK();
    CH4_REQUIRE_INIT();
    if (!s || !error) CH4_FAIL_SELF(MPI_ERR_ARG, "status or error is NULL");
    *error = s->MPI_ERROR;
    return MPI_SUCCESS;
}
CH4_PMPI(MPI_Status_set_source)
int MPI_Status_set_source(MPI_Status* s, int source) {
    CH4_API_LOCK();
    CH4_REQUIRE_INIT();
    if (!s) CH4_FAIL_SELF(MPI_ERR_ARG, "status is NULL");
    s->MPI_SOURCE = source;
    return MPI_SUCCESS;
}
CH4_PMPI(MPI_Status_set_tag)
int MPI_Status_set_tag(MPI_Status* s, int tag) {
    CH4_API_LOCK();
    CH4_REQUIRE_INIT();
    if (!s) CH4_FAIL_SELF(MPI_ERR_ARG, "status is NULL");
    s->MPI_TAG = tag;
    return MPI_SUCCESS;
}
CH4_PMPI(MPI_Status_set_error)
int MPI_Status_set_error(MPI_Status* s, int error) {
    CH4_API_LOCK();
    CH4_REQUIRE_INIT();
    if (!s) CH4_FAIL_SELF(MPI_ERR_ARG, "status is NULL");
    s->MPI_ERROR = error;
    return MPI_SUCCESS;
}
CH4_PMPI(MPI_Status_set_cancelled)
int MPI_Status_set_cancelled(MPI_Status* s, int flag) {
    CH4_API_LOCK();
    CH4_REQUIRE_INIT();
    if (!s) CH4_FAIL_SELF(MPI_ERR_ARG, "status is NULL");
    api::set_status_cancelled(s, flag != 0);
    return MPI_SUCCESS;
}

}  // extern "C"
