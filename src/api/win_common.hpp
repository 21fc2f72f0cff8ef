// SPDX-License-Identifier: MIT
// What the window and RMA entry points share: the handle lookup and the
// error macro that runs the window's error handler.
#pragma once
#include <mpi.h>

#include <cstdint>

#include "api/errors.hpp"
#include "rma/rma.hpp"

namespace ch4lite::api {

// nullptr for MPI_WIN_NULL, freed or garbage handles.
inline rma::win* lookup_win(MPI_Win w) noexcept {
    return rma::lookup(reinterpret_cast<uintptr_t>(w));
}

// The info hints a window uses (win_info.cpp; docs/parameters.md, "Info
// hints"), read at creation and by MPI_Win_set_info.
void win_hints(rma::win& w, MPI_Info info) noexcept;

}  // namespace ch4lite::api

#define CH4_FAIL_WIN_IN(func, win, cls, ...) \
    return ::ch4lite::api::raise_win((win), ::ch4lite::api::error_code((cls), (func), __VA_ARGS__))
#define CH4_FAIL_WIN(win, cls, ...) CH4_FAIL_WIN_IN(__func__, win, cls, __VA_ARGS__)
