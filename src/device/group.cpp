// SPDX-License-Identifier: MIT
#include "device/group.hpp"

#include <algorithm>
#include <numeric>

#include <mpi.h>

namespace ch4lite::dev {

int64_t range_length(int first, int last, int stride) noexcept {
    if (stride == 0) return -1;
    if ((stride > 0 && first > last) || (stride < 0 && first < last)) return -1;
    return (int64_t{last} - first) / stride + 1;
}

group group_incl(const group& g, const int* ranks, int n) {
    std::vector<int> l(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) l[i] = g.lpid(ranks[i]);
    return group::from_lpids(l, g.me());
}

group group_excl(const group& g, const int* ranks, int n) {
    std::vector<char> drop(static_cast<std::size_t>(g.size()), 0);
    for (int i = 0; i < n; ++i) drop[ranks[i]] = 1;
    std::vector<int> l;
    l.reserve(static_cast<std::size_t>(g.size() - n));
    for (int r = 0; r < g.size(); ++r)
        if (!drop[r]) l.push_back(g.lpid(r));
    return group::from_lpids(l, g.me());
}

namespace {
// Calls f(rank) for every rank the triplets name, in order.
template <class F>
void for_each_in_ranges(const int (*ranges)[3], int n, F&& f) {
    for (int i = 0; i < n; ++i) {
        const int64_t len = range_length(ranges[i][0], ranges[i][1], ranges[i][2]);
        for (int64_t k = 0; k < len; ++k) f(static_cast<int>(ranges[i][0] + k * ranges[i][2]));
    }
}
}  // namespace

group group_range_incl(const group& g, const int (*ranges)[3], int n) {
    std::vector<int> l;
    for_each_in_ranges(ranges, n, [&](int r) { l.push_back(g.lpid(r)); });
    return group::from_lpids(l, g.me());
}

group group_range_excl(const group& g, const int (*ranges)[3], int n) {
    std::vector<char> drop(static_cast<std::size_t>(g.size()), 0);
    for_each_in_ranges(ranges, n, [&](int r) { drop[r] = 1; });
    std::vector<int> l;
    for (int r = 0; r < g.size(); ++r)
        if (!drop[r]) l.push_back(g.lpid(r));
    return group::from_lpids(l, g.me());
}

group group_union(const group& a, const group& b) {
    std::vector<int> l;
    l.reserve(static_cast<std::size_t>(a.size()));
    for (int r = 0; r < a.size(); ++r) l.push_back(a.lpid(r));
    for (int r = 0; r < b.size(); ++r)
        if (a.rank_of(b.lpid(r)) < 0) l.push_back(b.lpid(r));
    return group::from_lpids(l, a.me());
}

group group_intersection(const group& a, const group& b) {
    std::vector<int> l;
    for (int r = 0; r < a.size(); ++r)
        if (b.rank_of(a.lpid(r)) >= 0) l.push_back(a.lpid(r));
    return group::from_lpids(l, a.me());
}

group group_difference(const group& a, const group& b) {
    std::vector<int> l;
    for (int r = 0; r < a.size(); ++r)
        if (b.rank_of(a.lpid(r)) < 0) l.push_back(a.lpid(r));
    return group::from_lpids(l, a.me());
}

int group_compare(const group& a, const group& b) {
    if (a.size() != b.size()) return MPI_UNEQUAL;
    if (a.map().same_order(b.map())) return MPI_IDENT;
    for (int r = 0; r < a.size(); ++r)
        if (b.rank_of(a.lpid(r)) < 0) return MPI_UNEQUAL;
    return MPI_SIMILAR;
}

void group_translate(const group& a, const int* ranks, int n, const group& b, int* out) {
    for (int i = 0; i < n; ++i) out[i] = b.rank_of(a.lpid(ranks[i]));
}

group group_split(const group& parent, const int* colors, const int* keys, int undefined) {
    const int me = parent.my_rank();
    const int color = colors[me];
    if (color == undefined) return group(rank_map::direct(0), parent.me());
    std::vector<int> members;  // parent ranks with my color
    for (int r = 0; r < parent.size(); ++r)
        if (colors[r] == color) members.push_back(r);
    // Stable by parent rank: equal keys keep the parent order.
    std::stable_sort(members.begin(), members.end(),
                     [&](int x, int y) { return keys[x] < keys[y]; });
    for (int& r : members) r = parent.lpid(r);
    return group::from_lpids(members, parent.me());
}

}  // namespace ch4lite::dev
