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
#if !CH4LITE_FORCE_AM
#include "netmod/ucx/ucx_full.hpp"
#endif

namespace ch4lite::nm::ucx {
#if CH4LITE_FORCE_AM
using netmod = am_netmod;
#else
using netmod = full_netmod;
#endif
}  // namespace ch4lite::nm::ucx
