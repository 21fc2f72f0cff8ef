// SPDX-License-Identifier: MIT
#include <cstdio>

#include "util/env.hpp"
#include "util/pool.hpp"

namespace ch4lite::util {

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
    return d;
}

}  // namespace ch4lite::util
