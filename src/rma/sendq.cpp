// SPDX-License-Identifier: MIT
#include "rma/sendq.hpp"

#include <algorithm>
#include <cstring>

#include "device/am_p2p.hpp"
#include "device/device.hpp"
#include "rma/pools.hpp"
#include "rma/win.hpp"
#include "util/log.hpp"

namespace ch4lite::rma {

namespace {
util::ilist<out_msg, &out_msg::link> g_queued;  // back-pressure FIFO
util::ilist<out_msg, &out_msg::link> g_flying;  // netmod owns them

// Messages queued or in flight need pump() even outside RMA calls (a
// target's acknowledgement, an MPI_Rput's message): device progress calls
// rma::hook while the bit is set (device.hpp, rma_poll).
void note_busy() noexcept {
    if (g_queued.empty() && g_flying.empty())
        dev::g_dev.rma_poll &= ~poll_sends;
    else
        dev::g_dev.rma_poll |= poll_sends;
}
}  // namespace

bool buffer::reserve(std::size_t n) noexcept {
    if (n <= cap_) return true;
    std::size_t c = std::max<std::size_t>(cap_ * 2, 256);
    while (c < n) c *= 2;
    void* q = std::realloc(p_, c);
    if (!q) return false;
    p_ = static_cast<std::byte*>(q);
    cap_ = c;
    return true;
}

out_msg* msg_alloc(win* w, int peer, uint8_t handler) noexcept {
    out_msg* m = msg_pool().alloc();
    if (!m) return nullptr;
    m->w = w;
    m->peer = peer;
    m->handler = handler;
    m->hlen = 0;
    m->niov = 0;
    m->counted = false;
    m->own.clear();
    m->req = nullptr;
    m->user_req = nullptr;
    return m;
}

void msg_free(out_msg* m) noexcept { msg_pool().free(m); }

std::size_t msg_limit(int peer) noexcept {
    if (dev::g_dev.shm.local(peer))
        return std::min<std::size_t>(dev::g_dev.shm.am_payload_max(), 64 * 1024);
    return active_netmod::caps.am_payload_max;
}

namespace {

void gone(out_msg* m) noexcept {
    --m->w->inflight;
    if (m->user_req) dev::request_complete(m->user_req);
    msg_pool().free(m);
}

// One attempt; `again` leaves m untouched.
status try_send(out_msg* m) noexcept {
    const bool local = dev::g_dev.shm.local(m->peer);
    dev::request* r = nullptr;
    if (!local) {
        r = dev::request_alloc(dev::req_kind::rma, 1);
        if (!r) return status::again;  // the request pool refills as sends complete
    }
    const status s = dev::am_send_to(m->peer, m->handler, m->hdr, m->hlen, m->iov, m->niov,
                                     r ? &r->nm : nullptr);
    if (s == status::in_progress) {
        m->req = r;
        return s;
    }
    if (r) {
        r->cc = 0;
        dev::request_free_now(r);
    }
    return s;
}

}  // namespace

status post(out_msg* m) noexcept {
    ++m->w->inflight;
    if (g_queued.empty()) {
        const status s = try_send(m);
        if (s == status::in_progress) {
            g_flying.push_back(m);
            note_busy();
            return status::ok;
        }
        if (s != status::again) {
            gone(m);
            return s;
        }
    }
    g_queued.push_back(m);
    note_busy();
    return status::ok;
}

int pump() noexcept {
    int n = 0;
    for (out_msg* m = g_flying.front(); m;) {
        out_msg* nx = g_flying.next(m);
        if (m->req->cc == 0) {
            if (m->req->result != status::ok)
                util::warn("rma: a message to rank %d failed", m->peer);
            dev::request_release(m->req);
            g_flying.remove(m);
            gone(m);
            ++n;
        }
        m = nx;
    }
    while (out_msg* m = g_queued.front()) {
        const status s = try_send(m);
        if (s == status::again) break;
        g_queued.remove(m);
        ++n;
        if (s == status::in_progress) {
            g_flying.push_back(m);
        } else {
            if (s != status::ok) util::warn("rma: dropping a message to rank %d", m->peer);
            gone(m);
        }
    }
    if (n) note_busy();
    return n;
}

bool sends_idle() noexcept { return g_queued.empty() && g_flying.empty(); }

}  // namespace ch4lite::rma
