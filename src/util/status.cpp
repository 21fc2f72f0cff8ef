// SPDX-License-Identifier: MIT
#include "util/status.hpp"

namespace ch4lite {

const char* to_string(status s) noexcept {
    switch (s) {
        case status::ok: return "ok";
        case status::in_progress: return "in progress";
        case status::again: return "resource temporarily exhausted";
        case status::no_mem: return "out of memory";
        case status::exhausted: return "failed on another process, or no context id is free on every process";
        case status::unsupported: return "unsupported";
        case status::truncated: return "message truncated";
        case status::invalid: return "invalid argument";
        case status::range: return "out of range";
        case status::io: return "I/O or fabric failure";
        case status::proc_failed: return "peer process failed";
        case status::intern: return "internal error";
    }
    return "unknown status";
}

}  // namespace ch4lite
