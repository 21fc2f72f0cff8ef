// SPDX-License-Identifier: MIT
// Streaming moves: a whole-buffer move whose source and destination together
// exceed the last-level cache writes its destination with non-temporal
// stores. A normal store first reads the destination line into the cache
// (read for ownership) and later writes it back; when nothing of it stays in
// the cache anyway that read is a third of the memory traffic. glibc's memcpy
// does this only above its own threshold (240 MiB on the development VM,
// where it misreads the cache size), never for the pieces of a typed move.
#pragma once
#include <cstdint>

namespace ch4lite::dame {

// No move below this many bytes streams, whatever the cache: a constant, so
// that the common small move pays one compare and no lookup.
constexpr int64_t stream_floor = int64_t{1} << 20;

// Moves of at least this many bytes stream (INT64_MAX: never): half the
// last-level cache (sysfs; 32 MiB if unknown), so that source and
// destination together do not fit; CH4LITE_DAME_STREAM_MIN overrides it
// (0 = never; at least stream_floor). Read once.
int64_t stream_min() noexcept;
// For tests: bytes > 0 sets the threshold (at least stream_floor), 0 turns
// streaming off, < 0 goes back to the default above.
void set_stream_min(int64_t bytes) noexcept;
// Whole moves streamed by this process so far (for tests and CH4LITE_STATS).
int64_t stream_moves() noexcept;
void count_stream_move() noexcept;

// memcpy with non-temporal stores (util::stream_copy_wide) without a fence:
// a streaming move calls it per block and ends with util::stream_fence(),
// which orders the bytes before any later store (a flag that publishes them
// to another process).
void copy_nt(char* d, const char* s, int64_t n) noexcept;

// Average block length (packed bytes per IOV segment) from which a move
// streams; shorter blocks keep the kernels (a transpose's 16-byte pieces
// cost more per piece than streaming saves).
constexpr int64_t stream_min_block = 1024;

}  // namespace ch4lite::dame
