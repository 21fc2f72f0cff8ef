// SPDX-License-Identifier: MIT
// Minimal diagnostics: messages go to stderr prefixed with "ch4lite[rank]".
// verbose() is enabled by CH4LITE_VERBOSE=1 (mpiexec -v sets it).
#pragma once
#include <cstdarg>

namespace ch4lite::util {

void set_log_rank(int rank) noexcept;
bool verbose_enabled() noexcept;
[[gnu::format(printf, 1, 2)]] void verbose(const char* fmt, ...) noexcept;
[[gnu::format(printf, 1, 2), gnu::cold]] void warn(const char* fmt, ...) noexcept;
// Prints and terminates the process (exit code 1). Used only for broken invariants
// and unrecoverable fabric failures, never for user errors.
[[gnu::format(printf, 1, 2), gnu::cold, noreturn]] void fatal(const char* fmt, ...) noexcept;

}  // namespace ch4lite::util
