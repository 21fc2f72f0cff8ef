// SPDX-License-Identifier: MIT
// Layout of the shared segment of one node (docs/shm-segment.md, "Segment"):
//
//   page 0..   header: magic, version, the creator's random cookie, the ring
//              geometry, then one 64-byte slot per local rank (world rank,
//              pid, address of its CMA probe word)
//   then       n * n rings, ring (s -> r) at index r * n + s, each
//              [ctrl 128 B][cells][pad to 4 KiB][data]
//
// Every rank computes the same offsets from (n, cells, data_bytes), which
// the creator publishes with the name and stores in the header.
#pragma once
#include <cstddef>
#include <cstdint>

#include "shm/ring.hpp"

namespace ch4lite::shm {

inline constexpr uint64_t segment_magic = 0x6368346c69746531ull;  // "ch4lite1"
inline constexpr uint32_t segment_version = 1;
inline constexpr std::size_t page = 4096;

struct alignas(line) rank_slot {
    int32_t world_rank;
    int32_t pid;
    uint64_t probe_addr;  // address of the rank's CMA probe word
};

struct alignas(line) segment_header {
    uint64_t magic;
    uint32_t version;
    uint32_t nlocal;
    uint64_t cookie;       // random; published with the name, checked on attach
    uint64_t total_bytes;
    uint32_t cells;        // per ring, power of two
    uint32_t pad;
    uint64_t data_bytes;   // per ring, power of two
};
// The nlocal rank slots follow the header.
inline rank_slot* rank_slots(segment_header* h) noexcept { return reinterpret_cast<rank_slot*>(h + 1); }

struct geometry {
    uint32_t nlocal = 0;
    uint32_t cells = 0;
    uint64_t data_bytes = 0;

    static constexpr std::size_t round_up(std::size_t v, std::size_t a) noexcept {
        return (v + a - 1) / a * a;
    }
    std::size_t header_bytes() const noexcept {
        return round_up(sizeof(segment_header) + nlocal * sizeof(rank_slot), page);
    }
    std::size_t cells_offset() const noexcept { return sizeof(ring_ctrl); }
    std::size_t data_offset() const noexcept {
        return round_up(sizeof(ring_ctrl) + std::size_t{cells} * sizeof(cell), page);
    }
    std::size_t ring_stride() const noexcept { return data_offset() + data_bytes; }
    std::size_t total_bytes() const noexcept {
        return header_bytes() + std::size_t{nlocal} * nlocal * ring_stride();
    }
    // Ring carrying messages from local rank s to local rank r.
    ring_view ring(std::byte* base, uint32_t s, uint32_t r) const noexcept {
        std::byte* p = base + header_bytes() + (std::size_t{r} * nlocal + s) * ring_stride();
        ring_view v;
        v.ctrl = reinterpret_cast<ring_ctrl*>(p);
        v.cells = reinterpret_cast<cell*>(p + cells_offset());
        v.data = p + data_offset();
        v.cell_mask = cells - 1;
        v.data_bytes = data_bytes;
        return v;
    }
    bool valid() const noexcept {
        return nlocal >= 1 && cells >= 2 && (cells & (cells - 1)) == 0 && data_bytes >= 2 * page &&
               (data_bytes & (data_bytes - 1)) == 0;
    }
};

}  // namespace ch4lite::shm
