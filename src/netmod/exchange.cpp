// SPDX-License-Identifier: MIT
#include "netmod/exchange.hpp"

#include <cstring>

#include "device/bootstrap.hpp"

namespace ch4lite::nm {

status exchange_addresses(dev::bootstrap& bs, const char* identity, const void* addr,
                          std::size_t len, std::vector<std::vector<std::byte>>& all,
                          std::string& why) {
    const std::size_t idlen = std::strlen(identity);
    std::vector<std::byte> mine(idlen + 1 + len);
    std::memcpy(mine.data(), identity, idlen + 1);  // with its terminating 0
    if (len) std::memcpy(mine.data() + idlen + 1, addr, len);
    status s = bs.put("netmod", mine.data(), mine.size());
    if (s == status::ok) s = bs.fence();
    if (s != status::ok) {
        why = "the bootstrap could not publish the netmod address";
        return s;
    }
    all.assign(static_cast<std::size_t>(bs.size()), {});
    std::vector<std::byte> one;
    for (int r = 0; r < bs.size(); ++r) {
        if ((s = bs.get(r, "netmod", one)) != status::ok) {
            why.assign("rank ").append(std::to_string(r)).append(" published no netmod address");
            return s;
        }
        const auto* p = reinterpret_cast<const char*>(one.data());
        const std::size_t n = strnlen(p, one.size());
        if (n == one.size() || n != idlen || std::memcmp(p, identity, idlen) != 0) {
            // Appended, not operator+ chains (GCC 12's -Warray-bounds false
            // positive with the precompiled standard headers).
            why.assign("rank ").append(std::to_string(r)).append(" runs netmod '")
                .append(p, n == one.size() ? 0 : n).append("', rank ")
                .append(std::to_string(bs.rank())).append(" runs '").append(identity)
                .append("': every rank of a job must use the same libmpi build");
            return status::invalid;
        }
        all[static_cast<std::size_t>(r)].assign(one.begin() + static_cast<std::ptrdiff_t>(n + 1),
                                                one.end());
    }
    return status::ok;
}

}  // namespace ch4lite::nm
