// SPDX-License-Identifier: MIT
// Text dump of a type and its program (used by tools/dame-dump).
#pragma once
#include <string>

namespace ch4lite::dame {
class type;
std::string dump(const type& t);
}  // namespace ch4lite::dame
