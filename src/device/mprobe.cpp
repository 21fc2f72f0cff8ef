// SPDX-License-Identifier: MIT
// Matched probe (device/mprobe.hpp).
#include "device/mprobe.hpp"

#include <algorithm>

#include "device/am_p2p.hpp"
#include "device/comm.hpp"
#include "device/device.hpp"
#include "device/match_queue.hpp"
#include "device/p2p.hpp"
#include "device/progress.hpp"
#include "device/typed.hpp"

namespace ch4lite::dev {

namespace {

// Native path: peek, then claim the message peeked with a receive of
// exactly its source and tag.
bool native_improbe(comm& c, int rank, int tag, message& out, status& err) noexcept {
    if constexpr (native_tagged) {
        // A receive still waiting in the deferred queue was posted before
        // this probe in MPI order: it may be the one to match. Let it go
        // out first.
        if (!deferred_recvs_empty()) {
            progress();
            return false;
        }
        const uint32_t ctx = c.ctx_p2p();
        nm::recv_info info{};
        const int peer = rank == MPI_ANY_SOURCE ? nm::any : c.lpid(rank);
        if (!nm::opt::iprobe(g_dev.nm, peer, nm::match{ctx, rank < 0 ? nm::any : rank, tag < 0 ? nm::any : tag},
                             info))
            return false;
        request* r = request_alloc(req_kind::internal, 1);
        if (!r) {
            err = status::no_mem;
            return false;
        }
        const std::size_t n = info.rts ? 0 : info.bytes;
        r->flags |= rf_claim;
        r->c = &c;
        r->context = ctx;
        r->match_rank = info.rank;
        r->match_tag = info.tag;
        r->peer = c.lpid(info.rank);
        r->stage = nullptr;
        if (n > 0 && !stage_alloc(r, n)) {
            request_free_now(r);
            err = status::no_mem;
            return false;
        }
        r->buf = r->stage;
        r->capacity = n;
        r->nm = {};
        const status s = nm::opt::irecv(g_dev.nm, r->peer, nm::match{ctx, info.rank, info.tag}, r->buf, n, &r->nm);
        if (s == status::again) {
            (void)defer(r, dop_native_irecv);  // first in the queue: nothing overtakes it
        } else if (s != status::in_progress) {
            stage_free(r);
            request_free_now(r);
            err = s;
            return false;
        }
        out.c = &c;
        out.src_rank = info.rank;
        out.tag = info.tag;
        out.bytes = info.rts ? static_cast<std::size_t>(rts_size(info.data)) : info.bytes;
        out.um = nullptr;
        out.claim = r;
        return true;
    }
    (void)c, (void)rank, (void)tag, (void)out, (void)err;
    return false;
}

// The claimed message goes to receive u; the claim is freed.
void claim_finish(request* claim, request* u) noexcept {
    if (claim->result != status::ok) {
        request_fail(u, claim->result);
        u->src_rank = claim->src_rank;
        u->tag = claim->tag;
        request_complete(u);
    } else if (claim->flags & rf_rndv) {  // a large message's announcement
        native_on_rts(u, claim->src_rank, claim->tag, static_cast<uint64_t>(claim->offset));
    } else {
        const std::size_t n = accept_match(u, claim->src_rank, claim->tag, claim->bytes);
        deliver_bytes(u, 0, claim->stage, n);
        request_complete(u);
    }
    stage_free(claim);
    request_free_now(claim);
}

}  // namespace

bool improbe(comm& c, int rank, int tag, message& out, status& err) noexcept {
    err = status::ok;
    if constexpr (native_tagged) {
        if (!g_dev.device_matching) return native_improbe(c, rank, tag, out, err);
    }
    lazy_flush(c.ctx_p2p());  // an armed receive may be the one to match (lazy_recv.hpp)
    progress();
    unexpected_msg* m = queues().take_unexpected(c.ctx_p2p(), rank, tag);
    if (!m) return false;
    out.c = &c;
    out.src_rank = m->src_rank;
    out.tag = m->tag;
    out.bytes = m->size;
    out.um = m;
    out.claim = nullptr;
    return true;
}

void mrecv_start(message& m, request* r) noexcept {
    r->c = m.c;
    r->context = m.c->ctx_p2p();
    r->match_rank = m.src_rank;
    r->match_tag = m.tag;
    r->peer = m.c->lpid(m.src_rank);
    if (m.um) {
        am_recv_matched(r, m.um);
        m.um = nullptr;
        return;
    }
    request* claim = m.claim;
    m.claim = nullptr;
    r->nm = {};
    if (claim->cc == 0)
        claim_finish(claim, r);
    else
        claim->parent = r;  // claim_done finishes it
}

void claim_done(request* claim, const nm::recv_info& info, status result) noexcept {
    claim->src_rank = info.rank;
    claim->tag = info.tag;
    if (info.rts && result == status::ok) {
        claim->flags |= rf_rndv;
        claim->offset = static_cast<std::size_t>(info.data);
    } else {
        claim->bytes = std::min(info.bytes, claim->capacity);
        if (info.truncated)
            request_fail(claim, status::truncated);  // the probe reported fewer bytes than came
        else if (result != status::ok)
            request_fail(claim, result);
    }
    if (request* u = claim->parent) {  // MPI_Imrecv / MPI_Mrecv already waits for it
        claim->parent = nullptr;
        claim_finish(claim, u);
        return;
    }
    claim->cc = 0;  // the message object owns it until the receive
}

}  // namespace ch4lite::dev
