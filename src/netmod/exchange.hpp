// SPDX-License-Identifier: MIT
// Address exchange through the bootstrap, shared by every netmod.
//
// Each rank publishes its address under one key, "netmod", prefixed by the
// identity of the netmod it runs ("ofi", "ofi-am", "ucx", "ucx-am": name
// and build), then every rank reads every rank's. Ranks of one job whose
// libmpi builds differ (one started with ucx/lib, another with lib/) would
// otherwise wait forever for messages the other never sends: here they all
// stop in MPI_Init, naming both netmods.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "util/status.hpp"

namespace ch4lite::dev {
class bootstrap;
}

namespace ch4lite::nm {

// Publishes (identity, addr), fences, reads everyone's address in world
// rank order into `all`. On a failure `why` says what went wrong (for a
// mismatch: which rank runs which netmod).
status exchange_addresses(dev::bootstrap& bs, const char* identity, const void* addr,
                          std::size_t len, std::vector<std::vector<std::byte>>& all,
                          std::string& why);

}  // namespace ch4lite::nm
