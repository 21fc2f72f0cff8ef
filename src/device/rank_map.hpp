// SPDX-License-Identifier: MIT
// Communicator rank -> world rank (lpid) maps (seed 002, "Communicators").
// Detected when a communicator is created; O(1) memory unless irregular:
//   direct        lpid = rank                         (world and its dups)
//   offset        lpid = rank + a
//   stride        lpid = a + rank * s
//   stride_block  lpid = a + (rank / b) * s + rank % b
//   lut           lpid = table[rank]   (shared, reference-counted, by dups)
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

namespace ch4lite::dev {

class rank_map {
  public:
    enum class kind : uint8_t { direct, offset, stride, stride_block, lut };

    rank_map() = default;
    static rank_map direct() { return rank_map(); }
    // Finds the most compact form for lpids[0..n-1].
    static rank_map detect(const int* lpids, int n);

    int lpid(int rank) const noexcept {
        switch (kind_) {
            case kind::direct: return rank;
            case kind::offset: return rank + a_;
            case kind::stride: return a_ + rank * s_;
            case kind::stride_block: return a_ + (rank / b_) * s_ + rank % b_;
            case kind::lut: break;
        }
        return (*lut_)[static_cast<std::size_t>(rank)];
    }
    kind map_kind() const noexcept { return kind_; }
    // Heap bytes owned by this map (0 unless lut; a lut is counted by every holder).
    std::size_t heap_bytes() const noexcept {
        return lut_ ? lut_->capacity() * sizeof(int) : 0;
    }
    const char* kind_name() const noexcept;

  private:
    kind kind_ = kind::direct;
    int a_ = 0, s_ = 1, b_ = 1;
    std::shared_ptr<const std::vector<int>> lut_;
};

}  // namespace ch4lite::dev
