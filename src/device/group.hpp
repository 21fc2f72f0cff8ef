// SPDX-License-Identifier: MIT
// Process groups (MPI_Group): an ordered set of world ranks (lpids) held as a
// rank_map, so a regular group of a million processes costs O(1) memory.
// Every operation here is pure: it takes the groups and the caller's own
// lpid (`me`), never global state, so a unit test can build groups of a
// simulated world without processes. Argument validation (ranks in range,
// no duplicates) is the API layer's job; these functions assume valid input.
#pragma once
#include <cstdint>
#include <vector>

#include "device/rank_map.hpp"

namespace ch4lite::dev {

class group {
  public:
    group() = default;
    group(rank_map m, int me) : map_(std::move(m)), me_(me), my_rank_(map_.find(me)) {}
    static group from_lpids(const std::vector<int>& lpids, int me) {
        return group(rank_map::detect(lpids.data(), static_cast<int>(lpids.size())), me);
    }

    int size() const noexcept { return map_.size(); }
    int lpid(int rank) const noexcept { return map_.lpid(rank); }
    int rank_of(int lpid) const noexcept { return map_.rank_of(lpid); }
    // The caller's rank in the group, or -1 if it is not a member.
    int my_rank() const noexcept { return my_rank_; }
    int me() const noexcept { return me_; }
    const rank_map& map() const noexcept { return map_; }

    uintptr_t handle = 0;  // the MPI_Group value users hold
    int refs = 1;          // user handles (MPI_Group_free drops one)

  private:
    rank_map map_;
    int me_ = -1;
    int my_rank_ = -1;
};

// MPI_Group_incl / excl: ranks[0..n-1] are valid, distinct ranks of g.
group group_incl(const group& g, const int* ranks, int n);
group group_excl(const group& g, const int* ranks, int n);
// MPI_Group_range_incl / excl: (first, last, stride) triplets already checked.
group group_range_incl(const group& g, const int (*ranges)[3], int n);
group group_range_excl(const group& g, const int (*ranges)[3], int n);
// Set operations in MPI's order (members of a first, in a's order, ...).
group group_union(const group& a, const group& b);
group group_intersection(const group& a, const group& b);
group group_difference(const group& a, const group& b);
// MPI_IDENT (same members, same order), MPI_SIMILAR (same members) or MPI_UNEQUAL.
int group_compare(const group& a, const group& b);
// out[i] = rank in b of a's rank ranks[i] (-1 if absent); ranks are valid.
void group_translate(const group& a, const int* ranks, int n, const group& b, int* out);
// Number of ranks a (first, last, stride) triplet names; -1 if it never
// reaches `last` (stride 0 or pointing away from it).
int64_t range_length(int first, int last, int stride) noexcept;

// MPI_Comm_split of a communicator whose group is `parent`: the members with
// my color, ordered by (key, parent rank). colors/keys have parent.size()
// entries, indexed by parent rank; my entry is at parent.my_rank(). Colors
// equal to `undefined` (MPI_UNDEFINED) join no group: I get an empty group.
group group_split(const group& parent, const int* colors, const int* keys, int undefined);

}  // namespace ch4lite::dev
