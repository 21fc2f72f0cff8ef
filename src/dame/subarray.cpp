// SPDX-License-Identifier: MIT
// MPI_Type_create_subarray: a nest of hvectors (one per dimension, the
// fastest-varying one a contiguous run), displaced to the subarray's corner
// and resized to the full array (lb 0, extent = product of sizes).
#include <vector>

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
    type* cur = nullptr;
    if (status s = make_contiguous(subsizes[dim(0)], old, &cur); s != status::ok) return s;
    int64_t stride = c.mul(sizes[dim(0)], ext);
    int64_t offset = c.mul(starts[dim(0)], ext);
    for (int k = 1; k < ndims && !c.bad; ++k) {
        type* next = nullptr;
        status s = make_vector(subsizes[dim(k)], 1, stride, true, cur, &next);
        cur->release();
        if (s != status::ok) return s;
        cur = next;
        offset = c.add(offset, c.mul(starts[dim(k)], stride));
        stride = c.mul(stride, sizes[dim(k)]);
    }
    if (c.bad) {
        cur->release();
        return status::range;
    }
    type* placed = nullptr;
    status s = make_indexed_block(1, 1, &offset, true, cur, &placed);
    cur->release();
    if (s != status::ok) return s;
    s = make_resized(placed, 0, stride, out);  // stride is now the full array's byte size
    placed->release();
    if (s == status::ok) (*out)->comb_ = combiner::subarray;
    return s;
}

}  // namespace ch4lite::dame
