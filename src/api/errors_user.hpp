// SPDX-License-Identifier: MIT
// Error classes, codes and strings of the user (MPI_Add_error_class /
// _code / _string and MPI-4.1's MPI_Remove_error_*; api/errors_user.cpp).
// Their values lie above MPI_ERR_LASTCODE, which our own detailed codes
// fill (api/errors.hpp); MPI_LASTUSEDCODE is the largest one alive.
#pragma once

namespace ch4lite::api {

// For values above MPI_ERR_LASTCODE: whether it is a live user class or
// code, its class (a class is its own), and its string ("" when none).
bool user_code_valid(int code) noexcept;
int user_class_of(int code) noexcept;
const char* user_text_of(int code) noexcept;
// The MPI_LASTUSEDCODE attribute's value.
int last_used_code() noexcept;

}  // namespace ch4lite::api
