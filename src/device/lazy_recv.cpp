// SPDX-License-Identifier: MIT
// Lazily posted receives (device/lazy_recv.hpp).
#include "device/lazy_recv.hpp"

#include "device/am_p2p.hpp"
#include "device/comm.hpp"
#include "device/p2p.hpp"

namespace ch4lite::dev {

uint32_t g_lazy_recvs = 0;
util::ilist<lazy_recv, &lazy_recv::link> g_lazy_armed;

void lazy_post_now(lazy_recv& l) noexcept {
    lazy_disarm(l);
    // Posted as irecv_on would, without its hook (the caller keeps order).
    request* r = request_alloc(req_kind::recv, 1);
    if (!r) {
        l.error = status::no_mem;
        return;
    }
    r->buf = l.buf;
    r->capacity = l.bytes;
    set_recv_match(r, l.ctx, *l.c, l.rank, l.tag);
    const status s = am_irecv(r);  // releases r on failure
    if (s == status::ok)
        l.posted = r;
    else
        l.error = s;
}

void lazy_post_ctx(uint32_t ctx) noexcept {
    for (lazy_recv* x = g_lazy_armed.front(); x;) {
        lazy_recv* next = g_lazy_armed.next(x);
        if (x->ctx == ctx) lazy_post_now(*x);
        x = next;
    }
}

}  // namespace ch4lite::dev
