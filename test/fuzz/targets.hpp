// SPDX-License-Identifier: MIT
// Fuzz targets of DAME, shared by the libFuzzer harnesses (clang,
// -DCH4LITE_FUZZ=ON) and the corpus replay test that runs in `make check`.
#pragma once
#include <cstddef>
#include <cstdint>

namespace dame_fuzz {
// Text type description -> parse (all constructors and their checks) ->
// commit -> differential check of pack / unpack / IOV against the oracle.
int types(const uint8_t* data, size_t size);
// "<type text>\n<bytes>": unpack a short or garbage stream from a fuzzed
// offset, then pack the same range back and compare.
int unpack(const uint8_t* data, size_t size);
// "<type text>\n<bytes>": the external32 representation. Pack whatever the
// typed memory holds (a value external32 cannot hold must stop the move with
// a fault inside the type map), unpack the garbage stream (only the type
// map's bytes may change), and pack it back, which must give the stream
// again unless long double (binary128 rounded to x87) is involved.
int external32(const uint8_t* data, size_t size);
}  // namespace dame_fuzz
