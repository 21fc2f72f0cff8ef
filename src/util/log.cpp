// SPDX-License-Identifier: MIT
#include "util/log.hpp"

#include <cstdio>
#include <cstdlib>
#include <unistd.h>

#include "util/env.hpp"

namespace ch4lite::util {

namespace {
int g_rank = -1;
int g_verbose = -1;  // -1: not read yet

void vprint(const char* level, const char* fmt, va_list ap) noexcept {
    char buf[1024];
    int n = g_rank >= 0 ? std::snprintf(buf, sizeof buf, "ch4lite[%d]: %s", g_rank, level)
                        : std::snprintf(buf, sizeof buf, "ch4lite: %s", level);
    if (n < 0) return;
    if (n < static_cast<int>(sizeof buf)) {
        int m = std::vsnprintf(buf + n, sizeof buf - n, fmt, ap);
        if (m > 0) n = n + m < static_cast<int>(sizeof buf) - 1 ? n + m : static_cast<int>(sizeof buf) - 2;
    }
    buf[n++] = '\n';
    // One write(2) so lines of different ranks do not interleave.
    ssize_t w = ::write(2, buf, static_cast<size_t>(n));
    (void)w;
}
}  // namespace

void set_log_rank(int rank) noexcept { g_rank = rank; }

bool verbose_enabled() noexcept {
    if (g_verbose < 0) g_verbose = env_bool("CH4LITE_VERBOSE", false) ? 1 : 0;
    return g_verbose == 1;
}

void verbose(const char* fmt, ...) noexcept {
    if (!verbose_enabled()) return;
    va_list ap;
    va_start(ap, fmt);
    vprint("", fmt, ap);
    va_end(ap);
}

void warn(const char* fmt, ...) noexcept {
    va_list ap;
    va_start(ap, fmt);
    vprint("warning: ", fmt, ap);
    va_end(ap);
}

void fatal(const char* fmt, ...) noexcept {
    va_list ap;
    va_start(ap, fmt);
    vprint("fatal: ", fmt, ap);
    va_end(ap);
    std::_Exit(1);
}

}  // namespace ch4lite::util
