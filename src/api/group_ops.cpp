// SPDX-License-Identifier: MIT
// Group constructors: MPI_Group_incl / excl / range_incl / range_excl /
// union / intersection / difference and MPI_Comm_group. The set logic is
// device/group.cpp; here: argument checks (ranks in range and distinct,
// ranges that terminate) and handles.
#include <memory>
#include <new>

#include "api/errors.hpp"
#include "api/group_handles.hpp"
#include "api/handles.hpp"
#include "device/comm_create.hpp"

using namespace ch4lite;

namespace {

#define GROUP_FAIL(cls, ...) return api::raise_self(api::error_code((cls), fn, __VA_ARGS__))

int lookup(const char* fn, MPI_Group h, const char* what, dev::group*& g) noexcept {
    CH4_REQUIRE_INIT_IN(fn);
    g = api::lookup_group(h);
    if (!g) GROUP_FAIL(MPI_ERR_GROUP, "invalid %s", what);
    return MPI_SUCCESS;
}

// Builds the group (make() may throw std::bad_alloc) and gives it a handle.
template <class Make>
int hand_out(const char* fn, Make&& make, MPI_Group* out) noexcept {
    MPI_Group h = MPI_GROUP_NULL;
    try {
        h = api::new_group_handle(make());
    } catch (const std::bad_alloc&) {
    }
    if (h == MPI_GROUP_NULL) GROUP_FAIL(MPI_ERR_NO_MEM, "out of memory or group handles");
    *out = h;
    return MPI_SUCCESS;
}

// ranks[0..n-1]: valid ranks of g, no repeats.
int check_ranks(const char* fn, const dev::group& g, int n, const int* ranks) noexcept {
    if (n < 0 || n > g.size())
        GROUP_FAIL(MPI_ERR_ARG, "invalid n %d: must be in [0, %d] (the group size)", n, g.size());
    if (n > 0 && !ranks) GROUP_FAIL(MPI_ERR_ARG, "ranks is NULL");
    const std::unique_ptr<char[]> seen(new (std::nothrow) char[static_cast<std::size_t>(g.size())]());
    if (!seen) GROUP_FAIL(MPI_ERR_NO_MEM, "out of memory checking the ranks");
    for (int i = 0; i < n; ++i) {
        if (ranks[i] < 0 || ranks[i] >= g.size())
            GROUP_FAIL(MPI_ERR_RANK, "invalid ranks[%d] = %d: must be in [0, %d)", i, ranks[i],
                       g.size());
        if (seen[ranks[i]]++)
            GROUP_FAIL(MPI_ERR_RANK, "ranks[%d] = %d appears twice", i, ranks[i]);
    }
    return MPI_SUCCESS;
}

int check_ranges(const char* fn, const dev::group& g, int n, int ranges[][3]) noexcept {
    if (n < 0) GROUP_FAIL(MPI_ERR_ARG, "invalid n %d: must be >= 0", n);
    if (n > 0 && !ranges) GROUP_FAIL(MPI_ERR_ARG, "ranges is NULL");
    const std::unique_ptr<char[]> seen(new (std::nothrow) char[static_cast<std::size_t>(g.size())]());
    if (!seen) GROUP_FAIL(MPI_ERR_NO_MEM, "out of memory checking the ranks");
    for (int i = 0; i < n; ++i) {
        const int first = ranges[i][0], last = ranges[i][1], stride = ranges[i][2];
        for (int v : {first, last})
            if (v < 0 || v >= g.size())
                GROUP_FAIL(MPI_ERR_RANK, "ranges[%d] = (%d, %d, %d): rank %d is not in [0, %d)",
                           i, first, last, stride, v, g.size());
        const int64_t len = dev::range_length(first, last, stride);
        if (len < 0)
            GROUP_FAIL(MPI_ERR_ARG, "ranges[%d] = (%d, %d, %d): the stride never reaches last", i,
                       first, last, stride);
        for (int64_t k = 0; k < len; ++k) {
            const int r = static_cast<int>(first + k * stride);
            if (seen[r]++)
                GROUP_FAIL(MPI_ERR_RANK, "ranges[%d] names rank %d, which an earlier range names", i, r);
        }
    }
    return MPI_SUCCESS;
}

template <class Op>
int set_op(const char* fn, MPI_Group a, MPI_Group b, MPI_Group* out, Op op) noexcept {
    dev::group *ga = nullptr, *gb = nullptr;
    if (const int rc = lookup(fn, a, "group1", ga)) return rc;
    if (const int rc = lookup(fn, b, "group2", gb)) return rc;
    if (!out) GROUP_FAIL(MPI_ERR_ARG, "newgroup (output) is NULL");
    return hand_out(fn, [&] { return op(*ga, *gb); }, out);
}

}  // namespace

