// SPDX-License-Identifier: MIT
// Stage B: opening the full netmod, native tagged completions, probes with
// RTS values, cancel, and the netmod's own messages.
// (Not compiled into the active-message-only build: ucx_netmod.hpp.)
#include "netmod/ucx/ucx_full.hpp"

#if !CH4LITE_FORCE_AM

#include <algorithm>
#include <cstdlib>
#include <new>

#include "device/bootstrap.hpp"
#include "netmod/ucx/ucx_internal.hpp"
#include "util/env.hpp"
#include "util/log.hpp"

namespace ch4lite::nm::ucx {

full_netmod* full_netmod::instance_ = nullptr;

full_netmod::full_netmod() = default;
full_netmod::~full_netmod() = default;

status full_netmod::init(dev::bootstrap& bs) {
    if (bs.size() - 1 > tagbits::max_rank) {
        util::warn("ucx: %d ranks exceed the %d the match bits can name", bs.size(),
                   tagbits::max_rank + 1);
        return status::unsupported;
    }
    tagged_ok_ = util::env_bool("CH4LITE_UCX_TAGGED", true);
    rma_ok_ = util::env_bool("CH4LITE_UCX_RMA", true);
    const status s = open(bs, UCP_FEATURE_AM | UCP_FEATURE_TAG | UCP_FEATURE_RMA, "ucx");
    if (s != status::ok) return s;
    instance_ = this;
    ucp_am_handler_param_t hp{};
    hp.field_mask = UCP_AM_HANDLER_PARAM_FIELD_ID | UCP_AM_HANDLER_PARAM_FIELD_CB |
                    UCP_AM_HANDLER_PARAM_FIELD_ARG | UCP_AM_HANDLER_PARAM_FIELD_FLAGS;
    hp.id = am_id_internal;
    hp.flags = UCP_AM_FLAG_WHOLE_MSG;
    hp.cb = on_internal;
    hp.arg = this;
    if (const ucs_status_t u = ucp_worker_set_am_recv_handler(worker_, &hp); u != UCS_OK) {
        util::warn("ucx: cannot set the netmod's active-message handler: %s",
                   ucs_status_string(u));
        return status::io;
    }
    return status::ok;
}

status full_netmod::finalize() {
    if (!worker_) return status::ok;
    for (auto& [k, rk] : rkeys_)
        if (rk.rkey) ucp_rkey_destroy(rk.rkey);
    rkeys_.clear();
    for (auto& [k, r] : regions_) {
        ucp_rkey_buffer_release(r.packed);
        ucp_mem_unmap(context_, r.memh);
    }
    regions_.clear();
    return am_netmod::finalize();
}

// ---- tagged completions ------------------------------------------------------

void full_netmod::on_recv(void* req, ucs_status_t s, const ucp_tag_recv_info_t* info,
                          void* user) {
    auto* st = static_cast<request_state*>(user);
    // info lives in the request: read it before freeing the request.
    const uint64_t tag = info->sender_tag;
    const std::size_t length = info->length;
    st->req = nullptr;
    ucp_request_free(req);
    if (s == UCS_ERR_CANCELED) {  // cancel_recv said so; no completion
        st->cancel = 2;
        return;
    }
    if (instance_->in_post_) {  // completed inside irecv: report from progress
        st->cancel = 3;
        st->imm_status = static_cast<uint16_t>(-s);
        st->u.rx.tag = tag;
        st->u.rx.len = length;
        st->u.rx.next = nullptr;
        if (instance_->done_tail_)
            instance_->done_tail_->u.rx.next = st;
        else
            instance_->done_head_ = st;
        instance_->done_tail_ = st;
        return;
    }
    callback_scope cs(*instance_);
    instance_->recv_done(st, s, tag, length);
}

int full_netmod::report_done_now() {
    // Receives the device posts from these upcalls may complete at once
    // too: they go to a new list, reported next time.
    request_state* st = done_head_;
    done_head_ = done_tail_ = nullptr;
    int n = 0;
    while (st) {
        request_state* const next = st->u.rx.next;  // st may be reused below
        const auto s = static_cast<ucs_status_t>(-static_cast<int>(st->imm_status));
        st->cancel = 0;
        recv_done(st, s, st->u.rx.tag, static_cast<std::size_t>(st->u.rx.len));
        st = next;
        ++n;
    }
    return n;
}

void full_netmod::recv_done(request_state* st, ucs_status_t s, uint64_t tag, std::size_t length) {
    recv_info ri{tagbits::rank_of(tag), tagbits::tag_of(tag), length, false};
    status result = status::ok;
    if (s == UCS_ERR_MESSAGE_TRUNCATED) {
        ri.truncated = true;
        result = status::truncated;
    } else if (s != UCS_OK) {
        result = map(s);
    }
    const bool bounced = st->limit != no_limit;
    if (tag & tagbits::rts) {
        // An RTS: 8 bytes of value (in the bounce, or the buffer's head).
        ri.rts = true;
        if (result == status::ok) {
            std::memcpy(&ri.data, bounced ? &st->u.rx.bounce : st->u.rx.ubuf, sizeof ri.data);
            rts_received(tag);
        }
    } else if (bounced && result == status::ok) {
        const std::size_t n = std::min<std::size_t>(length, st->limit);
        if (n) std::memcpy(st->u.rx.ubuf, &st->u.rx.bounce, n);
        if (length > st->limit) {
            ri.truncated = true;
            result = status::truncated;
        }
    }
    dev::nm_recv_done(st, ri, result);
}

status full_netmod::isend_rts(int peer, match m, uint64_t data, request_state* st) {
    const uint64_t tag = tagbits::make(m.context, m.rank, m.tag) | tagbits::rts;
    // The note first (probes read the value from it), then the message.
    if (gate_[static_cast<std::size_t>(peer)] != 0) return status::again;
    const internal_msg note{internal_msg::rts_note, 1, 0, rank_, tag, data};
    status s = send_internal(peer, &note, sizeof note, nullptr, 0);
    if (s != status::ok) return s;
    std::memcpy(st->u.hdr, &data, sizeof data);  // alive until UCX sent it
    ucp_request_param_t p;
    p.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA;
    p.cb.send = on_sent;
    p.user_data = st;
    st->kind = op_kind::tsend;
    return started(ucp_tag_send_nbx(eps_[peer], st->u.hdr, sizeof data, tag, &p), st, peer);
}

bool full_netmod::rts_value(uint64_t tag, uint64_t& data) const {
    for (const rts_note& n : notes_)
        if (n.tag == tag) {
            data = n.data;
            return true;
        }
    return false;
}

void full_netmod::rts_received(uint64_t tag) {
    tag &= ~tagbits::sync;
    for (auto it = notes_.begin(); it != notes_.end(); ++it)
        if (it->tag == tag) {
            notes_.erase(it);
            return;
        }
    ++note_drops_[tag];  // its note is still on the way
}

bool full_netmod::iprobe(int peer, match m, recv_info& info) {
    (void)peer;
    ucp_tag_recv_info_t ti;
    ucp_tag_message_h h = ucp_tag_probe_nb(worker_, recv_tag(m), recv_mask(m), 0, &ti);
    if (!h) {
        (void)progress();
        h = ucp_tag_probe_nb(worker_, recv_tag(m), recv_mask(m), 0, &ti);
        if (!h) return false;
    }
    info = recv_info{tagbits::rank_of(ti.sender_tag), tagbits::tag_of(ti.sender_tag), ti.length,
                     false};
    if (ti.sender_tag & tagbits::rts) {
        // Its value is in its note; not here yet: report it next time.
        if (!rts_value(ti.sender_tag & ~tagbits::sync, info.data)) {
            (void)progress();
            return false;
        }
        info.rts = true;
    }
    return true;
}

bool full_netmod::cancel_recv(request_state* st) {
    if (st->kind != op_kind::trecv || st->req == nullptr) return false;  // completed
    st->cancel = 1;
    // A receive UCX has not matched completes right here, with
    // UCS_ERR_CANCELED (on_recv); a matched one goes on.
    ucp_request_cancel(worker_, st->req);
    if (st->cancel == 2) return true;
    st->cancel = 0;
    return false;
}

// ---- the netmod's own messages ------------------------------------------------

namespace {
void on_internal_sent(void* req, ucs_status_t, void* user) {
    ucp_request_free(req);
    std::free(user);
}
}  // namespace

status full_netmod::send_internal(int peer, const void* msg, std::size_t len, const void* payload,
                                  std::size_t plen) {
    ucp_request_param_t p;
    p.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS | UCP_OP_ATTR_FLAG_FORCE_IMM_CMPL;
    p.flags = UCP_AM_SEND_FLAG_EAGER;
    ucs_status_ptr_t r = ucp_am_send_nbx(eps_[peer], am_id_internal, msg, len, payload, plen, &p);
    if (r == nullptr) return status::ok;
    if (UCS_PTR_IS_PTR(r)) {  // not with FORCE_IMM_CMPL; never leak it
        ucp_request_free(r);
        return status::ok;
    }
    if (UCS_PTR_STATUS(r) != UCS_ERR_NO_RESOURCE) return map(UCS_PTR_STATUS(r));
    // Not now: send copies, freed when UCX is done with them.
    auto* copy = static_cast<std::byte*>(std::malloc(len + plen + 1));
    if (!copy) return status::no_mem;
    std::memcpy(copy, msg, len);
    if (plen) std::memcpy(copy + len, payload, plen);
    p.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS | UCP_OP_ATTR_FIELD_CALLBACK |
                     UCP_OP_ATTR_FIELD_USER_DATA;
    p.cb.send = on_internal_sent;
    p.user_data = copy;
    r = ucp_am_send_nbx(eps_[peer], am_id_internal, copy, len, plen ? copy + len : nullptr, plen,
                        &p);
    if (UCS_PTR_IS_PTR(r)) return status::ok;
    std::free(copy);
    return r == nullptr ? status::ok : map(UCS_PTR_STATUS(r));
}

ucs_status_t full_netmod::on_internal(void* arg, const void* header, std::size_t header_length,
                                      void* data, std::size_t length,
                                      const ucp_am_recv_param_t* param) {
    auto* nm = static_cast<full_netmod*>(arg);
    internal_msg m;
    if (header_length != sizeof m || (param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV)) {
        util::warn("ucx: dropping a malformed netmod message (%zu-byte header)", header_length);
        return UCS_OK;
    }
    std::memcpy(&m, header, sizeof m);
    if (m.src < 0 || m.src >= nm->size_) return UCS_OK;
    callback_scope cs(*nm);
    switch (m.kind) {
        case internal_msg::rts_note:
            if (auto it = nm->note_drops_.find(m.a); it != nm->note_drops_.end()) {
                if (--it->second == 0) nm->note_drops_.erase(it);
            } else {
                nm->notes_.push_back({m.a, m.b});
            }
            break;
        case internal_msg::rkey_request: nm->on_rkey_request(m.src, m.a); break;
        case internal_msg::rkey_reply:
            nm->on_rkey_reply(m.src, m.a, m.ok ? data : nullptr, m.ok ? length : 0);
            break;
        default: util::warn("ucx: dropping a netmod message of unknown kind %u", m.kind);
    }
    return UCS_OK;
}

}  // namespace ch4lite::nm::ucx

#endif  // !CH4LITE_FORCE_AM
