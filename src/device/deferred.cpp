// SPDX-License-Identifier: MIT
#include "device/deferred.hpp"

#include <cstring>

#include "device/am_p2p.hpp"
#include "device/device.hpp"
#include "device/progress.hpp"
#include "device/typed.hpp"

namespace ch4lite::dev {

namespace {
// Two FIFOs: receives keep their posting order among themselves and sends
// theirs, but a receive the provider cannot take yet must not hold back the
// sends (the peer's matching receives may be what frees its resources).
util::ilist<request, &request::qlink> g_deferred_send;
util::ilist<request, &request::qlink> g_deferred_recv;

bool is_recv_op(deferred_op op) noexcept {
    return op == dop_native_irecv || op == dop_native_irecvv || op == dop_native_tchunk;
}

// Re-issues one queued operation; returns what the netmod said.
status reissue(request* r) noexcept {
    switch (r->deferred_op) {
        case dop_native_isend:
            if constexpr (native_tagged)
                return nm::opt::isend(
                    g_dev.nm, r->peer, nm::match{r->context, r->match_rank, r->tag}, r->buf,
                    r->capacity, (r->flags & rf_sync) ? nm::send_sync : nm::send_default, &r->nm);
            return status::intern;
        case dop_native_irecv:
            if constexpr (native_tagged) {
                void* buf;
                std::size_t len;
                native_recv_buffer(r, buf, len);
                return nm::opt::irecv(
                    g_dev.nm, r->peer < 0 ? nm::any : r->peer,
                    nm::match{r->context, r->match_rank < 0 ? nm::any : r->match_rank,
                              r->match_tag < 0 ? nm::any : r->match_tag},
                    buf, len, &r->nm);
            }
            return status::intern;
        case dop_native_irecvv: return native_issue_recvv(r);
        case dop_native_rts: return native_reissue_rts(r);
        case dop_native_tdata: return native_reissue_tdata(r);
        case dop_native_tchunk: return native_issue_tchunk(r);
        case dop_am_eager: {
            const eager_hdr h{r->context, r->match_rank, r->tag,
                              (r->flags & rf_sync) ? amf_sync : 0u, request_id(r)};
            return am_send_stream(r, am_eager, &h, sizeof h, 0, r->capacity);
        }
        case dop_am_data: {
            const data_hdr h{r->parent->remote_id, 0, r->offset};
            return am_send_stream(r, am_data, &h, sizeof h, r->offset, r->capacity);
        }
        case dop_am_ctrl:
            return am_send_to(r->peer, r->ctrl_handler, r->ctrl_hdr, r->ctrl_len, nullptr, 0,
                              &r->nm);
        default: return status::intern;
    }
}
}  // namespace

status defer(request* r, deferred_op op) noexcept {
    r->deferred_op = op;
    r->flags |= rf_queued;
    if (is_recv_op(op)) {
        g_deferred_recv.push_back(r);
        ++g_dev.deferred_recvs;
    } else {
        g_deferred_send.push_back(r);
        ++g_dev.deferred_sends;
    }
    return status::ok;
}

namespace {
int drain(util::ilist<request, &request::qlink>& q, uint32_t& count) noexcept {
    int n = 0;
    while (request* r = q.front()) {
        const status s = reissue(r);
        if (s == status::again) break;  // still no resources: keep order, retry later
        q.remove(r);
        --count;
        r->flags &= static_cast<uint16_t>(~rf_queued);
        ++n;
        if (s == status::in_progress) continue;  // the transport calls back
        if (r->deferred_op == dop_am_data || r->deferred_op == dop_native_tdata) {
            rndv_chunk_done(r, s);  // window bookkeeping, may issue more chunks
        } else if (r->deferred_op == dop_native_tchunk) {
            native_tchunk_done(r, s, 0);  // the same for a chunk receive (here it failed)
        } else {
            if (s != status::ok) request_fail(r, s);
            request_complete(r);
        }
    }
    return n;
}
}  // namespace

int deferred_progress() noexcept {
    // Not nested (a pool's garbage collection may poll from inside a
    // re-issue): the operation at the front would be issued twice.
    static bool draining = false;
    if (draining) return 0;
    draining = true;
    const int n = drain(g_deferred_send, g_dev.deferred_sends) + drain(g_deferred_recv, g_dev.deferred_recvs);
    draining = false;
    return n;
}

status send_ctrl(int peer, uint8_t handler, const void* hdr, std::size_t hlen) noexcept {
    if (hlen > sizeof(request::ctrl_hdr)) return status::invalid;
    if (deferred_sends_empty()) {
        const status s = am_send_to(peer, handler, hdr, hlen, nullptr, 0, nullptr);
        if (s != status::again) return s == status::in_progress ? status::ok : s;
    }
    request* r = request_alloc(req_kind::internal, 1);
    if (!r) return status::no_mem;
    r->flags |= rf_released;
    r->peer = peer;
    r->ctrl_handler = handler;
    r->ctrl_len = static_cast<uint8_t>(hlen);
    std::memcpy(r->ctrl_hdr, hdr, hlen);
    return defer(r, dop_am_ctrl);
}

}  // namespace ch4lite::dev
