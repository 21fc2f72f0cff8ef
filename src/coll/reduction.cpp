// SPDX-License-Identifier: MIT
// reduction::apply: a predefined op runs its kernel on the packed stream
// directly; a user op needs its operands in the datatype's own layout, which
// for a contiguous type *is* the packed stream (shifted by true_lb), and for
// any other type means unpacking both operands, calling the function and
// packing the result back, a bounded number of instances at a time.
#include <algorithm>
#include <climits>

#include "dame/dame.hpp"
#include "coll/coll.hpp"
#include "util/pool_buffer.hpp"

namespace ch4lite::coll {

using namespace ch4lite::dev;

namespace {

void call_user(const user_op& u, void* in, void* inout, int64_t n, MPI_Datatype dt) noexcept {
    if (u.fn_c) {
        MPI_Count len = n;
        u.fn_c(in, inout, &len, &dt);
        return;
    }
    int len = static_cast<int>(n);  // callers chunk to INT_MAX
    u.fn(in, inout, &len, &dt);
}

}  // namespace

status reduction::apply(const void* in, void* inout, int64_t n) const noexcept {
    if (n <= 0) return status::ok;
    if (!user) {
        const std::size_t k = per ? per : elem / packed_size(t->basic());
        op_apply(id, t->basic(), in, inout, static_cast<std::size_t>(n) * k);
        return status::ok;
    }
    const int64_t max_chunk = user->fn_c ? INT64_MAX : INT_MAX;
    const auto* src = static_cast<const std::byte*>(in);
    auto* dst = static_cast<std::byte*>(inout);
    if (t->contiguous()) {
        // The user sees instance 0 at buf + true_lb: hand it buf = stream - true_lb.
        for (int64_t done = 0; done < n;) {
            const int64_t k = std::min(n - done, max_chunk);
            call_user(*user, const_cast<std::byte*>(src) - t->true_lb(), dst - t->true_lb(), k, dt);
            src += k * static_cast<int64_t>(elem);
            dst += k * static_cast<int64_t>(elem);
            done += k;
        }
        return status::ok;
    }
    // Unpack into two typed temporaries of at most ~256 KiB each.
    const int64_t ext = t->extent();
    const int64_t span1 = t->true_ub() - t->true_lb();
    const int64_t aext = ext < 0 ? -ext : ext;
    const int64_t chunk = std::clamp<int64_t>(aext ? (256 * 1024) / aext : n, 1, std::min(n, max_chunk));
    const int64_t lo = t->true_lb() + std::min<int64_t>(0, (chunk - 1) * ext);
    const int64_t bytes = span1 + (chunk - 1) * aext;
    util::scratch ta, tb;
    std::byte* a = ta.get(static_cast<std::size_t>(bytes));
    std::byte* b = tb.get(static_cast<std::size_t>(bytes));
    if (!a || !b) return status::no_mem;
    for (int64_t done = 0; done < n;) {
        const int64_t k = std::min(n - done, chunk);
        dame::unpack(*t, a - lo, k, src);
        dame::unpack(*t, b - lo, k, dst);
        call_user(*user, a - lo, b - lo, k, dt);
        dame::pack(*t, b - lo, k, dst);
        src += k * static_cast<int64_t>(elem);
        dst += k * static_cast<int64_t>(elem);
        done += k;
    }
    return status::ok;
}

}  // namespace ch4lite::coll
