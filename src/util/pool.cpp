// SPDX-License-Identifier: MIT
#include <cstdio>
#include <cstring>
#include <strings.h>

#include "util/env.hpp"
#include "util/pool.hpp"

namespace ch4lite::util {

const char* to_string(gc_mode m) noexcept {
    switch (m) {
        case gc_mode::simple: return "simple";
        case gc_mode::aggressive_nonblocking: return "aggressive non-blocking";
        case gc_mode::aggressive_blocking: return "aggressive blocking";
    }
    return "?";
}

pool_config pool_config_from_env(pool_config d) {
    char name[96];
    auto read = [&](const char* what, uint32_t v) {
        std::snprintf(name, sizeof name, "CH4LITE_%s_POOL_%s", d.name, what);
        int64_t x = env_int(name, v);
        if (x < 0 || x > (1 << 20)) {
            std::fprintf(stderr, "ch4lite: ignoring %s=%lld: must be in [0, 1048576]\n", name,
                         static_cast<long long>(x));
            return v;
        }
        return static_cast<uint32_t>(x);
    };
    d.min_count = read("MIN", d.min_count);
    d.chunk = read("CHUNK", d.chunk);
    d.max_count = read("MAX", d.max_count);
    std::snprintf(name, sizeof name, "CH4LITE_%s_POOL_GC", d.name);
    if (const char* v = env_str(name, nullptr)) {
        static const char* const levels[] = {"off", "simple", "nonblocking", "blocking"};
        int level = -1;
        for (int i = 0; i < 4; ++i)
            if (strcasecmp(v, levels[i]) == 0) level = i;
        if (level < 0)
            std::fprintf(stderr,
                         "ch4lite: ignoring %s=%s: must be off, simple, nonblocking or blocking\n",
                         name, v);
        else
            d.max_gc = level;
    }
    return d;
}

}  // namespace ch4lite::util
