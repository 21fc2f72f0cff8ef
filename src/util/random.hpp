// SPDX-License-Identifier: MIT
// 64 random bits for names and keys that must not collide between jobs
// (shared-memory segment names, the job key).
#pragma once
#include <cstdint>

namespace ch4lite::util {

// getrandom(); if the kernel cannot give them, the clock and the pid mixed.
uint64_t random64() noexcept;

}  // namespace ch4lite::util
