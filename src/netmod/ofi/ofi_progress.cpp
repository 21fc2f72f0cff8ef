// SPDX-License-Identifier: MIT
// Completion handling: tagged sends/receives, synchronous-send acks, active
// messages arriving in multi-receive buffers, probes and cancels.
#include <cstdint>
#include <cstring>
#include <new>

#include "netmod/ofi/ofi_lib.hpp"
#include "netmod/ofi/ofi_netmod.hpp"
#include "util/log.hpp"

namespace ch4lite::nm::ofi {

namespace {
using state = netmod::request_state;

state* as_state(void* ctx) { return static_cast<state*>(static_cast<op_ctx*>(ctx)); }

// The sync ack travels as a netmod-internal AM: {wire header, cookie}.
struct sync_ack_msg {
    am_wire w;
    uint32_t cookie;
};
}  // namespace

void netmod::on_completion(const fi_cq_tagged_entry& e) {
    auto* oc = static_cast<op_ctx*>(e.op_context);
    switch (oc->kind) {
        case op_kind::tsend:
        case op_kind::am_send:
        case op_kind::rma:
            dev::nm_send_done(as_state(oc), status::ok);
            return;
        case op_kind::tsend_sync: {
            state* st = as_state(oc);
            if (--st->pending == 0) dev::nm_send_done(st, status::ok);
            return;
        }
        case op_kind::trecv: {
            if ((e.tag & tagbits::sync) && (e.flags & FI_REMOTE_CQ_DATA))
                send_sync_ack(static_cast<int>(e.data >> 32), static_cast<uint32_t>(e.data));
            state* st = as_state(oc);
            st->cancel = 0;
            recv_info info{tagbits::rank_of(e.tag), tagbits::tag_of(e.tag), e.len, false};
            if (e.tag & tagbits::rts) {
                info.rts = true;
                info.data = e.data;
            }
            if (e.len > st->limit && st->limit != no_limit) {
                // padded receive: the message overran the user's part
                info.truncated = true;
                dev::nm_recv_done(st, info, status::truncated);
                return;
            }
            dev::nm_recv_done(st, info, status::ok);
            return;
        }
        case op_kind::am_buffer:
            on_am_buffer(e);
            return;
        case op_kind::probe: {
            auto* p = static_cast<probe_ctx*>(oc);
            p->info = recv_info{tagbits::rank_of(e.tag), tagbits::tag_of(e.tag), e.len, false};
            if (e.tag & tagbits::rts) {
                p->info.rts = true;
                p->info.data = e.data;
            }
            p->state = 1;
            return;
        }
    }
}

void netmod::on_am_buffer(const fi_cq_tagged_entry& e) {
    if ((e.flags & FI_RECV) && e.len >= sizeof(am_wire)) {
        const auto* p = static_cast<const std::byte*>(e.buf);
        am_wire w;
        std::memcpy(&w, p, sizeof w);
        if (w.handler == internal_sync_ack) {
            sync_ack_msg m;
            if (e.len >= sizeof m) {
                std::memcpy(&m, p, sizeof m);
                if (m.cookie < sync_table_.size() && sync_table_[m.cookie]) {
                    state* st = sync_table_[m.cookie];
                    sync_table_[m.cookie] = nullptr;
                    sync_free_.push_back(m.cookie);
                    if (--st->pending == 0) dev::nm_send_done(st, status::ok);
                }
            }
        } else if (sizeof w + w.hlen <= e.len) {
            dev::am_dispatch(w.src, w.handler, p + sizeof w, w.hlen, p + sizeof w + w.hlen,
                             e.len - sizeof w - w.hlen);
        } else {
            util::warn("ofi: dropping a malformed %zu-byte active message", e.len);
        }
    }
    if (!multi_recv_ || (e.flags & FI_MULTI_RECV)) {  // the buffer is used up: give it back
        auto* b = static_cast<am_buffer*>(static_cast<op_ctx*>(e.op_context));
        const std::size_t i = static_cast<std::size_t>(b - am_bufs_.data());
        if (post_am_buffer(i) != status::ok) util::fatal("ofi: cannot repost an AM buffer");
    }
}

int netmod::on_cq_error(ssize_t rc) {
    if (rc != -FI_EAVAIL) util::fatal("ofi: fi_cq_read failed: %s", lib::strerror(static_cast<int>(-rc)));
    fi_cq_err_entry err{};
    if (fi_cq_readerr(cq_, &err, 0) != 1) return 0;
    auto* oc = static_cast<op_ctx*>(err.op_context);
    switch (oc->kind) {
        case op_kind::trecv: {
            state* st = as_state(oc);
            if (err.err == FI_ECANCELED) {
                st->cancel = 2;  // cancel_recv() reports it; no upcall
                return 1;
            }
            // tcp/rxm say FI_ETRUNC; the 1.17 shm provider says FI_EMSGSIZE.
            if (err.err == FI_ETRUNC || err.err == FI_EMSGSIZE || err.err == FI_ETOOSMALL) {
                if ((err.tag & tagbits::sync) && (err.flags & FI_REMOTE_CQ_DATA))
                    send_sync_ack(static_cast<int>(err.data >> 32), static_cast<uint32_t>(err.data));
                // Some providers (rxm 1.17) report len = olen = 0: all we know
                // is that the message was longer than the buffer.
                const std::size_t total = err.len + err.olen;
                const recv_info info{tagbits::rank_of(err.tag), tagbits::tag_of(err.tag),
                                     total > err.len ? total : SIZE_MAX, true};
                dev::nm_recv_done(st, info, status::truncated);
                return 1;
            }
            const recv_info info{tagbits::rank_of(err.tag), tagbits::tag_of(err.tag), err.len, false};
            dev::nm_recv_done(st, info, status::io);
            return 1;
        }
        case op_kind::probe: {
            auto* p = static_cast<probe_ctx*>(oc);
            p->state = 2;  // FI_ENOMSG: nothing matches
            return 1;
        }
        case op_kind::tsend:
        case op_kind::am_send:
        case op_kind::tsend_sync:
            util::warn("ofi: send failed: %s", lib::strerror(err.err));
            dev::nm_send_done(as_state(oc), status::io);
            return 1;
        case op_kind::rma:
            util::warn("ofi: put/get failed: %s", lib::strerror(err.err));
            dev::nm_send_done(as_state(oc), status::io);
            return 1;
        case op_kind::am_buffer:
            util::fatal("ofi: active-message buffer failed: %s", lib::strerror(err.err));
    }
    return 1;
}

status netmod::isend_sync(int peer, uint64_t tag, const void* buf, std::size_t n, state* st) {
    uint32_t cookie;
    if (!sync_free_.empty()) {
        cookie = sync_free_.back();
        sync_free_.pop_back();
    } else {
        cookie = static_cast<uint32_t>(sync_table_.size());
        try {
            // sync_free_ never holds more cookies than the table has: with
            // room for all of them, returning a cookie never allocates.
            sync_free_.reserve(sync_table_.size() + 1);
            sync_table_.push_back(nullptr);
        } catch (const std::bad_alloc&) {
            return status::no_mem;
        }
    }
    st->kind = op_kind::tsend_sync;
    st->pending = 2;  // local completion + the receiver's ack
    st->cookie = cookie;
    const uint64_t data = (static_cast<uint64_t>(static_cast<uint32_t>(rank_)) << 32) | cookie;
    const ssize_t rc = fi_tsenddata(ep_, buf, n, nullptr, data, static_cast<fi_addr_t>(peer),
                                    tag | tagbits::sync, &st->ctx);
    if (rc != 0) {
        sync_free_.push_back(cookie);
        return map(rc, status::in_progress);
    }
    sync_table_[cookie] = st;
    return status::in_progress;
}

void netmod::send_sync_ack(int peer, uint32_t cookie) {
    const sync_ack_msg m{{internal_sync_ack, 0, 0, rank_}, cookie};
    ssize_t rc;
    // An ack is tiny and must not be lost: drive the CQ until it goes out.
    while ((rc = fi_inject(ep_, &m, sizeof m, static_cast<fi_addr_t>(peer))) == -FI_EAGAIN)
        (void)fi_cq_read(cq_, nullptr, 0);
    if (rc != 0) util::warn("ofi: cannot acknowledge a synchronous send: %s", lib::strerror(static_cast<int>(-rc)));
}

bool netmod::iprobe(int peer, match m, recv_info& info) {
    (void)peer;
    uint64_t ignore = tagbits::sync | tagbits::rts;
    if (m.rank == any) ignore |= tagbits::rank_mask;
    if (m.tag == any) ignore |= tagbits::tag_mask;
    const uint64_t tag =
        tagbits::make(m.context, m.rank == any ? 0 : m.rank, m.tag == any ? 0 : m.tag);
    fi_msg_tagged msg{};
    msg.addr = FI_ADDR_UNSPEC;
    msg.tag = tag;
    msg.ignore = ignore;
    msg.context = &probe_.ctx;
    probe_.state = 0;
    ssize_t rc;
    while ((rc = fi_trecvmsg(ep_, &msg, FI_PEEK | FI_COMPLETION)) == -FI_EAGAIN) progress();
    if (rc != 0) return false;
    while (probe_.state == 0) progress();
    if (probe_.state != 1) return false;
    info = probe_.info;
    return true;
}

bool netmod::cancel_recv(state* st) {
    if (st->kind != op_kind::trecv) return false;
    st->cancel = 1;
    if (fi_cancel(&ep_->fid, &st->ctx) != 0) return false;
    // The receive ends either cancelled (FI_ECANCELED) or matched meanwhile
    // (normal completion, which resets `cancel` and upcalls as usual).
    while (st->cancel == 1) progress();
    return st->cancel == 2;
}

}  // namespace ch4lite::nm::ofi
