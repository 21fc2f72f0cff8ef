// SPDX-License-Identifier: MIT
// Compiled in every build: proves the stub still satisfies the contract.
#include "active_netmod.hpp"

static_assert(ch4lite::nm::check_contract<ch4lite::nm::stub::netmod>());
