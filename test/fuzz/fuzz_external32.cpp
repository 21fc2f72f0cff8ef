// SPDX-License-Identifier: MIT
#include "targets.hpp"
extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) { return dame_fuzz::external32(data, size); }
