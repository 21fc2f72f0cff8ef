// SPDX-License-Identifier: MIT
#include "device/rank_map.hpp"

#include <algorithm>
#include <new>

namespace ch4lite::dev {

rank_map rank_map::detect(const int* lpids, int n) {
    rank_map m;
    m.n_ = n > 0 ? n : 0;
    if (n <= 0) return m;
    const int64_t a = lpids[0];
    bool is_offset = true;
    for (int i = 0; i < n && is_offset; ++i) is_offset = lpids[i] == a + i;
    if (is_offset) {
        if (a != 0) {
            m.kind_ = kind::offset;
            m.a_ = static_cast<int>(a);
        }
        return m;
    }
    // stride_block: blocks of b consecutive lpids, block starts s apart
    // (b == 1: a plain stride, which may be negative). 64-bit arithmetic: a
    // candidate stride times a rank may exceed int before the check fails.
    int b = 1;
    while (b < n && lpids[b] == a + b) ++b;
    const int64_t s = lpids[b] - a;  // b < n here: the offset case returned
    bool ok = s > b || (b == 1 && s != 0);
    for (int i = 0; i < n && ok; ++i) ok = lpids[i] == a + (i / b) * s + i % b;
    if (ok) {
        m.kind_ = b == 1 ? kind::stride : kind::stride_block;
        m.a_ = static_cast<int>(a);
        m.s_ = static_cast<int>(s);
        m.b_ = b;
        return m;
    }
    m.kind_ = kind::lut;
    auto d = std::make_shared<lut_data>();
    d->lpids.assign(lpids, lpids + n);
    m.lut_ = std::move(d);
    return m;
}

int rank_map::rank_of(int lpid) const noexcept {
    int64_t r = -1;
    switch (kind_) {
        case kind::direct: r = lpid; break;
        case kind::offset: r = int64_t{lpid} - a_; break;
        case kind::stride: {
            const int64_t d = int64_t{lpid} - a_;
            if (d % s_ == 0) r = d / s_;
            break;
        }
        case kind::stride_block: {
            const int64_t d = int64_t{lpid} - a_;
            if (d < 0) break;
            const int64_t blk = d / s_, off = d % s_;
            if (off < b_) r = blk * b_ + off;
            break;
        }
        case kind::lut: {
            auto& inv = lut_->inverse;
            if (inv.empty()) {
                try {
                    inv.reserve(lut_->lpids.size());
                } catch (const std::bad_alloc&) {
                    return find(lpid);  // no memory for the index: scan
                }
                for (std::size_t i = 0; i < lut_->lpids.size(); ++i)
                    inv.emplace_back(lut_->lpids[i], static_cast<int>(i));
                std::sort(inv.begin(), inv.end());
            }
            auto it = std::lower_bound(inv.begin(), inv.end(), std::make_pair(lpid, -1));
            if (it != inv.end() && it->first == lpid) r = it->second;
            break;
        }
    }
    return r >= 0 && r < n_ ? static_cast<int>(r) : -1;
}

int rank_map::find(int lpid) const noexcept {
    if (kind_ != kind::lut) return rank_of(lpid);
    const auto& l = lut_->lpids;
    for (std::size_t i = 0; i < l.size(); ++i)
        if (l[i] == lpid) return static_cast<int>(i);
    return -1;
}

bool rank_map::same_order(const rank_map& o) const noexcept {
    if (n_ != o.n_) return false;
    if (kind_ != kind::lut && o.kind_ != kind::lut) {
        // detect() yields one canonical form per sequence (n > 1); a
        // one-member map is offset or direct, compared by its lpid below.
        if (n_ <= 1) return n_ == 0 || lpid(0) == o.lpid(0);
        return kind_ == o.kind_ && a_ == o.a_ && s_ == o.s_ && b_ == o.b_;
    }
    if (lut_ && lut_ == o.lut_) return true;
    for (int r = 0; r < n_; ++r)
        if (lpid(r) != o.lpid(r)) return false;
    return true;
}

std::size_t rank_map::heap_bytes() const noexcept {
    if (!lut_) return 0;
    return sizeof(lut_data) + lut_->lpids.capacity() * sizeof(int) +
           lut_->inverse.capacity() * sizeof(std::pair<int, int>);
}

const char* rank_map::kind_name() const noexcept {
    switch (kind_) {
        case kind::direct: return "direct";
        case kind::offset: return "offset";
        case kind::stride: return "stride";
        case kind::stride_block: return "stride_block";
        case kind::lut: return "lut";
    }
    return "?";
}

}  // namespace ch4lite::dev
