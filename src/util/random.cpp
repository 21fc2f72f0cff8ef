// SPDX-License-Identifier: MIT
#include "util/random.hpp"

#include <sys/random.h>
#include <unistd.h>

#include <cerrno>
#include <ctime>

namespace ch4lite::util {

uint64_t random64() noexcept {
    uint64_t v = 0;
    ssize_t n;
    do n = ::getrandom(&v, sizeof v, 0);
    while (n < 0 && errno == EINTR);
    if (n != static_cast<ssize_t>(sizeof v)) {
        timespec ts{};
        clock_gettime(CLOCK_MONOTONIC, &ts);
        v ^= static_cast<uint64_t>(ts.tv_nsec) * 0x9e3779b97f4a7c15ull ^
             static_cast<uint64_t>(::getpid()) << 32 ^ static_cast<uint64_t>(ts.tv_sec);
    }
    return v;
}

}  // namespace ch4lite::util
