// SPDX-License-Identifier: MIT
// The one place that turns failures into MPI error codes and runs error
// handlers (STYLE.md #7).
//
// Error codes: a code returned to the user is either a plain class value or a
// "detailed" code 0x2000 | slot << 6 | class, where slot (0..127) indexes a
// ring of recent messages. MPI_Error_class() maps it back to the class and
// MPI_Error_string() returns "MPI_Send: invalid rank 5: must be in [0, 4)".
//
// Usage in an MPI_* function:
//     if (rank >= size) CH4_FAIL(comm, MPI_ERR_RANK, "invalid rank %d: must be in [0, %d)", rank, size);
// CH4_FAIL formats (cold, out of line), runs the communicator's handler and
// returns the code when the handler returns (MPI_ERRORS_RETURN).
#pragma once
#include <mpi.h>

#include "util/status.hpp"

namespace ch4lite::dev {
// True from the end of dev::init to the end of dev::finalize (device.hpp).
extern bool g_active;
}  // namespace ch4lite::dev

namespace ch4lite::api {

// Records the message "<func>: <text>" and returns a detailed code of class `cls`.
[[gnu::cold, gnu::format(printf, 3, 4)]] int error_code(int cls, const char* func,
                                                        const char* fmt, ...) noexcept;
// Runs comm's error handler (MPI_COMM_SELF's if comm is not a valid communicator,
// as MPI prescribes for errors not tied to a valid handle) and returns `code`.
[[gnu::cold]] int raise(MPI_Comm comm, int code) noexcept;
// For functions that take no communicator (datatypes, ops, ...): MPI_COMM_SELF.
[[gnu::cold]] int raise_self(int code) noexcept;
// For window functions (RMA issue): the window's handler.
[[gnu::cold]] int raise_win(MPI_Win win, int code) noexcept;

// Error class of any code we return (or of a class value itself).
int class_of(int code) noexcept;
// True for a class value or a detailed code we produced.
bool valid_code(int code) noexcept;
// Text for a code: detailed message if still in the ring, else the class text.
const char* text_of(int code) noexcept;
// MPI error class for an internal status (status::ok -> MPI_SUCCESS).
int class_of(status s) noexcept;

// 0 when MPI is initialized and not finalized; else raises MPI_ERR_OTHER
// ("MPI_Send called before MPI_Init") on MPI_COMM_SELF's default handler.
int require_init(const char* func) noexcept;
inline bool is_initialized() noexcept { return dev::g_active; }

}  // namespace ch4lite::api

// The _IN forms are for helpers shared by several MPI functions: they name
// the MPI function (func) in the message, not the helper.
#define CH4_FAIL_IN(func, comm, cls, ...) \
    return ::ch4lite::api::raise((comm), ::ch4lite::api::error_code((cls), (func), __VA_ARGS__))
#define CH4_FAIL_SELF_IN(func, cls, ...) \
    return ::ch4lite::api::raise_self(::ch4lite::api::error_code((cls), (func), __VA_ARGS__))
#define CH4_REQUIRE_INIT_IN(func)                                               \
    do {                                                                        \
        if (__builtin_expect(!::ch4lite::api::is_initialized(), 0))             \
            return ::ch4lite::api::require_init(func);                          \
    } while (0)
#define CH4_FAIL(comm, cls, ...) CH4_FAIL_IN(__func__, comm, cls, __VA_ARGS__)
#define CH4_FAIL_SELF(cls, ...) CH4_FAIL_SELF_IN(__func__, cls, __VA_ARGS__)
#define CH4_REQUIRE_INIT() CH4_REQUIRE_INIT_IN(__func__)
// For the functions MPI allows before MPI_Init and after MPI_Finalize
// (MPI_Initialized, MPI_Get_version, MPI_Error_string, ...): while MPI is
// active the error is raised on MPI_COMM_SELF with its message; outside,
// only the class is returned (no handler may run then).
#define CH4_FAIL_ANYTIME(cls, ...)                                              \
    do {                                                                        \
        if (!::ch4lite::api::is_initialized()) return (cls);                    \
        CH4_FAIL_SELF(cls, __VA_ARGS__);                                        \
    } while (0)
