// SPDX-License-Identifier: MIT
#include "netmod/stub/stub_netmod.hpp"

#include "util/log.hpp"

namespace ch4lite::nm::stub {

status netmod::init(dev::bootstrap&) {
    util::warn("netmod 'stub' selected: it carries no messages (template only)");
    return status::unsupported;
}

status netmod::finalize() { return status::ok; }

status netmod::am_send(int, uint8_t, const void*, std::size_t, const iov*, int, request_state*) {
    return status::unsupported;
}

}  // namespace ch4lite::nm::stub
