// SPDX-License-Identifier: MIT
// Waiting inside an RMA call: the device's progress (which delivers our
// active messages to rma::am_dispatch) plus our own send queue.
#pragma once
#include "device/progress.hpp"
#include "rma/sendq.hpp"

namespace ch4lite::rma {

inline int poll() noexcept { return dev::progress() + pump(); }

template <class Done>
inline void wait_until(Done&& done) noexcept {
    unsigned idle = 0;
    while (!done()) {
        if (poll() == 0)
            dev::idle_step(idle);
        else
            idle = 0;
    }
}

}  // namespace ch4lite::rma
