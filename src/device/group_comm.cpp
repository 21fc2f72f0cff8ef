// SPDX-License-Identifier: MIT
#include "device/group_comm.hpp"

#include "device/comm_create.hpp"
#include "device/context_id.hpp"
#include "device/p2p.hpp"
#include "device/progress.hpp"

namespace ch4lite::dev {

namespace {
comm g_bridge;

// One blocking message on the bridge.
status bridge_send(uint32_t ctx, int peer, int tag, const void* buf, std::size_t n) noexcept {
    request* r = nullptr;
    if (const status s = isend_on(ctx, buf, n, g_bridge, peer, tag, false, r); s != status::ok)
        return s;
    wait(r);
    const status s = r->result;
    request_release(r);
    return s;
}

status bridge_recv(uint32_t ctx, int peer, int tag, void* buf, std::size_t n) noexcept {
    request* r = nullptr;
    if (const status s = irecv_on(ctx, buf, n, g_bridge, peer, tag, r); s != status::ok) return s;
    wait(r);
    status s = r->result;
    if (s == status::ok && r->bytes != n) s = status::truncated;
    request_release(r);
    return s;
}

}  // namespace

void bridge_init(int world_rank, int world_size) noexcept {
    g_bridge.context_id = bridge_context_id;
    g_bridge.rank = world_rank;
    g_bridge.size = world_size;
    g_bridge.map = rank_map::direct(world_size);
}

comm& bridge() noexcept { return g_bridge; }

status bridge_sendrecv(uint32_t ctx, int peer, int tag, const void* sbuf, std::size_t sn,
                       void* rbuf, std::size_t rn) noexcept {
    return sendrecv_on(ctx, g_bridge, peer, tag, sbuf, sn, rbuf, rn);
}

status sendrecv_on(uint32_t ctx, comm& c, int peer, int tag, const void* sbuf, std::size_t sn,
                    void* rbuf, std::size_t rn) noexcept {
    request *rr = nullptr, *sr = nullptr;
    if (const status s = irecv_on(ctx, rbuf, rn, c, peer, tag, rr); s != status::ok) return s;
    status s = isend_on(ctx, sbuf, sn, c, peer, tag, false, sr);
    if (s != status::ok) {
        // The receive stays posted: nothing else uses this context and tag
        // now, and the peer's message (if any) lands there harmlessly.
        (void)cancel_recv(rr);
        wait(rr);
        request_release(rr);
        return s;
    }
    progress_until([&] { return rr->cc == 0 && sr->cc == 0; });
    s = sr->result;
    if (s == status::ok) s = rr->result;
    if (s == status::ok && rr->bytes != rn) s = status::truncated;
    request_release(sr);
    request_release(rr);
    return s;
}

status group_band(uint32_t ctx, const group& g, int tag, uint64_t* mask, int words) noexcept {
    const int n = g.size(), me = g.my_rank();
    const std::size_t bytes = static_cast<std::size_t>(words) * sizeof(uint64_t);
    uint64_t in[context_mask_words];
    int mask_bit = 1;
    // reduce to rank 0: receive from me + m for each m below my lowest set bit
    for (; mask_bit < n; mask_bit <<= 1) {
        if (me & mask_bit) {
            if (const status s = bridge_send(ctx, g.lpid(me - mask_bit), tag, mask, bytes);
                s != status::ok)
                return s;
            break;
        }
        if (me + mask_bit < n) {
            if (const status s = bridge_recv(ctx, g.lpid(me + mask_bit), tag, in, bytes);
                s != status::ok)
                return s;
            for (int w = 0; w < words; ++w) mask[w] &= in[w];
        }
    }
    // broadcast from rank 0 down the same tree
    if (me != 0)
        if (const status s = bridge_recv(ctx, g.lpid(me - mask_bit), tag, mask, bytes); s != status::ok)
            return s;
    for (mask_bit >>= 1; mask_bit > 0; mask_bit >>= 1)
        if (me + mask_bit < n)
            if (const status s = bridge_send(ctx, g.lpid(me + mask_bit), tag, mask, bytes);
                s != status::ok)
                return s;
    return status::ok;
}

status comm_create_group(const group& g, int tag, uint32_t ctx, MPI_Errhandler eh, comm*& out,
                         bool offer) noexcept {
    out = nullptr;
    comm* c = nullptr;
    if (offer && comm_make(eh, c) != status::ok) offer = false;
    uint64_t common[context_mask_words + 1];
    uint32_t id = 0;
    bool got = false;
    offer_scope busy(uint64_t{ctx} << 32 | static_cast<uint32_t>(tag));
    // Most programs keep few communicators: the first 512 ids first.
    for (int words : {8, context_mask_words}) {
        do {
            busy.fill(common, words, offer);
            if (const status s = group_band(ctx, g, tag, common, words + 1); s != status::ok) {
                (void)busy.final(common, words);
                if (c) comm_discard(c);
                return s;
            }
        } while (!busy.final(common, words));
        if ((got = context_id_take(common, words, &id, 1))) break;
    }
    if (!got) {
        if (c) comm_discard(c);
        return offer ? status::exhausted : status::no_mem;
    }
    c->rank = g.my_rank();
    c->size = g.size();
    c->map = g.map();
    comm_commit(c, id);
    out = c;
    return status::ok;
}

}  // namespace ch4lite::dev
