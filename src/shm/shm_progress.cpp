// SPDX-License-Identifier: MIT
// Receive side of the shm transport: hands what a ring holds to the device.
#include "shm/shm.hpp"

namespace ch4lite::shm {

namespace {
// Messages taken from one ring per poll, so one busy sender cannot starve
// the others (or the netmod).
constexpr int drain_budget = 64;
}  // namespace

int transport::drain(uint32_t i) noexcept {
    // A handler never polls, but if one ever did, a nested drain of the same
    // ring would dispatch the cell being dispatched a second time.
    if (draining_) return 0;
    draining_ = true;
    rx_ring& x = rx_[i];
    const int src = world_of_[i];
    int n = 0;
    while (n < drain_budget) {
        const cell* c = rx_peek(x);
        if (!c) break;
        uint64_t data_end = 0;
        const std::byte* payload = rx_payload(x, *c, data_end);
        dev::am_dispatch(src, c->handler, c->bytes, c->hlen, payload, c->plen);
        rx_pop(x, data_end);
        ++n;
    }
    draining_ = false;
    return n;
}

}  // namespace ch4lite::shm
