// SPDX-License-Identifier: MIT
// -bind-to core: the cores this process may use (hwloc, restricted to the
// CPU affinity mpiexec was started with), as CPU sets ready for
// sched_setaffinity in a freshly forked rank.
#pragma once
#include <sched.h>
#include <string>
#include <vector>

namespace ch4lite::launch {

// One CPU set per allowed core, in hwloc's logical order. Empty (with the
// reason in `error`) when hwloc fails or no core is usable.
std::vector<cpu_set_t> allowed_cores(std::string& error);
// "0,4" for logging.
std::string cpu_list(const cpu_set_t& set);

}  // namespace ch4lite::launch
