// SPDX-License-Identifier: MIT
// MPI_Init's reachability check for jobs across nodes (docs/mpiexec.md,
// "Jobs across hosts"): a netmod that cannot reach the other nodes (wrong
// interface, a firewall, a route missing) must fail MPI_Init with a message
// naming both hosts and the provider, not hang in the first collective.
#pragma once
#include <string>

#include "util/status.hpp"

namespace ch4lite::dev {

// Before the bootstrap's fence that publishes the netmod addresses: adds
// this rank's host name to what the fence carries (no extra round trip).
void publish_host_name();

// After the netmod opened: every rank sends one small message to a rank of
// the next node (in node order, cyclically) and waits for the ones the
// previous node sends it, for at most CH4LITE_REACH_TIMEOUT seconds (default
// 30; 0 skips the check). A job on one node does nothing.
status check_reach(std::string& error);

}  // namespace ch4lite::dev
