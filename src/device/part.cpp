// SPDX-License-Identifier: MIT
// Partitioned point-to-point over active messages (device/part.hpp).
#include "device/part.hpp"

#include <algorithm>
#include <cstring>
#include <deque>
#include <new>
#include <vector>

#include "dame/type.hpp"
#include "device/am.hpp"
#include "device/am_p2p.hpp"
#include "device/comm.hpp"
#include "device/deferred.hpp"
#include "device/device.hpp"
#include "util/log.hpp"

namespace ch4lite::dev {

namespace {

enum : uint8_t {
    am_part_init = am_part_first,  // receiver -> sender: match me
    am_part_ack,                   // sender -> receiver: matched
    am_part_cts,                   // receiver -> sender: round started, write here
};

struct init_hdr {
    uint32_t context;
    int32_t rank;   // the receiver's rank in the communicator
    int32_t tag;
    uint32_t token; // the receiver's endpoint
    uint64_t total;
};
struct ack_hdr {
    uint32_t rtoken;
    uint32_t stoken;
    uint64_t total;  // the sender's
};
struct cts_msg {
    uint32_t stoken;
    uint32_t rreq_id;
};

}  // namespace

struct part_ep {
    bool send = true;
    uint32_t token = 0;
    uint32_t context = 0;
    int peer = 0;          // world rank of the other end
    int peer_rank = 0;     // its rank in the communicator
    int my_rank = 0;
    int tag = 0;
    void* buf = nullptr;
    const dame::type* dt = nullptr;
    int64_t count = 0;
    std::size_t total = 0;
    int parts = 0;
    std::size_t part_bytes = 0;
    bool matched = false;
    bool bad = false;           // the other end's total differs
    uint32_t peer_token = 0;
    // sender round
    request* act = nullptr;     // while the round still has partitions to hand off
    std::vector<uint8_t> ready;
    int issued = 0;             // partitions handed to the transport this round
    bool granted = false;       // this round's CTS consumed
    uint32_t rreq_id = 0;
    std::deque<uint32_t> early_cts;
    // receiver round
    bool cts_owed = false;      // started before the ACK: CTS goes out with it
    uint32_t act_id = 0;
    std::vector<std::size_t> arrived;  // bytes per partition this round
};

namespace {

// Endpoints by token (index | generation << 20), checked on every message:
// a message for an endpoint freed meanwhile is dropped.
struct slot {
    part_ep* ep = nullptr;
    uint32_t gen = 1;
};
std::vector<slot> g_slots;
std::vector<uint32_t> g_free;
std::vector<part_ep*> g_unmatched_sends;  // in initialization order
struct early_init {
    int src;
    init_hdr h;
};
std::deque<early_init> g_early_inits;      // PART_INITs no send matched yet, in arrival order

constexpr uint32_t index_bits = 20;

bool register_ep(part_ep* ep) noexcept {
    try {
        uint32_t i;
        if (!g_free.empty()) {
            i = g_free.back();
            g_free.pop_back();
        } else {
            if (g_slots.size() >= (1u << index_bits)) return false;
            i = static_cast<uint32_t>(g_slots.size());
            g_slots.push_back({});
            g_free.reserve(g_slots.size());
        }
        g_slots[i].ep = ep;
        ep->token = i | (g_slots[i].gen << index_bits);
        return true;
    } catch (const std::bad_alloc&) {
        return false;
    }
}

part_ep* lookup(uint32_t token) noexcept {
    const uint32_t i = token & ((1u << index_bits) - 1);
    if (i >= g_slots.size() || g_slots[i].gen != token >> index_bits) return nullptr;
    return g_slots[i].ep;
}

void fail_now(request* act, status s) noexcept {
    request_fail(act, s);
    act->cc = 0;
}

// Hands partition k of the sender's round to the transport: the bytes
// [k * part_bytes, +part_bytes) of the packed stream as rendezvous chunks
// (rndv_pump) to the round's receive request.
void send_part(part_ep* ep, int k) noexcept {
    request* act = ep->act;
    if (++ep->issued == ep->parts) ep->act = nullptr;  // nothing more to hand off
    const std::size_t lo = static_cast<std::size_t>(k) * ep->part_bytes;
    if (ep->part_bytes == 0) {
        request_complete(act);
        return;
    }
    request* p = request_alloc(req_kind::internal, 1);
    if (!p) {  // the receiver never sees this partition: the sender at least fails
        request_fail(act, status::no_mem);
        request_complete(act);
        return;
    }
    p->parent = act;
    p->peer = ep->peer;
    p->buf = ep->buf;
    p->stage = nullptr;
    if (ep->dt) {
        ep->dt->retain();
        p->dt = ep->dt;
        p->count = ep->count;
    }
    p->offset = lo;
    p->bytes = lo + ep->part_bytes;
    p->remote_id = ep->rreq_id;
    p->rndv_chunk = 0;
    p->flags |= rf_rndv;
    rndv_pump(p);  // p's token: completed when its last chunk is issued
}

// The round's CTS: send what is ready, and the grant's own completion.
void grant(part_ep* ep, uint32_t rreq_id) noexcept {
    request* act = ep->act;
    ep->granted = true;
    ep->rreq_id = rreq_id;
    for (int k = 0; k < ep->parts && ep->act; ++k)
        if (ep->ready[static_cast<std::size_t>(k)]) send_part(ep, k);
    if (ep->issued == ep->parts) ep->act = nullptr;  // (no partitions at all)
    request_complete(act);
}

void send_cts(part_ep* ep) noexcept {
    const cts_msg m{ep->peer_token, ep->act_id};
    if (failed(send_ctrl(ep->peer, am_part_cts, &m, sizeof m))) {
        if (request* act = request_from_id(ep->act_id)) {
            request_fail(act, status::io);
            request_complete(act);
        }
    }
}

// Sender side of a match: remember the receiver, answer with our token.
void match_send(part_ep* ep, const init_hdr& h) noexcept {
    ep->matched = true;
    ep->peer_token = h.token;
    ep->bad = h.total != ep->total;
    const ack_hdr a{h.token, ep->token, ep->total};
    (void)send_ctrl(ep->peer, am_part_ack, &a, sizeof a);
    if (ep->bad && ep->act && !ep->granted) {  // a round already started: no CTS will come
        request* act = ep->act;
        ep->act = nullptr;
        fail_now(act, status::truncated);
    }
}

void on_init(int src, const init_hdr& h) noexcept {
    for (auto it = g_unmatched_sends.begin(); it != g_unmatched_sends.end(); ++it) {
        part_ep* ep = *it;
        if (ep->context == h.context && ep->peer_rank == h.rank && ep->tag == h.tag && ep->peer == src) {
            g_unmatched_sends.erase(it);
            match_send(ep, h);
            return;
        }
    }
    try {
        g_early_inits.push_back({src, h});
    } catch (const std::bad_alloc&) {
        util::fatal("out of memory queueing a partitioned receive's announcement");
    }
}

void on_ack(const ack_hdr& a) noexcept {
    part_ep* ep = lookup(a.rtoken);
    if (!ep || ep->send) return;
    ep->matched = true;
    ep->peer_token = a.stoken;
    ep->bad = a.total != ep->total;
    if (ep->cts_owed) {
        ep->cts_owed = false;
        request* act = request_from_id(ep->act_id);
        if (ep->bad) {
            if (act) {
                request_fail(act, status::truncated);
                request_complete(act);
            }
        } else {
            send_cts(ep);
            if (ep->total == 0 && act && act->cc != 0) request_complete(act);
        }
    }
}

void on_cts(const cts_msg& m) noexcept {
    part_ep* ep = lookup(m.stoken);
    if (!ep || !ep->send) return;
    if (ep->act && !ep->granted) {
        grant(ep, m.rreq_id);
        return;
    }
    try {
        ep->early_cts.push_back(m.rreq_id);
    } catch (const std::bad_alloc&) {
    }
}

}  // namespace

status part_create(const part_args& a, part_ep*& out) noexcept {
    auto* ep = new (std::nothrow) part_ep;
    if (!ep) return status::no_mem;
    ep->send = a.send;
    ep->context = a.c->ctx_p2p();
    ep->peer = a.c->lpid(a.peer_rank);
    ep->peer_rank = a.peer_rank;
    ep->my_rank = a.c->rank;
    ep->tag = a.tag;
    ep->buf = a.buf;
    ep->dt = a.dt;
    ep->count = a.count;
    ep->total = a.total;
    ep->parts = a.parts;
    ep->part_bytes = a.parts > 0 ? a.total / static_cast<std::size_t>(a.parts) : 0;
    try {
        (a.send ? ep->ready.resize(static_cast<std::size_t>(a.parts))
                : ep->arrived.resize(static_cast<std::size_t>(a.parts)));
    } catch (const std::bad_alloc&) {
        delete ep;
        return status::no_mem;
    }
    if (!register_ep(ep)) {
        delete ep;
        return status::no_mem;
    }
    if (ep->dt) ep->dt->retain();
    if (a.send) {
        // A receiver that announced itself already? The first in arrival order.
        for (auto it = g_early_inits.begin(); it != g_early_inits.end(); ++it) {
            if (it->h.context == ep->context && it->h.rank == ep->peer_rank &&
                it->h.tag == ep->tag && it->src == ep->peer) {
                const init_hdr h = it->h;
                g_early_inits.erase(it);
                match_send(ep, h);
                out = ep;
                return status::ok;
            }
        }
        try {
            g_unmatched_sends.push_back(ep);
        } catch (const std::bad_alloc&) {
            part_destroy(ep);
            return status::no_mem;
        }
    } else {
        const init_hdr h{ep->context, ep->my_rank, ep->tag, ep->token, ep->total};
        if (const status s = send_ctrl(ep->peer, am_part_init, &h, sizeof h); failed(s)) {
            part_destroy(ep);
            return s;
        }
    }
    out = ep;
    return status::ok;
}

void part_destroy(part_ep* ep) noexcept {
    const uint32_t i = ep->token & ((1u << index_bits) - 1);
    if (i < g_slots.size() && g_slots[i].ep == ep) {
        g_slots[i].ep = nullptr;
        g_slots[i].gen = (g_slots[i].gen + 1) & 0xfff;
        if (g_slots[i].gen == 0) g_slots[i].gen = 1;
        g_free.push_back(i);  // reserved: never allocates
    }
    g_unmatched_sends.erase(std::remove(g_unmatched_sends.begin(), g_unmatched_sends.end(), ep),
                            g_unmatched_sends.end());
    if (ep->dt) ep->dt->release();
    delete ep;
}

status part_start(part_ep* ep, request*& act) noexcept {
    if (ep->send) {
        // One completion per partition, one for the round's CTS.
        request* r = request_alloc(req_kind::send, ep->parts + 1);
        if (!r) return status::no_mem;
        r->src_rank = ep->my_rank;
        r->tag = ep->tag;
        r->bytes = ep->total;
        act = r;
        std::fill(ep->ready.begin(), ep->ready.end(), uint8_t{0});
        ep->issued = 0;
        ep->granted = false;
        if (ep->matched && ep->bad) {
            fail_now(r, status::truncated);
            return status::ok;
        }
        ep->act = r;
        if (!ep->early_cts.empty()) {
            const uint32_t id = ep->early_cts.front();
            ep->early_cts.pop_front();
            grant(ep, id);
        }
        return status::ok;
    }
    request* r = request_alloc(req_kind::recv, 1);
    if (!r) return status::no_mem;
    r->buf = ep->buf;
    r->stage = nullptr;
    if (ep->dt) {
        ep->dt->retain();
        r->dt = ep->dt;
        r->count = ep->count;
    }
    r->capacity = r->bytes = ep->total;
    r->offset = 0;
    r->src_rank = ep->peer_rank;
    r->tag = ep->tag;
    r->flags |= rf_part;
    r->remote_id = ep->token;
    act = r;
    std::fill(ep->arrived.begin(), ep->arrived.end(), std::size_t{0});
    ep->act_id = request_id(r);
    if (ep->matched && ep->bad) {
        fail_now(r, status::truncated);
        return status::ok;
    }
    if (!ep->matched) {
        ep->cts_owed = true;
        return status::ok;
    }
    send_cts(ep);
    if (ep->total == 0 && r->cc != 0) request_complete(r);  // nothing will arrive
    return status::ok;
}

bool part_ready(part_ep* ep, int k) noexcept {
    uint8_t& f = ep->ready[static_cast<std::size_t>(k)];
    if (f) return false;
    f = 1;
    if (ep->granted && ep->act) send_part(ep, k);
    return true;
}

bool part_is_ready(const part_ep* ep, int k) noexcept {
    return ep->ready[static_cast<std::size_t>(k)] != 0;
}

bool part_arrived(const part_ep* ep, int k) noexcept {
    return ep->arrived[static_cast<std::size_t>(k)] >= ep->part_bytes;
}

void part_on_data(request* r, std::size_t off, std::size_t n) noexcept {
    part_ep* ep = lookup(r->remote_id);
    if (!ep || ep->send || ep->part_bytes == 0) return;
    while (n > 0) {
        const std::size_t k = off / ep->part_bytes;
        if (k >= ep->arrived.size()) return;
        const std::size_t take = std::min(n, (k + 1) * ep->part_bytes - off);
        ep->arrived[k] += take;
        off += take;
        n -= take;
    }
}

void part_am_dispatch(int src, uint8_t handler, const void* hdr, std::size_t hlen) noexcept {
    switch (handler) {
        case am_part_init: {
            init_hdr h;
            if (hlen < sizeof h) return;
            std::memcpy(&h, hdr, sizeof h);
            on_init(src, h);
            return;
        }
        case am_part_ack: {
            ack_hdr a;
            if (hlen < sizeof a) return;
            std::memcpy(&a, hdr, sizeof a);
            on_ack(a);
            return;
        }
        case am_part_cts: {
            cts_msg m;
            if (hlen < sizeof m) return;
            std::memcpy(&m, hdr, sizeof m);
            on_cts(m);
            return;
        }
        default: return;
    }
}

}  // namespace ch4lite::dev
