// SPDX-License-Identifier: MIT
#include "util/env.hpp"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <strings.h>

namespace ch4lite::util {

int64_t env_int(const char* name, int64_t dflt) {
    const char* v = std::getenv(name);
    if (v == nullptr || *v == '\0') return dflt;
    errno = 0;
    char* end = nullptr;
    long long x = std::strtoll(v, &end, 0);
    if (errno == 0 && end != v) {
        int64_t mult = 1;
        switch (*end) {
            case 'k': case 'K': mult = 1ll << 10; ++end; break;
            case 'm': case 'M': mult = 1ll << 20; ++end; break;
            case 'g': case 'G': mult = 1ll << 30; ++end; break;
            default: break;
        }
        if (*end == '\0' && (x == 0 || (x > 0 ? x <= INT64_MAX / mult : x >= INT64_MIN / mult)))
            return static_cast<int64_t>(x) * mult;
    }
    std::fprintf(stderr, "ch4lite: ignoring %s=%s: not an integer (using %lld)\n", name, v,
                 static_cast<long long>(dflt));
    return dflt;
}

bool env_bool(const char* name, bool dflt) {
    const char* v = std::getenv(name);
    if (v == nullptr || *v == '\0') return dflt;
    for (const char* t : {"1", "yes", "on", "true", "y"})
        if (strcasecmp(v, t) == 0) return true;
    for (const char* f : {"0", "no", "off", "false", "n"})
        if (strcasecmp(v, f) == 0) return false;
    std::fprintf(stderr, "ch4lite: ignoring %s=%s: not a boolean (using %d)\n", name, v, dflt);
    return dflt;
}

const char* env_str(const char* name, const char* dflt) {
    const char* v = std::getenv(name);
    return (v == nullptr || *v == '\0') ? dflt : v;
}

}  // namespace ch4lite::util
