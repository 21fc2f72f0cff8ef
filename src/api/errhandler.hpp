// SPDX-License-Identifier: MIT
// Error-handler objects. Predefined handlers are the ABI constants; user
// handlers (MPI_Comm_create_errhandler, and later Win_create_errhandler) live
// in a handle table and are reference counted by the objects that use them.
#pragma once
#include <mpi.h>

#include <cstddef>

namespace ch4lite::api {

struct errhandler_obj {
    enum class kind { comm, win } k = kind::comm;
    MPI_Comm_errhandler_function* comm_fn = nullptr;
    MPI_Win_errhandler_function* win_fn = nullptr;
    int refs = 1;
};

// nullptr for predefined or invalid handles.
errhandler_obj* lookup_errhandler(MPI_Errhandler h) noexcept;
bool errhandler_is_builtin(MPI_Errhandler h) noexcept;
// Valid for attaching: a predefined handler (not NULL) or a live user one.
bool errhandler_valid(MPI_Errhandler h) noexcept;
void errhandler_retain(MPI_Errhandler h) noexcept;
void errhandler_release(MPI_Errhandler h) noexcept;
MPI_Errhandler errhandler_create(errhandler_obj* obj) noexcept;  // MPI_ERRHANDLER_NULL if full

// Runs handler `h` for an error `code` on the object `target` (an MPI_Comm* or
// MPI_Win*; nullptr: no object, MPI not initialized). Fatal handlers end
// the job with one message (the error, the handler and object, and how to
// get codes back instead); returns for RETURN/user.
void run_errhandler(MPI_Errhandler h, void* target, bool is_win, int code) noexcept;

// The MPI-4 initial error handler (errhandler_initial.cpp): set on
// MPI_COMM_WORLD and MPI_COMM_SELF at MPI_Init, raised while no
// MPI_COMM_SELF exists. From `mpiexec -initial-errhandler` /
// CH4LITE_INITIAL_ERRHANDLER; MPI_ERRORS_ARE_FATAL by default.
MPI_Errhandler initial_errhandler() noexcept;
// Its reserved value ("mpi_errors_return", ...), e.g. for MPI_INFO_ENV's
// "mpi_initial_errhandler" key.
const char* initial_errhandler_name() noexcept;
// "MPI_ERRORS_ARE_FATAL", ..., "a user error handler".
const char* errhandler_name(MPI_Errhandler h) noexcept;
// The explanation a fatal handler adds to the error text (snprintf-like).
int fatal_context(char* out, std::size_t n, MPI_Errhandler h, const void* target, bool is_win) noexcept;

}  // namespace ch4lite::api
