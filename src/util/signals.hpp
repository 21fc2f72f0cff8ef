// SPDX-License-Identifier: MIT
// Fatal-signal handlers of libinfinipath (signals.cpp).
#pragma once
#include <signal.h>

namespace ch4lite::util {

// Around a dlopen that may load libinfinipath (the ofi netmod loading
// libfabric): the handlers that library installs for SIGSEGV, SIGBUS,
// SIGILL, SIGFPE, SIGABRT, SIGINT and SIGTERM are replaced by those in place
// before, the program's own or the default, unless
// CH4LITE_KEEP_SIGNAL_HANDLERS=1. Handlers of other code are left alone.
class psm_signal_guard {
  public:
    psm_signal_guard() noexcept;
    ~psm_signal_guard();
    psm_signal_guard(const psm_signal_guard&) = delete;
    psm_signal_guard& operator=(const psm_signal_guard&) = delete;

  private:
    static constexpr int n = 7;
    struct sigaction before_[n];
    bool valid_[n];
};

}  // namespace ch4lite::util
