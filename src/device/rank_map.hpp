// SPDX-License-Identifier: MIT
// Communicator and group rank -> world rank (lpid) maps (seed 002,
// "Communicators"). Detected when a communicator or group is created; O(1)
// memory unless irregular:
//   direct        lpid = rank                         (world and its dups)
//   offset        lpid = rank + a
//   stride        lpid = a + rank * s                 (s may be negative)
//   stride_block  lpid = a + (rank / b) * s + rank % b     (s > b > 1)
//   lut           lpid = table[rank]   (shared, reference-counted, by dups)
// The inverse, rank_of(lpid), is arithmetic for the regular kinds; a lut
// builds a sorted inverse index the first time it is asked (shared too).
#pragma once
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

namespace ch4lite::dev {

class rank_map {
  public:
    enum class kind : uint8_t { direct, offset, stride, stride_block, lut };

    rank_map() = default;
    static rank_map direct(int n) {
        rank_map m;
        m.n_ = n;
        return m;
    }
    // Finds the most compact form for lpids[0..n-1] (distinct, >= 0).
    static rank_map detect(const int* lpids, int n);

    int size() const noexcept { return n_; }
    int lpid(int rank) const noexcept {
        switch (kind_) {
            case kind::direct: return rank;
            case kind::offset: return rank + a_;
            case kind::stride: return a_ + rank * s_;
            case kind::stride_block: return a_ + (rank / b_) * s_ + rank % b_;
            case kind::lut: break;
        }
        return lut_->lpids[static_cast<std::size_t>(rank)];
    }
    // Rank of `lpid` in this map, or -1 if it is not a member.
    int rank_of(int lpid) const noexcept;
    // The same without building a lut's inverse index (O(n) scan for a lut):
    // for one-off lookups such as my own rank at creation.
    int find(int lpid) const noexcept;
    // Same members in the same order (O(1) when both maps are regular).
    bool same_order(const rank_map& o) const noexcept;

    kind map_kind() const noexcept { return kind_; }
    // Heap bytes owned by this map (0 unless lut; a lut is counted by every holder).
    std::size_t heap_bytes() const noexcept;
    // Maps sharing this map's lut (1 when it owns it alone; 0 when regular).
    long lut_holders() const noexcept { return lut_ ? lut_.use_count() : 0; }
    const char* kind_name() const noexcept;

  private:
    struct lut_data {
        std::vector<int> lpids;
        mutable std::vector<std::pair<int, int>> inverse;  // (lpid, rank), sorted; lazily built
    };
    kind kind_ = kind::direct;
    int n_ = 0;
    int a_ = 0, s_ = 1, b_ = 1;
    std::shared_ptr<const lut_data> lut_;
};

}  // namespace ch4lite::dev
