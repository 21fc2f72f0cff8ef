// SPDX-License-Identifier: MIT
// Barrier: dissemination (Hensgen, Finkel, Manber). In round k every rank
// signals rank + 2^k and waits for rank - 2^k: ceil(log2 p) rounds of
// zero-byte messages, for any p, with no root.
#include "coll/coll.hpp"
#include "coll/p2p.hpp"

namespace ch4lite::coll {

using namespace ch4lite::dev;

status barrier(comm& c) noexcept {
    const int p = c.size, me = c.rank;
    for (int dist = 1; dist < p; dist <<= 1) {
        const status s = coll::sendrecv(c, nullptr, 0, (me + dist) % p, nullptr, 0,
                                        (me - dist + p) % p, coll::tag_barrier);
        if (s != status::ok) return coll::finish(s);
    }
    return coll::finish(status::ok);
}

}  // namespace ch4lite::coll
