// SPDX-License-Identifier: MIT
// Error-handler objects. Predefined handlers are the ABI constants; user
// handlers (MPI_Comm_create_errhandler, and later Win_create_errhandler) live
// in a handle table and are reference counted by the objects that use them.
#pragma once
#include <mpi.h>

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
// MPI_Win*). Fatal handlers print and kill the job; returns for RETURN/user.
void run_errhandler(MPI_Errhandler h, void* target, bool is_win, int code) noexcept;

}  // namespace ch4lite::api
