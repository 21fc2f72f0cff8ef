// SPDX-License-Identifier: MIT
// MPI_Type_create_subarray: a nest of hvectors (one per dimension; the
// fastest-varying one's run is the first one's block), placed at the
// subarray's corner with the full array's bounds (lb 0, extent = product of
// sizes): ndims types in all (the contiguous run, the placement and the
// resize were three more, and a struct of subarrays makes many).
#include <algorithm>

#include "dame/checked.hpp"
#include "dame/type.hpp"

namespace ch4lite::dame {

status make_subarray(int ndims, const int64_t* sizes, const int64_t* subsizes,
                     const int64_t* starts, bool order_c, type* old, type** out) noexcept {
    if (ndims <= 0 || !sizes || !subsizes || !starts || !old) return status::invalid;
    for (int i = 0; i < ndims; ++i) {
        if (sizes[i] <= 0 || subsizes[i] <= 0 || subsizes[i] > sizes[i] || starts[i] < 0 ||
            starts[i] > sizes[i] - subsizes[i])
            return status::invalid;
    }
    // dim(k) walks dimensions from the fastest-varying (k = 0) to the slowest.
    auto dim = [&](int k) { return order_c ? ndims - 1 - k : k; };
    checked c;
    const int64_t ext = old->extent();
    int64_t stride = c.mul(sizes[dim(0)], ext);
    int64_t offset = c.mul(starts[dim(0)], ext);
    if (c.bad) return status::range;
    // The fastest dimension's run is the blocks of the first vector (a
    // 1-D subarray: a vector of one block).
    type* cur = nullptr;
    for (int k = 1; k < std::max(ndims, 2) && !c.bad; ++k) {  // at least once
        const bool first = k == 1;
        const int64_t n = k < ndims ? subsizes[dim(k)] : 1;
        type* next = nullptr;
        status s = make_vector(n, first ? subsizes[dim(0)] : 1, stride, true, first ? old : cur, &next);
        if (cur) cur->release();
        if (s != status::ok) return s;
        cur = next;
        if (k < ndims) {
            offset = c.add(offset, c.mul(starts[dim(k)], stride));
            stride = c.mul(stride, sizes[dim(k)]);
        }
    }
    if (c.bad) {
        cur->release();
        return status::range;
    }
    // Placed at the corner, bounds those of the whole array (stride is now
    // its byte size).
    status s = make_placed(cur, offset, 0, stride, out);
    cur->release();
    if (s == status::ok) (*out)->comb_ = combiner::subarray;
    return s;
}

}  // namespace ch4lite::dame
