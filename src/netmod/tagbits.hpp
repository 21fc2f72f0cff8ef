// SPDX-License-Identifier: MIT
// Match bits of native tagged messages (64 bits), shared by the netmods
// whose library matches 64-bit tags (ofi: fi_tsend/fi_trecv with ignore
// bits; ucx: ucp_tag_send_nbx/ucp_tag_recv_nbx with a mask of the bits
// that must match):
//
//   63      rts: a 0-byte announcement of a large message (CQ data: size and
//           sender request, docs/ddt-wire.md); receives and probes ignore it
//   62      sync: MPI_Ssend; the receiver acknowledges on match (never matched on;
//           ucx sends synchronous messages with ucp_tag_send_sync_nbx instead)
//   61..46  context id (16 bits: communicator, p2p/collective)
//   45..24  sender's rank in the communicator (22 bits)
//   23..0   MPI tag (24 bits; MPI_TAG_UB = 2^24 - 1)
//
// A receive with MPI_ANY_SOURCE / MPI_ANY_TAG sets the corresponding ignore
// bits. The source is in the tag, so no directed receive (FI_DIRECTED_RECV)
// and no source-address lookup is needed.
#pragma once
#include <cstdint>

namespace ch4lite::nm::tagbits {

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

// Ignore bits (ofi) of a receive or probe: never the sync/rts bits, and
// the source / tag fields for wildcards.
constexpr uint64_t ignore_of(int rank, int tag) noexcept {
    uint64_t ignore = sync | rts;
    if (rank < 0) ignore |= rank_mask;
    if (tag < 0) ignore |= tag_mask;
    return ignore;
}
// The tag a receive or probe compares (wildcard fields zero).
constexpr uint64_t want_of(uint32_t ctx, int rank, int tag) noexcept {
    return make(ctx, rank < 0 ? 0 : rank, tag < 0 ? 0 : tag);
}

}  // namespace ch4lite::nm::tagbits
