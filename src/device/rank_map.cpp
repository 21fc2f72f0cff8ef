// SPDX-License-Identifier: MIT
#include "device/rank_map.hpp"

namespace ch4lite::dev {

rank_map rank_map::detect(const int* lpids, int n) {
    rank_map m;
    if (n <= 0) return m;
    const int a = lpids[0];
    bool is_offset = true;
    for (int i = 0; i < n && is_offset; ++i) is_offset = lpids[i] == a + i;
    if (is_offset) {
        if (a != 0) {
            m.kind_ = kind::offset;
            m.a_ = a;
        }
        return m;
    }
    // stride_block: blocks of b consecutive lpids, block starts s apart.
    int b = 1;
    while (b < n && lpids[b] == a + b) ++b;
    const int s = (b < n) ? lpids[b] - a : 0;
    bool ok = s > b || (b == 1 && s != 0);
    for (int i = 0; i < n && ok; ++i) ok = lpids[i] == a + (i / b) * s + i % b;
    if (ok) {
        m.kind_ = b == 1 ? kind::stride : kind::stride_block;
        m.a_ = a;
        m.s_ = s;
        m.b_ = b;
        return m;
    }
    m.kind_ = kind::lut;
    m.lut_ = std::make_shared<const std::vector<int>>(lpids, lpids + n);
    return m;
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
