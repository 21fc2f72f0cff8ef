// SPDX-License-Identifier: MIT
#include "coll/p2p.hpp"

#include <cstdint>

#include "device/p2p.hpp"
#include "device/progress.hpp"

namespace ch4lite::coll {

using namespace ch4lite::dev;

namespace {
bool g_mismatch = false;
}

void note_mismatch() noexcept { g_mismatch = true; }

status finish(status s) noexcept {
    const bool m = g_mismatch;
    g_mismatch = false;
    if (s != status::ok) return s;
    return m ? status::truncated : status::ok;
}

status reqs::send(const void* buf, std::size_t n, int dst, int tag) noexcept {
    // An eager-sized message to a local peer goes out at once, complete: no
    // request.
    if (send_direct(c_.ctx_coll(), buf, n, c_, dst, tag)) return status::ok;
    if (n_ == capacity)
        if (const status s = wait(); s != status::ok) return s;
    request* r = nullptr;
    const status s = isend_on(c_.ctx_coll(), buf, n, c_, dst, tag, false, r);
    if (s != status::ok) return s;
    r_[n_] = r;
    want_[n_++] = SIZE_MAX;
    return status::ok;
}

status reqs::recv(void* buf, std::size_t n, int src, int tag) noexcept {
    if (n_ == capacity)
        if (const status s = wait(); s != status::ok) return s;
    request* r = nullptr;
    const status s = irecv_on(c_.ctx_coll(), buf, n, c_, src, tag, r);
    if (s != status::ok) return s;
    r_[n_] = r;
    want_[n_++] = n;
    return status::ok;
}

dev::crowd_wait crowd(int members) noexcept {
    return dev::crowd_wait(g_dev.idle, members, g_dev.usable_cores);
}
dev::crowd_wait crowd(const comm& c) noexcept { return crowd(c.size); }

status reqs::wait() noexcept {
    if (n_ == 0) return status::ok;
    const auto cw = crowd(c_);
    int done = 0;
    // Requests complete in any order; scan from the first one not yet seen
    // complete so a long set is not rescanned from the start every poll.
    progress_until([&] {
        while (done < n_ && r_[done]->cc == 0) ++done;
        return done == n_;
    });
    status first = status::ok;
    for (int i = 0; i < n_; ++i) {
        request* r = r_[i];
        const status s = r->result;
        if (s == status::truncated || (s == status::ok && want_[i] != SIZE_MAX && r->bytes != want_[i]))
            note_mismatch();
        else if (first == status::ok)
            first = s;
        request_release(r);
    }
    n_ = 0;
    return first;
}

status send(comm& c, const void* buf, std::size_t n, int dst, int tag) noexcept {
    reqs q(c);
    if (const status s = q.send(buf, n, dst, tag); s != status::ok) return s;
    return q.wait();
}

status recv(comm& c, void* buf, std::size_t n, int src, int tag) noexcept {
    // An eager-sized message from a local peer, taken without a request.
    direct_recv got;
    const auto cw = crowd(c);
    if (recv_direct(c.ctx_coll(), buf, n, c, src, tag, got)) {
        if (got.bytes != n) note_mismatch();
        return status::ok;
    }
    reqs q(c);
    if (const status s = q.recv(buf, n, src, tag); s != status::ok) return s;
    return q.wait();
}

status sendrecv(comm& c, const void* sbuf, std::size_t sn, int dst, void* rbuf, std::size_t rn,
                int src, int tag) noexcept {
    // A send that went out at once (direct) leaves a plain receive, which
    // may take its message without a request too (a barrier round on a node).
    if (send_direct(c.ctx_coll(), sbuf, sn, c, dst, tag)) return recv(c, rbuf, rn, src, tag);
    reqs q(c);
    if (const status s = q.recv(rbuf, rn, src, tag); s != status::ok) return s;
    if (const status s = q.send(sbuf, sn, dst, tag); s != status::ok) return s;
    return q.wait();
}

}  // namespace ch4lite::coll
