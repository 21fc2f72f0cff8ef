// SPDX-License-Identifier: MIT
#include "device/am_p2p.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "device/comm.hpp"
#include "device/deferred.hpp"
#include "device/device.hpp"
#include "device/match_queue.hpp"
#include "device/part.hpp"
#include "device/progress.hpp"
#include "device/typed.hpp"
#include "dame/dame.hpp"
#include "dame/type.hpp"
#include "util/log.hpp"
#include "util/small_copy.hpp"

namespace ch4lite::dev {

namespace {

// The receiver is done with s's buffer (SYNC_ACK) or will not read it (CTS).
void end_cma_offer(request* s) noexcept {
    if (s->flags & rf_cma_offer) {
        s->flags &= static_cast<uint16_t>(~rf_cma_offer);
        --g_dev.shm.cma_offers(s->peer);
    }
}

// Sends one AM carrying r's whole message; `again` queues it under `op`.
status send_am(request* r, deferred_op op, uint8_t handler, const void* hdr,
               std::size_t hlen) noexcept {
    if (!deferred_sends_empty()) return defer(r, op);
    const status s = am_send_stream(r, handler, hdr, hlen, 0, r->capacity);
    switch (s) {
        case status::ok: request_complete(r); return status::ok;
        case status::in_progress: return status::ok;
        case status::again: return defer(r, op);
        default: return s;
    }
}

// Copies an arrived eager payload into the receive request and completes it.
void deliver_eager(request* r, int src_rank, int tag, const void* data, std::size_t size) noexcept {
    deliver_bytes(r, 0, data, accept_match(r, src_rank, tag, size));
    request_complete(r);
}

// Single copy into a typed receive buffer: the layout's segments, in batches
// of at most `batch` iovecs per process_vm_readv. Only when the segments are
// large on average (ddt_cma_seg_min); else false and the caller pipelines.
bool cma_read_typed(request* r, int src_lpid, uint64_t raddr, std::size_t n) noexcept {
    const int64_t segs = dame::iov_count(*r->dt, r->count);
    if (segs <= 0 || static_cast<std::size_t>(segs) * g_dev.ddt_cma_seg_min > r->capacity)
        return false;
    constexpr int batch = 64;
    nm::iov v[batch];
    static_assert(sizeof(nm::iov) == sizeof(dame::iov_seg));
    std::size_t off = 0;
    while (off < n) {
        const dame::iov_result got =
            dame::to_iov(*r->dt, r->buf, r->count, static_cast<int64_t>(off),
                         reinterpret_cast<dame::iov_seg*>(v), batch, static_cast<int64_t>(n - off));
        if (got.bytes <= 0) return false;
        if (g_dev.shm.cma_readv(src_lpid, v, static_cast<int>(got.segs), raddr + off,
                                static_cast<std::size_t>(got.bytes)) != status::ok)
            return off == 0 ? false : (request_fail(r, status::io), true);
        off += static_cast<std::size_t>(got.bytes);
    }
    return true;
}

void send_sync_ack(int peer, uint32_t sreq_id) noexcept {
    const sync_ack_hdr h{sreq_id};
    (void)send_ctrl(peer, am_sync_ack, &h, sizeof h);
}

// Receiver matched an RTS: accept min(size, capacity) bytes and ask for
// them, or copy them at once from a local sender that offered its buffer
// (raddr != 0) and tell it we are done; if that read fails, fall back to CTS.
void accept_rts(request* r, int src_lpid, int src_rank, int tag, uint32_t sreq_id,
                uint64_t size, uint64_t raddr) noexcept {
    const std::size_t n = accept_match(r, src_rank, tag, size);
    // The kernel copies a contiguous single copy with `rep movsb` too: at a
    // short distance (util::short_distance) it ran at 2.4-3.0 GB/s, the
    // pipelined chunks (copy_bytes) at 15-23 (64 KiB-1 MiB, docs/results/shm.md).
    if (raddr != 0 && !r->dt && util::short_distance(r->buf, reinterpret_cast<const void*>(raddr)))
        raddr = 0;
    if (raddr != 0 && !r->dt && n >= g_dev.cma_split_min && g_dev.cma_split_min > 0 &&
        g_dev.shm.local(src_lpid) && g_dev.shm.cma_ok(src_lpid) && !g_dev.shm.is_self(src_lpid) &&
        g_dev.shm.cma_offers(src_lpid) == 0) {
        // Split: the sender writes the second half (page-aligned start)
        // while we read the first; SPLIT_DONE completes the receive. Not
        // while the sender is reading a message of ours (an exchange, as in
        // Alltoall or Sendrecv): then both cores are busy already, and the
        // split only adds a round trip and a second writer.
        const std::size_t half = (n / 2) & ~std::size_t{4095};
        auto* buf = static_cast<std::byte*>(r->buf);
        const split_hdr h{sreq_id, request_id(r), half, n - half,
                          reinterpret_cast<uintptr_t>(buf + half), 0, 0};
        if (send_ctrl(src_lpid, am_split, &h, sizeof h) == status::ok) {
            ++g_dev.splits_pending;
            ++g_dev.stats.rndv_cma;
            ++g_dev.stats.rndv_split;
            if (g_dev.shm.cma_read(src_lpid, buf, raddr, half) != status::ok)
                request_fail(r, status::io);
            return;
        }
    }
    if (raddr != 0 && g_dev.shm.local(src_lpid) && g_dev.shm.cma_ok(src_lpid) &&
        (r->dt ? cma_read_typed(r, src_lpid, raddr, n)
               : g_dev.shm.cma_read(src_lpid, r->buf, raddr, n) == status::ok)) {
        ++g_dev.stats.rndv_cma;
        const sync_ack_hdr done{sreq_id};
        const status s = send_ctrl(src_lpid, am_sync_ack, &done, sizeof done);
        if (failed(s)) request_fail(r, s);
        request_complete(r);
        return;
    }
    ++g_dev.stats.rndv_chunks;
    const cts_hdr h{sreq_id, request_id(r), n};
    const status s = send_ctrl(src_lpid, am_cts, &h, sizeof h);
    if (failed(s)) request_fail(r, s);
    if (n == 0 || failed(s)) request_complete(r);  // nothing will arrive
}

}  // namespace

// ---- sender -------------------------------------------------------------

status am_send_stream(request* r, uint8_t handler, const void* hdr, std::size_t hlen,
                      std::size_t off, std::size_t len) noexcept {
    if (!r->dt) {
        const nm::iov iov{static_cast<std::byte*>(r->buf) + off, len};
        return am_send_to(r->peer, handler, hdr, hlen, &iov, len ? 1 : 0, &r->nm);
    }
    // Typed: DAME packs straight into the shm ring; to the netmod, a few
    // segments go as the payload IOV, else the bytes are packed once into
    // r's staging buffer (kept for a re-issue).
    if (g_dev.shm.local(r->peer))
        return g_dev.shm.am_send_packed(r->peer, handler, hdr, hlen, *r->dt, r->buf, r->count,
                                        static_cast<int64_t>(off), len);
    constexpr int max_iov = static_cast<int>(active_netmod::caps.iov_limit);
    nm::iov v[max_iov > 0 ? max_iov : 1];
    if (!r->stage && len > 0) {
        if constexpr (active_netmod::caps.am_payload_iov) {
            const dame::iov_result got = dame::to_iov(
                *r->dt, r->buf, r->count, static_cast<int64_t>(off),
                reinterpret_cast<dame::iov_seg*>(v), max_iov, static_cast<int64_t>(len));
            if (got.bytes == static_cast<int64_t>(len))
                return am_send_to(r->peer, handler, hdr, hlen, v, static_cast<int>(got.segs),
                                  &r->nm);
        }
        if (!stage_alloc(r, len)) return status::no_mem;
        (void)dame::pack_range(*r->dt, r->buf, r->count, static_cast<int64_t>(off),
                               static_cast<int64_t>(len), r->stage);
    }
    v[0] = nm::iov{r->stage, len};
    return am_send_to(r->peer, handler, hdr, hlen, v, len ? 1 : 0, &r->nm);
}

status am_start_eager(request* r) noexcept {
    const eager_hdr h{r->context, r->match_rank, r->tag, (r->flags & rf_sync) ? amf_sync : 0u,
                      request_id(r)};
    return send_am(r, dop_am_eager, am_eager, &h, sizeof h);
}

status am_start_rts(request* r) noexcept {
    const rts_hdr h{r->context, r->match_rank, r->tag, 0, request_id(r), 0, r->capacity};
    // The RTS itself carries no payload; its local completion is not awaited:
    // the request completes when all data chunks did (or the single copy's
    // SYNC_ACK came). Use a control message.
    // Offer the single copy unless the ring is the faster way right now
    // (docs/shm-protocols.md, "Ring or single copy"); the receiver then answers CTS.
    if (!r->dt && g_dev.shm.local(r->peer) && g_dev.shm.cma_send() &&
        !(r->capacity <= g_dev.shm_ring_rndv_max && g_dev.shm.ring_runs_fast(r->peer))) {
        const rts_cma_hdr hc{h, reinterpret_cast<uintptr_t>(r->buf)};
        const status s = send_ctrl(r->peer, am_rts, &hc, sizeof hc);
        if (!failed(s)) {
            r->flags |= rf_cma_offer;
            ++g_dev.shm.cma_offers(r->peer);
        }
        return s;
    }
    return send_ctrl(r->peer, am_rts, &h, sizeof h);
}

status am_isend(request* r) noexcept {
    const std::size_t eager_max =
        g_dev.shm.local(r->peer) ? g_dev.shm.eager_max() : g_dev.eager_max;
    if (r->capacity <= eager_max) {
        if (r->flags & rf_sync) r->cc = 2;  // local completion + SYNC_ACK
        return am_start_eager(r);
    }
    r->flags |= rf_rndv;
    const status s = am_start_rts(r);
    return failed(s) ? s : status::ok;
}

// ok: the chunk left at once (the caller completes it); in_progress: it
// completes later through nm_send_done or the deferred queue.
status am_start_data(request* child) noexcept {
    if (!deferred_sends_empty()) {
        (void)defer(child, dop_am_data);
        return status::in_progress;
    }
    const data_hdr h{child->parent->remote_id, 0, child->offset};
    const status s = am_send_stream(child, am_data, &h, sizeof h, child->offset, child->capacity);
    if (s == status::again) {
        (void)defer(child, dop_am_data);
        return status::in_progress;
    }
    return s;
}

void rndv_chunk_done(request* child, status result) noexcept {
    request* p = child->parent;
    if (result != status::ok) request_fail(child, result);
    --p->inflight;
    // While chunks remain to be issued p holds a token, so it outlives the
    // completion below.
    const bool more = p->offset < p->bytes;
    request_complete(child);  // completes p's chunk token too
    if (more) rndv_pump(p);
}

void rndv_give_up(request* p) noexcept {
    if (p->inflight == 0) {  // nothing will call us back: fail p, drop its token
        request_fail(p, status::no_mem);
        p->offset = p->bytes;
        request_complete(p);
    }
}

void rndv_pump(request* p) noexcept {
    if (p->rndv_chunk) return tchunk_send_pump(p);
    const bool shm = g_dev.shm.local(p->peer);
    const std::size_t chunk = shm ? g_dev.shm.chunk() : g_dev.rndv_chunk;
    while (p->offset < p->bytes && p->inflight < g_dev.rndv_window) {
        request* child = request_alloc(req_kind::internal, 1);
        if (!child) return rndv_give_up(p);
        const std::size_t len = std::min(chunk, p->bytes - p->offset);
        child->parent = p;
        child->peer = p->peer;
        child->buf = p->buf;
        if (p->dt) {  // the chunk is a range of p's packed stream
            p->dt->retain();
            child->dt = p->dt;
            child->count = p->count;
            child->stage = nullptr;
        }
        child->offset = p->offset;
        child->capacity = len;
        child->flags |= rf_released;
        p->offset += len;
        ++p->inflight;
        ++p->cc;
        const bool last = p->offset == p->bytes;
        const status s = am_start_data(child);
        if (s != status::in_progress) {  // done (shm copied it) or failed: no callback follows
            --p->inflight;
            if (s != status::ok) request_fail(child, s);
            request_complete(child);
        }
        if (last) {
            request_complete(p);  // the token held while chunks remained to issue
            return;
        }
    }
}

namespace {
void start_chunks(request* s, const cts_hdr& h) noexcept {
    s->remote_id = h.rreq_id;
    s->rndv_chunk = 0;  // AM chunks
    s->bytes = h.bytes;
    s->offset = 0;
    if (h.bytes == 0) {
        request_complete(s);
        return;
    }
    rndv_pump(s);
}
}  // namespace

void am_on_cts(const cts_hdr& h) noexcept {
    request* s = request_from_id(h.sreq_id);
    if (!s) return;  // cannot happen unless memory was corrupted; ignore
    end_cma_offer(s);  // the receiver will not read our buffer: we send it
    start_chunks(s, h);
}

void am_on_tcts(const cts_hdr& h) noexcept {
    // A native RTS names its sender by pool index only (CQ data room); the
    // request is alive (it holds a token until its chunks are issued).
    request* s = request_pool().at(h.sreq_id & util::handle_max_index);
    if (!s || !s->pool_in_use || !(s->flags & rf_rndv) || s->kind != req_kind::send) return;
    if ((h.sreq_id & tcts_tagged) && h.bytes > 0 && h.chunk > 0) {
        native_send_tchunks(s, h.rreq_id, h.bytes, h.chunk);
        return;
    }
    if ((h.sreq_id & tcts_tagged) && h.bytes > 0 && !s->dt) {
        native_send_tdata(s, h.rreq_id, h.bytes);
        return;
    }
    start_chunks(s, h);
}

void am_on_sync_ack(const sync_ack_hdr& h) noexcept {
    if (request* s = request_from_id(h.sreq_id)) {
        end_cma_offer(s);
        request_complete(s);
    }
}

void am_on_split(int src, const split_hdr& h) noexcept {
    request* s = request_from_id(h.sreq_id);
    if (!s) return;
    split_hdr d = h;
    d.addr = reinterpret_cast<uintptr_t>(static_cast<const std::byte*>(s->buf) + h.offset);
    // Only within the message the RTS announced (a broken peer cannot make
    // us read past our buffer).
    d.ok = h.offset <= s->capacity && h.bytes <= s->capacity - h.offset && g_dev.cma_write &&
           g_dev.shm.cma_write(src, h.addr, static_cast<const std::byte*>(s->buf) + h.offset,
                               h.bytes) == status::ok;
    // The send completes on SYNC_ACK, after the receiver is done with our buffer.
    if (failed(send_ctrl(src, am_split_done, &d, sizeof d))) request_fail(s, status::io);
}

void am_on_split_done(int src, const split_hdr& h) noexcept {
    if (g_dev.splits_pending) --g_dev.splits_pending;
    request* r = request_from_id(h.rreq_id);
    if (!r) return;
    if (!h.ok && h.offset <= r->bytes && h.bytes <= r->bytes - h.offset) {
        // The sender could not write: read its part ourselves (its buffer
        // stays ours until SYNC_ACK).
        if (g_dev.shm.cma_read(src, static_cast<std::byte*>(r->buf) + h.offset, h.addr,
                               h.bytes) != status::ok)
            request_fail(r, status::io);
    }
    const sync_ack_hdr done{h.sreq_id};
    const status st = send_ctrl(src, am_sync_ack, &done, sizeof done);
    if (failed(st)) request_fail(r, st);
    request_complete(r);
}

// ---- receiver -----------------------------------------------------------

status am_irecv(request* r) noexcept {
    unexpected_msg* m = queues().take_unexpected(r->context, r->match_rank, r->match_tag);
    if (!m) {
        if (queues().post(r)) return status::ok;
        r->cc = 0;  // a failure releases the request, as start_result does
        request_release(r);
        return status::no_mem;
    }
    am_recv_matched(r, m);
    return status::ok;
}

void am_recv_matched(request* r, unexpected_msg* m) noexcept {
    if (m->rts) {
        accept_rts(r, m->src_lpid, m->src_rank, m->tag, m->sreq_id, m->size, m->raddr);
    } else {
        if (m->flags & amf_sync) send_sync_ack(m->src_lpid, m->sreq_id);
        deliver_eager(r, m->src_rank, m->tag, m->data, m->size);
    }
    m->release_data();
    unexpected_pool().free(m);
}

direct_take am_take_unexpected_eager(uint32_t ctx, int rank, int tag, void* buf, std::size_t cap,
                                     direct_recv& out, const dame::type* t, int64_t count) noexcept {
    unexpected_msg* m = queues().find_unexpected(ctx, rank, tag);
    if (!m) return direct_take::none;
    if (m->rts || m->flags != 0 || m->size > cap) return direct_take::other;
    (void)queues().take_unexpected(ctx, rank, tag);  // m: the first match
    if (m->size && t)
        (void)dame::unpack_range(*t, buf, count, 0, static_cast<int64_t>(m->size), m->data);
    else if (m->size)
        util::copy_bytes(buf, m->data, m->size);
    out.src_rank = m->src_rank;
    out.tag = m->tag;
    out.bytes = m->size;
    m->release_data();
    unexpected_pool().free(m);
    return direct_take::taken;
}

namespace {
unexpected_msg* new_unexpected(int src, uint32_t ctx, int rank, int tag) noexcept {
    unexpected_msg* m = unexpected_pool().alloc();
    if (!m) util::fatal("unexpected-message pool exhausted (%u messages); raise "
                        "CH4LITE_UNEXPECTED_POOL_MAX", unexpected_pool().max_count());
    m->context = ctx;
    m->src_rank = rank;
    m->tag = tag;
    m->src_lpid = src;
    m->data = nullptr;
    return m;
}
}  // namespace

void am_on_eager(int src, const eager_hdr& h, const void* payload, std::size_t len) noexcept {
    if (request* r = queues().take_posted(h.context, h.src_rank, h.tag)) {
        if (h.flags & amf_sync) send_sync_ack(src, h.sreq_id);
        deliver_eager(r, h.src_rank, h.tag, payload, len);
        return;
    }
    unexpected_msg* m = new_unexpected(src, h.context, h.src_rank, h.tag);
    m->rts = false;
    m->flags = h.flags;
    m->sreq_id = h.sreq_id;
    m->size = len;
    if (len <= unexpected_msg::inline_bytes) {
        m->data = m->inline_data;
    } else {
        m->data = static_cast<std::byte*>(std::malloc(len));
        if (!m->data) util::fatal("out of memory buffering a %zu-byte unexpected message", len);
    }
    if (len) std::memcpy(m->data, payload, len);
    queues().add_unexpected(m);
}

void am_on_rts(int src, const rts_hdr& h, uint64_t raddr) noexcept {
    if (request* r = queues().take_posted(h.context, h.src_rank, h.tag)) {
        accept_rts(r, src, h.src_rank, h.tag, h.sreq_id, h.size, raddr);
        return;
    }
    unexpected_msg* m = new_unexpected(src, h.context, h.src_rank, h.tag);
    m->rts = true;
    m->flags = h.flags;
    m->sreq_id = h.sreq_id;
    m->size = h.size;
    m->raddr = raddr;
    queues().add_unexpected(m);
}

void am_on_data(const data_hdr& h, const void* payload, std::size_t len) noexcept {
    request* r = request_from_id(h.rreq_id);
    if (!r) return;
    // Chunks beyond the accepted size cannot arrive (the sender sends only
    // what CTS accepted); clamp anyway so a broken peer cannot overrun.
    if (h.offset < r->bytes) {
        const std::size_t n = std::min<std::size_t>(len, r->bytes - h.offset);
        deliver_bytes(r, h.offset, payload, n);
        if (__builtin_expect(r->flags & rf_part, 0)) part_on_data(r, h.offset, n);
    }
    r->offset += len;
    if (r->offset >= r->bytes) request_complete(r);
}

void* am_data_dest(const data_hdr& h, std::size_t len) noexcept {
    request* r = request_from_id(h.rreq_id);
    if (!r || r->dt || h.offset > r->bytes || len > r->bytes - h.offset) return nullptr;
    return static_cast<std::byte*>(r->buf) + h.offset;
}

void am_data_landed(const data_hdr& h, std::size_t len, status result) noexcept {
    request* r = request_from_id(h.rreq_id);
    if (!r) return;
    if (result != status::ok) request_fail(r, result);
    r->offset += len;
    if (r->offset >= r->bytes) request_complete(r);
}

bool am_iprobe(uint32_t ctx, int rank, int tag, int& src_rank, int& src_tag,
               std::size_t& bytes) noexcept {
    unexpected_msg* m = queues().find_unexpected(ctx, rank, tag);
    if (!m) return false;
    src_rank = m->src_rank;
    src_tag = m->tag;
    bytes = m->size;
    return true;
}

bool am_cancel_send(request* r) noexcept {
    // Only a send whose completion waits for its receiver can hang on a
    // receive that never comes: a rendezvous (CTS, SYNC_ACK or the chunks'
    // end) or a synchronous eager send (SYNC_ACK). An eager send completes
    // by itself. CANCEL follows the message on the same ordered channel
    // (send_ctrl keeps the deferred queue's order), so the receiver has it
    // queued or matched when CANCEL arrives.
    if (r->cc == 0 || (r->flags & rf_cancel_asked) || !(r->flags & (rf_rndv | rf_sync))) return false;
    const cancel_hdr h{request_id(r), 0};
    if (failed(send_ctrl(r->peer, am_cancel, &h, sizeof h))) return false;
    r->flags |= rf_cancel_asked;
    return true;
}

void am_on_cancel(int src, const cancel_hdr& h) noexcept {
    cancel_hdr ack{h.sreq_id, 0};
    if (unexpected_msg* m = queues().take_sent(src, h.sreq_id)) {
        m->release_data();
        unexpected_pool().free(m);
        ack.cancelled = 1;
    }
    (void)send_ctrl(src, am_cancel_ack, &ack, sizeof ack);
}

void am_on_cancel_ack(const cancel_hdr& h) noexcept {
    // Not withdrawn: the receiver matched the message, the send completes
    // the usual way (the request may be gone already: nothing to do).
    if (!h.cancelled) return;
    // Withdrawn before any match: no CTS, SYNC_ACK or chunk will come for
    // it, so the request is alive and this is its last completion (a
    // synchronous eager send may still wait for its local one).
    request* s = request_from_id(h.sreq_id);
    if (!s) return;
    s->cancelled = true;
    end_cma_offer(s);
    request_complete(s);
}

bool am_cancel_recv(request* r) noexcept {
    if (!queues().unpost(r)) return false;
    r->cancelled = true;
    request_complete(r);
    return true;
}

}  // namespace ch4lite::dev
