// SPDX-License-Identifier: MIT
// Scan and Exscan by recursive doubling: in round k, ranks r and r ^ 2^k
// swap the reduction of the runs of ranks they have seen so far. A rank
// folds a lower partner's run into its result; `partial` (the run it
// forwards) grows either way, lower ranks first, so non-commutative ops get
// x0 op x1 op ... in rank order.
#include <cstring>
#include <utility>

#include "coll/coll.hpp"
#include "coll/p2p.hpp"
#include "util/pool_buffer.hpp"

namespace ch4lite::coll {

using namespace ch4lite::dev;

namespace {

status scan_rd(const void* sbuf, std::byte* rbuf, int64_t count, const reduction& op, comm& c,
               bool exclusive) noexcept {
    const int p = c.size, me = c.rank;
    const std::size_t bytes = static_cast<std::size_t>(count) * op.elem;
    util::scratch sp, st;
    std::byte* partial = sp.get(bytes);
    std::byte* tmp = st.get(bytes);
    if (!partial || !tmp) return status::no_mem;
    std::memcpy(partial, sbuf ? sbuf : rbuf, bytes);
    if (!exclusive && sbuf) std::memcpy(rbuf, sbuf, bytes);
    bool have_result = !exclusive;  // exscan: rbuf is set by the first lower partner
    const int tag = exclusive ? coll::tag_exscan : coll::tag_scan;
    for (int mask = 1; mask < p; mask <<= 1) {
        const int peer = me ^ mask;
        if (peer >= p) continue;
        const status s = coll::sendrecv(c, partial, bytes, peer, tmp, bytes, peer, tag);
        if (s != status::ok) return s;
        if (peer < me) {
            if (const status a = op.apply(tmp, partial, count); a != status::ok) return a;
            if (have_result) {
                if (const status a = op.apply(tmp, rbuf, count); a != status::ok) return a;
            } else {
                std::memcpy(rbuf, tmp, bytes);
                have_result = true;
            }
        } else if (op.commutative) {
            if (const status a = op.apply(tmp, partial, count); a != status::ok) return a;
        } else {
            if (const status a = op.apply(partial, tmp, count); a != status::ok) return a;
            std::swap(partial, tmp);
        }
    }
    return status::ok;
}

}  // namespace

status scan(const void* sbuf, void* rbuf, int64_t count, const reduction& op,
                 comm& c) noexcept {
    return coll::finish(scan_rd(sbuf, static_cast<std::byte*>(rbuf), count, op, c, false));
}

status exscan(const void* sbuf, void* rbuf, int64_t count, const reduction& op,
                   comm& c) noexcept {
    return coll::finish(scan_rd(sbuf, static_cast<std::byte*>(rbuf), count, op, c, true));
}

}  // namespace ch4lite::coll