extern "C" {

CH4_PMPI(MPI_Group_incl)
int MPI_Group_incl(MPI_Group group, int n, const int ranks[], MPI_Group* newgroup) {
    CH4_API_LOCK();
    const char* fn = __func__;
    dev::group* g = nullptr;
    if (const int rc = lookup(fn, group, "group", g)) return rc;
    if (!newgroup) GROUP_FAIL(MPI_ERR_ARG, "newgroup (output) is NULL");
    if (const int rc = check_ranks(fn, *g, n, ranks)) return rc;
    return hand_out(fn, [&] { return dev::group_incl(*g, ranks, n); }, newgroup);
}

CH4_PMPI(MPI_Group_excl)
int MPI_Group_excl(MPI_Group group, int n, const int ranks[], MPI_Group* newgroup) {
    CH4_API_LOCK();
    const char* fn = __func__;
    dev::group* g = nullptr;
    if (const int rc = lookup(fn, group, "group", g)) return rc;
    if (!newgroup) GROUP_FAIL(MPI_ERR_ARG, "newgroup (output) is NULL");
    if (const int rc = check_ranks(fn, *g, n, ranks)) return rc;
    return hand_out(fn, [&] { return dev::group_excl(*g, ranks, n); }, newgroup);
}

CH4_PMPI(MPI_Group_range_incl)
int MPI_Group_range_incl(MPI_Group group, int n, int ranges[][3], MPI_Group* newgroup) {
    CH4_API_LOCK();
    const char* fn = __func__;
    dev::group* g = nullptr;
    if (const int rc = lookup(fn, group, "group", g)) return rc;
    if (!newgroup) GROUP_FAIL(MPI_ERR_ARG, "newgroup (output) is NULL");
    if (const int rc = check_ranges(fn, *g, n, ranges)) return rc;
    return hand_out(fn, [&] { return dev::group_range_incl(*g, ranges, n); }, newgroup);
}

CH4_PMPI(MPI_Group_range_excl)
int MPI_Group_range_excl(MPI_Group group, int n, int ranges[][3], MPI_Group* newgroup) {
    CH4_API_LOCK();
    const char* fn = __func__;
    dev::group* g = nullptr;
    if (const int rc = lookup(fn, group, "group", g)) return rc;
    if (!newgroup) GROUP_FAIL(MPI_ERR_ARG, "newgroup (output) is NULL");
    if (const int rc = check_ranges(fn, *g, n, ranges)) return rc;
    return hand_out(fn, [&] { return dev::group_range_excl(*g, ranges, n); }, newgroup);
}

CH4_PMPI(MPI_Group_union)
int MPI_Group_union(MPI_Group group1, MPI_Group group2, MPI_Group* newgroup) {
    CH4_API_LOCK();
    return set_op(__func__, group1, group2, newgroup, dev::group_union);
}
CH4_PMPI(MPI_Group_intersection)
int MPI_Group_intersection(MPI_Group group1, MPI_Group group2, MPI_Group* newgroup) {
    CH4_API_LOCK();
    return set_op(__func__, group1, group2, newgroup, dev::group_intersection);
}
CH4_PMPI(MPI_Group_difference)
int MPI_Group_difference(MPI_Group group1, MPI_Group group2, MPI_Group* newgroup) {
    CH4_API_LOCK();
    return set_op(__func__, group1, group2, newgroup, dev::group_difference);
}

CH4_PMPI(MPI_Comm_group)
int MPI_Comm_group(MPI_Comm comm, MPI_Group* group) {
    CH4_API_LOCK();
    CH4_REQUIRE_INIT();
    const char* fn = __func__;
    dev::comm* c = api::lookup_comm(comm);
    if (!c) CH4_FAIL(comm, MPI_ERR_COMM, "invalid communicator");
    if (!group) CH4_FAIL(comm, MPI_ERR_ARG, "group (output) is NULL");
    return hand_out(fn, [&] { return dev::comm_group(*c); }, group);
}

}  // extern "C"
