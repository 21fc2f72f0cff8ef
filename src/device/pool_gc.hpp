// SPDX-License-Identifier: MIT
// Garbage-collection hooks of the device's pools (pool_gc.cpp).
#pragma once

namespace ch4lite::dev {

// Registers the request, unexpected-message and pack-buffer hooks (after
// the pools are set up).
void register_pool_gc_hooks() noexcept;
// CH4LITE_STATS=1: each pool's maximum, failures and collections on stderr.
void print_pool_stats() noexcept;

}  // namespace ch4lite::dev
