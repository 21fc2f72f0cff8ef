// SPDX-License-Identifier: MIT
// A small text language for datatypes, used by dame-dump and the fuzzers:
//
//   double | int | double_int | byte | ...        predefined (MPI_ name, lower case)
//   contig(n, T)            vector(n, bl, stride, T)       hvector(n, bl, bytes, T)
//   indexed([bl...], [d...], T)   hindexed([bl...], [bytes...], T)
//   blkidx(bl, [d...], T)   hblkidx(bl, [bytes...], T)
//   struct([bl...], [bytes...], [T, ...])          resized(lb, extent, T)
//   subarray([sizes], [subsizes], [starts], C|F, T) dup(T)
//   darray(size, rank, [gsizes], [distribs], [dargs], [psizes], C|F, T)
//                           distribs 0 none, 1 block, 2 cyclic; darg -1: default
//   nest(n, B, T)           T applied n times over B: `_` in T is the level
//                           below (n <= 2^21; at most 2^22 types per text)
//
// e.g. "hvector(2, 1, 4096, vector(16, 1, 64, double))", or a million
// levels of one-field structs: "nest(1000000, int, struct([1], [0], [_]))".
#pragma once
#include <string>
#include <string_view>

#include "util/status.hpp"

namespace ch4lite::dame {
class type;
// On success *out holds one reference (uncommitted). Errors: status::invalid
// (syntax, or a constructor refused its arguments; *err says where),
// status::range (overflow, too many types), status::no_mem.
status parse_type(std::string_view text, type** out, std::string* err = nullptr) noexcept;
}  // namespace ch4lite::dame
