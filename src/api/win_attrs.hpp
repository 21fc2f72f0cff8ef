// SPDX-License-Identifier: MIT
// User attributes on windows (win_keyval.cpp), for MPI_Win_get_attr and
// MPI_Win_free.
#pragma once
#include <mpi.h>

namespace ch4lite::api {

// MPI_Win_get_attr of a user keyval k: *flag and *value; MPI_ERR_KEYVAL
// (raised on win, naming fn) when k is no window keyval.
int win_user_attr(const char* fn, MPI_Win win, int k, void** value, int* flag) noexcept;
// MPI_Win_free: every delete callback, last set first; the first error is
// returned (the attributes not deleted yet stay).
int win_attrs_delete_all(MPI_Win win) noexcept;
// Forgets the attributes left on a window that is gone (after a failed
// delete callback, MPI_Win_free frees the window anyway).
void win_attrs_drop(MPI_Win win) noexcept;

}  // namespace ch4lite::api
