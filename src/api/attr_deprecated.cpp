// SPDX-License-Identifier: MIT
// The MPI-1 attribute functions MPI-4.1 keeps as deprecated (§19.1.2):
// MPI_Keyval_create, MPI_Keyval_free, MPI_Attr_put, MPI_Attr_get,
// MPI_Attr_delete. In C each behaves exactly as its MPI_Comm_ form
// (MPI_Comm_create_keyval, free_keyval, set_attr, get_attr, delete_attr):
// the same keyvals, the same attribute lists, the same predefined
// attributes, the same callbacks (MPI_Copy_function and MPI_Delete_function
// are the MPI_Comm_ callback types; MPI_NULL_COPY_FN / MPI_DUP_FN /
// MPI_NULL_DELETE_FN the same sentinel values 0 / 1 / 0, include/mpi.h). So
// a keyval of one family works with the calls of the other. (The difference
// MPI-4.1 notes concerns Fortran's INTEGER attribute values; there is no
// Fortran binding here.) The bodies are api/comm_attr.cpp's; the errors
// name the function called.
#include "api/comm_attr.hpp"

using namespace ch4lite;

extern "C" {

CH4_PMPI(MPI_Keyval_create)
int MPI_Keyval_create(MPI_Copy_function* copy_fn, MPI_Delete_function* delete_fn, int* keyval,
                      void* extra_state) {
    CH4_API_LOCK();
    return api::comm_create_keyval(__func__, copy_fn, delete_fn, keyval, extra_state);
}

CH4_PMPI(MPI_Keyval_free)
int MPI_Keyval_free(int* keyval) { CH4_API_LOCK(); return api::comm_free_keyval(__func__, keyval); }

CH4_PMPI(MPI_Attr_put)
int MPI_Attr_put(MPI_Comm comm, int keyval, void* attribute_val) {
    CH4_API_LOCK();
    return api::comm_set_attr(__func__, comm, keyval, attribute_val);
}

CH4_PMPI(MPI_Attr_get)
int MPI_Attr_get(MPI_Comm comm, int keyval, void* attribute_val, int* flag) {
    CH4_API_LOCK();
    return api::comm_get_attr(__func__, comm, keyval, attribute_val, flag);
}

CH4_PMPI(MPI_Attr_delete)
int MPI_Attr_delete(MPI_Comm comm, int keyval) {
    CH4_API_LOCK();
    return api::comm_delete_attr(__func__, comm, keyval);
}

}  // extern "C"
