// SPDX-License-Identifier: MIT
// DAME engine API: the functions the device, the netmods and MPI_Pack call.
// All of them require a committed type (t.committed()); they never allocate,
// never fail, and check nothing on the hot path: argument and size checks
// belong to the caller (the MPI layer) and to commit.
//
// Terms: the "packed stream" of (buf, count, t) is the count*t.size() bytes
// that MPI_Pack would produce. Offsets and lengths below are in that stream.
//
// Usage by the device:
//   whole message     pack(t, buf, count, out) / unpack(t, buf, count, in)
//   pipelined/partial move_state st{}; while (st.offset < total)
//                         n = pack_next(st, t, buf, count, chunk, chunk_len);
//   zero-copy (fabric) iov_result r = to_iov(t, buf, count, offset, segs, N, budget);
//                     total segments: iov_count(t, count)   (O(1))
#pragma once
#include <cstddef>
#include <cstdint>

#include "dame/type.hpp"

namespace ch4lite::dame {

// Packs count instances of t at buf into packed (count*t.size() bytes).
void pack(const type& t, const void* buf, int64_t count, void* packed) noexcept;
// Unpacks count*t.size() bytes from packed into count instances at buf.
void unpack(const type& t, void* buf, int64_t count, const void* packed) noexcept;

// Stream bytes [offset, offset+len) (clipped to the stream) to/from packed.
// Returns the bytes moved.
int64_t pack_range(const type& t, const void* buf, int64_t count, int64_t offset, int64_t len,
                   void* packed) noexcept;
int64_t unpack_range(const type& t, void* buf, int64_t count, int64_t offset, int64_t len,
                     const void* packed) noexcept;

// Resumable state of a partial move: where the stream stopped. 16 bytes; a
// continuation seeks from `offset` in O(depth) (regular) / O(log n) (lists).
struct move_state {
    int64_t offset = 0;  // stream bytes already moved
    int64_t total = 0;   // count * t.size(), set by the first call
};
// Move the next min(max_bytes, remaining) bytes; returns the bytes moved.
int64_t pack_next(move_state& s, const type& t, const void* buf, int64_t count, void* out,
                  int64_t max_bytes) noexcept;
int64_t unpack_next(move_state& s, const type& t, void* buf, int64_t count, const void* in,
                    int64_t bytes) noexcept;

// IOV emission: contiguous (address, length) segments of the stream from
// `offset`, coalescing adjacent ones, until max_segs segments are filled or
// max_bytes stream bytes are covered (a segment may be cut by the budget).
struct iov_seg {
    void* base;
    size_t len;
};
struct iov_result {
    int64_t segs;   // entries written to out
    int64_t bytes;  // stream bytes covered: continue at offset + bytes
};
iov_result to_iov(const type& t, const void* buf, int64_t count, int64_t offset, iov_seg* out,
                  int64_t max_segs, int64_t max_bytes) noexcept;
// Number of segments a full to_iov of (t, count) yields (coalesced), in O(1).
int64_t iov_count(const type& t, int64_t count) noexcept;

// Typed-to-typed copy (e.g. a send to self): moves min(stream sizes) bytes and
// returns that count; the caller compares with the source size to detect
// truncation.
int64_t copy(const type& st, const void* sbuf, int64_t scount, const type& dt, void* dbuf,
             int64_t dcount) noexcept;

}  // namespace ch4lite::dame
