// SPDX-License-Identifier: MIT
// The UCX netmod (docs/netmod-ucx.md), in two stages that are both built
// and tested:
//   stage A  am_netmod (ucx_am.hpp): active messages only, the device
//            matches on top; the libmpi built with CH4LITE_FORCE_AM
//            (ucx-am/lib) uses it.
//   stage B  full_netmod (ucx_full.hpp): + native tagged messaging and
//            native RMA on the same worker (ucx/lib).
#pragma once
#include "netmod/ucx/ucx_am.hpp"

namespace ch4lite::nm::ucx {
using netmod = am_netmod;
}  // namespace ch4lite::nm::ucx
