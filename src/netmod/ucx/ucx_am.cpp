// SPDX-License-Identifier: MIT
// Stage A, arrivals: UCP active messages to dev::am_dispatch, in order per
// source; rendezvous payloads straight into the device's buffer, or into
// ours when it has no place for them.
#include <cstdlib>
#include <new>

#include "netmod/ucx/ucx_am.hpp"
#include "util/log.hpp"

namespace ch4lite::nm::ucx {

am_netmod* am_netmod::self_ = nullptr;

void am_netmod::on_sent(void* req, ucs_status_t s, void* user) {
    auto* st = static_cast<request_state*>(user);
    st->req = nullptr;
    ucp_request_free(req);
    if (st->limit) {  // it held its peer's send gate
        --self_->gate_[st->limit - 1];
        st->limit = 0;
    }
    dev::nm_send_done(st, s == UCS_OK ? status::ok : map(s));
}

ucs_status_t am_netmod::on_am(void* arg, const void* header, std::size_t header_length,
                              void* data, std::size_t length, const ucp_am_recv_param_t* param) {
    auto* nm = static_cast<am_netmod*>(arg);
    am_wire w;
    if (header_length < sizeof w) {
        util::warn("ucx: dropping an active message with a %zu-byte header", header_length);
        return UCS_OK;
    }
    std::memcpy(&w, header, sizeof w);
    if (sizeof w + w.hlen > header_length || w.hlen > caps.am_header_max || w.src < 0 ||
        w.src >= nm->size_) {
        util::warn("ucx: dropping a malformed active message (handler %u, source %d)", w.handler,
                   w.src);
        return UCS_OK;
    }
    const auto* dh = static_cast<const std::byte*>(header) + sizeof w;
    callback_scope cs(*nm);
    if (param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV) return nm->on_rndv(w, dh, data, length);
    if (__builtin_expect(nm->held_count_[static_cast<std::size_t>(w.src)] == 0, 1)) {
        dev::am_dispatch(w.src, w.handler, dh, w.hlen, data, length);
        return UCS_OK;
    }
    return nm->hold(w, dh, data, length, param->recv_attr & UCP_AM_RECV_ATTR_FLAG_DATA);
}

// An eager message behind a waiting one from its source: keep UCP's buffer
// when it lets us (persistent data), else copy the payload.
ucs_status_t am_netmod::hold(const am_wire& w, const std::byte* dh, void* data, std::size_t len,
                             bool persistent) {
    auto a = std::make_unique<arrival>();
    a->nm = this;
    a->src = w.src;
    a->handler = w.handler;
    a->hlen = w.hlen;
    std::memcpy(a->hdr, dh, w.hlen);
    a->len = len;
    a->ready = true;
    ucs_status_t ret = UCS_OK;
    if (persistent) {
        a->ucp_data = data;
        a->data = static_cast<std::byte*>(data);
        ret = UCS_INPROGRESS;  // UCP keeps it until ucp_am_data_release
    } else if (len) {
        a->own.reset(new (std::nothrow) std::byte[len]);
        if (!a->own) util::fatal("ucx: out of memory holding a %zu-byte active message", len);
        std::memcpy(a->own.get(), data, len);
        a->data = a->own.get();
    }
    ++held_count_[static_cast<std::size_t>(w.src)];
    held_.push_back(std::move(a));
    return ret;
}

// The header of a rendezvous message arrived; its payload is still at the
// sender.
ucs_status_t am_netmod::on_rndv(const am_wire& w, const std::byte* dh, void* desc,
                                std::size_t len) {
    ucp_request_param_t p;
    p.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA;
    // A device buffer for it (a rendezvous chunk of a matched receive): the
    // device does not mind its order among the other messages.
    if (void* dest = dev::am_payload_dest(w.src, w.handler, dh, w.hlen, len)) {
        auto* l = new (std::nothrow) landing{this, w.src, w.handler, w.hlen, {}, len};
        if (!l) util::fatal("ucx: out of memory receiving a %zu-byte payload", len);
        std::memcpy(l->hdr, dh, w.hlen);
        p.cb.recv_am = on_landed;
        p.user_data = l;
        const ucs_status_ptr_t r = ucp_am_recv_data_nbx(worker_, desc, dest, len, &p);
        if (r == nullptr) {
            on_landed(nullptr, UCS_OK, len, l);
        } else if (UCS_PTR_IS_ERR(r)) {
            on_landed(nullptr, UCS_PTR_STATUS(r), 0, l);
        }
        return UCS_OK;  // the receive is started: UCP owns the descriptor
    }
    // No place for it: receive into our memory, dispatch in order.
    auto a = std::make_unique<arrival>();
    a->nm = this;
    a->src = w.src;
    a->handler = w.handler;
    a->hlen = w.hlen;
    std::memcpy(a->hdr, dh, w.hlen);
    a->len = len;
    a->own.reset(new (std::nothrow) std::byte[len ? len : 1]);
    if (!a->own) util::fatal("ucx: out of memory receiving a %zu-byte active message", len);
    a->data = a->own.get();
    arrival* raw = a.get();
    ++held_count_[static_cast<std::size_t>(w.src)];
    held_.push_back(std::move(a));
    p.cb.recv_am = on_held_payload;
    p.user_data = raw;
    const ucs_status_ptr_t r = ucp_am_recv_data_nbx(worker_, desc, raw->data, len, &p);
    if (r == nullptr) {
        on_held_payload(nullptr, UCS_OK, len, raw);
    } else if (UCS_PTR_IS_ERR(r)) {
        on_held_payload(nullptr, UCS_PTR_STATUS(r), 0, raw);
    }
    return UCS_OK;
}

void am_netmod::on_held_payload(void* req, ucs_status_t s, std::size_t, void* user) {
    auto* a = static_cast<arrival*>(user);
    if (req) ucp_request_free(req);
    // The message is lost and the device's protocol with it: a transport
    // failure, not a user error.
    if (s != UCS_OK)
        util::fatal("ucx: receiving a %zu-byte active message from rank %d failed: %s", a->len,
                    a->src, ucs_status_string(s));
    a->ready = true;
    callback_scope cs(*a->nm);
    a->nm->drain_held();
}

void am_netmod::on_landed(void* req, ucs_status_t s, std::size_t, void* user) {
    std::unique_ptr<landing> l(static_cast<landing*>(user));
    if (req) ucp_request_free(req);
    callback_scope cs(*l->nm);
    dev::am_payload_landed(l->src, l->handler, l->hdr, l->hlen, l->len,
                           s == UCS_OK ? status::ok : map(s));
}

// Dispatches the held messages from the front while they are complete.
void am_netmod::drain_held() {
    while (!held_.empty() && held_.front()->ready) {
        std::unique_ptr<arrival> a = std::move(held_.front());
        held_.pop_front();
        --held_count_[static_cast<std::size_t>(a->src)];
        dev::am_dispatch(a->src, a->handler, a->hdr, a->hlen, a->data, a->len);
        if (a->ucp_data) ucp_am_data_release(worker_, a->ucp_data);
    }
}

}  // namespace ch4lite::nm::ucx
