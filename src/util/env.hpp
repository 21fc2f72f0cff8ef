// SPDX-License-Identifier: MIT
// Environment parameters (CH4LITE_*). Read once, at the first call; the
// full list with defaults is in docs/parameters.md.
#pragma once
#include <cstdint>
#include <string_view>

namespace ch4lite::util {

// Integer parameter: accepts decimal with optional K/M/G suffix (powers of 2).
// A malformed value is reported once on stderr and the default is used.
int64_t env_int(const char* name, int64_t dflt);
// Boolean parameter: 1/0, yes/no, on/off, true/false (case-insensitive).
bool env_bool(const char* name, bool dflt);
// String parameter, or dflt when unset or empty.
const char* env_str(const char* name, const char* dflt);

}  // namespace ch4lite::util
