// SPDX-License-Identifier: MIT
// Match bits of native tagged messages (64 bits):
//
//   63      rts: a 0-byte announcement of a large message (CQ data: size and
//           sender request, docs/ddt-wire.md); receives and probes ignore it
//   62      sync: MPI_Ssend; the receiver acknowledges on match (never matched on)
//   61..46  context id (16 bits: communicator, p2p/collective)
//   45..24  sender's rank in the communicator (22 bits)
//   23..0   MPI tag (24 bits; MPI_TAG_UB = 2^24 - 1)
//
// A receive with MPI_ANY_SOURCE / MPI_ANY_TAG sets the corresponding ignore
// bits. Both bits of the source are in the tag, so no directed receive
// (FI_DIRECTED_RECV) and no source-address lookup is needed.
#pragma once
#include <cstdint>

namespace ch4lite::nm::ofi::tagbits {

inline constexpr uint64_t rts = 1ull << 63;
inline constexpr uint64_t sync = 1ull << 62;
inline constexpr int ctx_shift = 46;
inline constexpr int rank_shift = 24;
inline constexpr uint64_t ctx_mask = 0xffffull << ctx_shift;
inline constexpr uint64_t rank_mask = 0x3fffffull << rank_shift;
inline constexpr uint64_t tag_mask = 0xffffffull;
inline constexpr int max_rank = 0x3fffff;
inline constexpr int tag_ub = 0xffffff;

constexpr uint64_t make(uint32_t ctx, int rank, int tag) noexcept {
    return (static_cast<uint64_t>(ctx) << ctx_shift) |
           (static_cast<uint64_t>(static_cast<uint32_t>(rank)) << rank_shift) |
           static_cast<uint64_t>(static_cast<uint32_t>(tag));
}
constexpr int rank_of(uint64_t t) noexcept { return static_cast<int>((t & rank_mask) >> rank_shift); }
constexpr int tag_of(uint64_t t) noexcept { return static_cast<int>(t & tag_mask); }

}  // namespace ch4lite::nm::ofi::tagbits
