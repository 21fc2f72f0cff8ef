// SPDX-License-Identifier: MIT
// Noncontiguous point-to-point: entry points, staging buffers, and the
// native tagged path's packing, bounce buffers and RTS (device/typed.hpp).
#include "device/typed.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "dame/dame.hpp"
#include "dame/type.hpp"
#include "device/am_p2p.hpp"
#include "device/comm.hpp"
#include "device/deferred.hpp"
#include "device/device.hpp"
#include "device/p2p.hpp"
#include "util/env.hpp"
#include "util/pool_buffer.hpp"
#include "util/small_copy.hpp"

namespace ch4lite::dev {

namespace {
// Heap staging buffers (above one pack buffer: native path sends up to
// ddt_pack_max, typed receives' bounces up to tagged_rndv_min) are kept in a
// two-slot cache: a fresh multi-MiB allocation per message costs mmap and
// page faults on every byte (measured: 2.3x the MPI_Pack path at 1 MiB).
struct cached_stage {
    std::byte* p = nullptr;
    std::size_t n = 0;
};
cached_stage g_stage_cache[2];

std::byte* heap_stage(std::size_t rounded) noexcept {
    for (cached_stage& c : g_stage_cache)
        if (c.p && c.n >= rounded) {
            std::byte* p = c.p;
            c = {};
            return p;
        }
    return static_cast<std::byte*>(std::aligned_alloc(64, rounded));
}
}  // namespace

std::byte* stage_alloc(request* r, std::size_t n) noexcept {
    if (n <= util::pack_buffer::bytes) {
        if (util::pack_buffer* pb = util::pack_buffer_pool().alloc_counted(1, 0)) {
            r->stage = pb->data;
            r->flags &= static_cast<uint16_t>(~rf_stage_heap);
            return r->stage;
        }
        // The pool is at its maximum: the heap still works (bounded by the
        // callers: one chunk, or tagged_rndv_min).
    }
    const std::size_t rounded = (std::max<std::size_t>(n, 1) + 63) & ~std::size_t{63};
    r->stage = heap_stage(rounded);
    if (r->stage) {
        r->flags |= rf_stage_heap;
        r->count_stage = rounded;
    }
    return r->stage;
}

void stage_cache_release() noexcept {
    for (cached_stage& c : g_stage_cache) {
        std::free(c.p);
        c = {};
    }
}

void stage_free(request* r) noexcept {
    if (!r->stage) return;
    if (r->flags & rf_stage_heap) {
        cached_stage* slot = &g_stage_cache[0];  // keep the larger ones
        if (g_stage_cache[1].n < slot->n) slot = &g_stage_cache[1];
        if (slot->n < r->count_stage) {
            std::free(slot->p);
            *slot = {r->stage, r->count_stage};
        } else {
            std::free(r->stage);
        }
    } else {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Winvalid-offsetof"
        constexpr std::size_t off = offsetof(util::pack_buffer, data);
#pragma GCC diagnostic pop
        util::pack_buffer_pool().release(reinterpret_cast<util::pack_buffer*>(r->stage - off));
    }
    r->stage = nullptr;
    r->flags &= static_cast<uint16_t>(~rf_stage_heap);
}

void deliver_bytes(request* r, std::size_t off, const void* src, std::size_t n) noexcept {
    if (n == 0) return;
    if (r->dt)
        (void)dame::unpack_range(*r->dt, r->buf, r->count, static_cast<int64_t>(off),
                                 static_cast<int64_t>(n), src);
    else
        util::copy_bytes(static_cast<std::byte*>(r->buf) + off, src, n);
}

namespace {
request* typed_request(req_kind kind, void* buf, const dame::type& t, int64_t count,
                       std::size_t bytes) noexcept {
    request* r = request_alloc(kind, 1);
    if (!r) return nullptr;
    t.retain();
    r->dt = &t;
    r->count = count;
    r->stage = nullptr;
    r->buf = buf;
    r->capacity = bytes;
    return r;
}
// ---- native IOV receive: a layout of few large segments is posted to the
// netmod as a scatter receive instead of a bounce buffer. (Sends are still
// packed: a gather send, fi_tsendv, of 2 x 256 KiB into a one-segment
// receive hangs in tcp;ofi_rxm 1.17's rendezvous; docs/ddt-wire.md.)
constexpr std::size_t native_iov_cap = active_netmod::caps.tagged_iov_limit;

// CH4LITE_DDT_IOV_SEG_MIN: the segments must average at least this many
// bytes (below it, the bounce and unpack are as fast; docs/ddt-wire.md).
// Read once, at the first typed receive.
std::size_t iov_seg_min() noexcept {
    static const std::size_t v = static_cast<std::size_t>(
        std::max<int64_t>(util::env_int("CH4LITE_DDT_IOV_SEG_MIN", 4096), 1));
    return v;
}

// The segments of r's whole buffer (r->buf, r->dt, r->count, capacity
// bytes) when there are at most the netmod's limit; else 0.
int native_iov_fill(const request* r, nm::iov* v) noexcept {
    if constexpr (native_iov_cap > 0) {
        const int64_t lim = static_cast<int64_t>(
            std::min<std::size_t>(native_iov_cap, nm::opt::tagged_iov_max(g_dev.nm)));
        const dame::iov_result got =
            dame::to_iov(*r->dt, r->buf, r->count, 0, reinterpret_cast<dame::iov_seg*>(v), lim,
                         static_cast<int64_t>(r->capacity));
        if (got.segs > 0 && got.bytes == static_cast<int64_t>(r->capacity))
            return static_cast<int>(got.segs);
    }
    (void)r;
    (void)v;
    return 0;
}

// Whether r (typed, capacity > 0) takes the IOV path: few segments (O(1)
// count from the type), each large on average.
bool native_iov_fits(const request* r) noexcept {
    if constexpr (native_iov_cap > 0) {
        const int64_t segs = dame::iov_count(*r->dt, r->count);
        return r->capacity > 0 && segs > 0 &&
               static_cast<std::size_t>(segs) <=
                   std::min<std::size_t>(native_iov_cap, nm::opt::tagged_iov_max(g_dev.nm)) &&
               static_cast<std::size_t>(segs) * iov_seg_min() <= r->capacity;
    }
    (void)r;
    return false;
}
}  // namespace

status native_issue_recvv(request* r) noexcept {
    if constexpr (native_iov_cap > 0) {
        nm::iov v[native_iov_cap > 0 ? native_iov_cap : 1];
        const int n = native_iov_fill(r, v);
        if (n == 0) return status::intern;
        const int rank = r->match_rank, tag = r->match_tag;
        return nm::opt::irecvv(
            g_dev.nm, r->peer < 0 ? nm::any : r->peer,
            nm::match{r->context, rank < 0 ? nm::any : rank, tag < 0 ? nm::any : tag}, v, n,
            &r->nm);
    }
    (void)r;
    return status::intern;
}

status isend_typed(uint32_t ctx, const void* buf, const dame::type& t, int64_t count,
                   std::size_t bytes, comm& c, int rank, int tag, bool sync,
                   request*& out) noexcept {
    request* r = typed_request(req_kind::send, const_cast<void*>(buf), t, count, bytes);
    if (!r) return status::no_mem;
    r->bytes = bytes;
    set_send_match(r, ctx, c, rank, tag, sync);
    out = r;
    if constexpr (native_tagged) {
        if (!g_dev.device_matching) {
            r->nm = {};
            if (bytes > g_dev.ddt_pack_max) return native_start_rts(r);
            // Packed whole into a pooled buffer; from here on the request is
            // a plain byte send of that buffer (also when deferred).
            std::byte* p = stage_alloc(r, bytes);
            if (!p) {
                r->cc = 0;
                request_release(r);
                return status::no_mem;
            }
            dame::pack(t, buf, count, p);
            r->buf = p;
            return native_post_send(r, p, bytes);
        }
    }
    return am_isend(r);
}

status irecv_typed(uint32_t ctx, void* buf, const dame::type& t, int64_t count,
                   std::size_t bytes, comm& c, int rank, int tag, request*& out) noexcept {
    request* r = typed_request(req_kind::recv, buf, t, count, bytes);
    if (!r) return status::no_mem;
    set_recv_match(r, ctx, c, rank, tag);
    out = r;
    if constexpr (native_tagged) {
        if (!g_dev.device_matching) {
            r->nm = {};
            if (native_iov_fits(r)) {  // scattered straight into the user's buffer
                if (!deferred_recvs_empty()) return defer(r, dop_native_irecvv);
                return start_result(r, native_issue_recvv(r), dop_native_irecvv);
            }
            // A message of at most tagged_rndv_min bytes arrives whole: bounce
            // it (the same length the reissue computes); larger ones come as
            // an RTS (0 bytes) and then as AM chunks unpacked one by one.
            if (bytes > 0 && !stage_alloc(r, std::min(bytes, g_dev.tagged_rndv_min))) {
                r->cc = 0;
                request_release(r);
                return status::no_mem;
            }
            void* b;
            std::size_t len;
            native_recv_buffer(r, b, len);
            return native_post_recv(r, b, len);
        }
    }
    lazy_flush(ctx);  // armed persistent receives first (lazy_recv.hpp)
    return am_irecv(r);
}

void native_recv_buffer(request* r, void*& buf, std::size_t& len) noexcept {
    if (r->dt) {
        buf = r->stage;
        len = r->stage ? std::min(r->capacity, g_dev.tagged_rndv_min) : 0;
    } else {
        buf = r->buf;
        len = r->capacity;
    }
}

// ---- native RTS -----------------------------------------------------------

status native_reissue_rts(request* r) noexcept {
    if constexpr (native_tagged) {
        const uint64_t data = (static_cast<uint64_t>(r->capacity) << (rts_index_bits + 1)) |
                              (r->dt ? 0 : rts_contig_bit) | r->pool_index;
        return nm::opt::isend_rts(g_dev.nm, r->peer, nm::match{r->context, r->match_rank, r->tag},
                                  data, &r->nm);
    }
    return status::intern;
}

status native_start_rts(request* r) noexcept {
    if (r->capacity > rts_max_size) {  // 16 TiB: the CQ data cannot announce it
        r->cc = 0;
        request_release(r);
        return status::invalid;
    }
    // cc: the RTS's local completion + the token held until the last chunk
    // is issued (rndv_pump); the receiver's CTS starts the chunks.
    r->flags |= rf_rndv;
    r->cc = 2;
    if (!deferred_sends_empty()) return defer(r, dop_native_rts);
    const status s = native_reissue_rts(r);
    switch (s) {
        case status::ok: request_complete(r); return status::ok;
        case status::in_progress: return status::ok;
        case status::again: return defer(r, dop_native_rts);
        default:
            r->cc = 0;
            request_release(r);
            return s;
    }
}

void native_on_rts(request* r, int src_rank, int tag, uint64_t data) noexcept {
    const uint32_t sreq_index = static_cast<uint32_t>(data & ((uint64_t{1} << rts_index_bits) - 1));
    stage_free(r);  // the bounce is not needed: data comes as chunks
    const std::size_t n = accept_match(r, src_rank, tag, rts_size(data));
    r->flags |= rf_rndv;  // matched: no longer cancellable
    const int src = r->c->lpid(src_rank);
    uint32_t ask = sreq_index;
    std::size_t chunk = 0;
    if constexpr (native_tagged) {
        if (n > 0 && (r->dt || !(data & rts_contig_bit)) && g_dev.tdata_chunk > 0) {
            // Either side noncontiguous: tagged chunks, posted once the CTS is out.
            chunk = g_dev.tdata_chunk;
            ask |= tcts_tagged;
        } else if (n > 0 && !r->dt && (data & rts_contig_bit)) {
            // Both buffers contiguous: one tagged message straight into ours.
            r->nm = {};
            if (nm::opt::irecv(g_dev.nm, src, tdata_match(request_id(r)), r->buf, n, &r->nm) ==
                status::in_progress) {
                r->flags |= rf_tdata;
                ask |= tcts_tagged;
            }
        }
    }
    const cts_hdr h{ask, request_id(r), n, chunk};
    const status s = send_ctrl(src, am_tcts, &h, sizeof h);
    if (failed(s)) request_fail(r, s);
    if (n == 0 || failed(s)) {
        request_complete(r);  // nothing will arrive
        return;
    }
    if (chunk) {  // r's own completion is the token held until the last chunk is posted
        r->peer = src;
        r->rndv_chunk = static_cast<uint32_t>(chunk);
        r->offset = 0;
        r->inflight = 0;
        tchunk_recv_pump(r);
    }
}

status native_issue_tchunk(request* child) noexcept {
    if constexpr (native_tagged)
        return nm::opt::irecv(g_dev.nm, child->peer, tdata_match(request_id(child->parent)),
                              child->buf, child->capacity, &child->nm);
    return status::intern;
}

void native_tchunk_done(request* child, status result, std::size_t got) noexcept {
    request* p = child->parent;
    if (result != status::ok || got != child->capacity)  // the sender cut the stream otherwise
        request_fail(child, result != status::ok && result != status::truncated ? result : status::io);
    else if (child->stage)
        deliver_bytes(p, child->offset, child->stage, child->capacity);
    --p->inflight;
    const bool more = p->offset < p->bytes;
    request_complete(child);  // and p's count for it; p holds its token while more
    if (more) tchunk_recv_pump(p);
}

void native_send_tchunks(request* s, uint32_t rreq_id, std::size_t bytes, std::size_t chunk) noexcept {
    s->remote_id = rreq_id;
    s->bytes = bytes;
    s->offset = 0;
    s->rndv_chunk = static_cast<uint32_t>(std::min<std::size_t>(chunk, UINT32_MAX));  // ours: <= 1 GiB
    tchunk_send_pump(s);
}

namespace {
// A chunk request of p (send or receive) for stream bytes [p->offset, +len):
// typed, it holds p's type and a staging buffer; else it points into p's
// buffer. nullptr when out of memory.
request* tchunk_child(request* p, std::size_t len) noexcept {
    request* child = request_alloc(req_kind::internal, 1);
    if (!child) return nullptr;
    child->parent = p;
    child->peer = p->peer;
    child->offset = p->offset;
    child->capacity = len;
    child->flags |= rf_released;
    child->stage = nullptr;
    child->nm = {};
    if (p->dt) {
        p->dt->retain();
        child->dt = p->dt;  // released with the child, and its staging with it
        child->count = p->count;
        if (!stage_alloc(child, len)) {
            request_free_now(child);
            return nullptr;
        }
        child->buf = child->stage;
    } else {
        child->buf = static_cast<std::byte*>(p->buf) + p->offset;
    }
    return child;
}

// Issues child, one piece of p's tagged data (a send, or a chunk receive),
// now or through the deferred queue (op), with p's window bookkeeping: a
// child that is done at once or failed gets no callback, so it completes
// here.
template <class Issue>
void tdata_issue(request* p, request* child, deferred_op op, bool queue_empty, Issue issue) noexcept {
    ++p->inflight;
    ++p->cc;
    status st = status::in_progress;
    if (!queue_empty) {
        (void)defer(child, op);
    } else if ((st = issue(child)) == status::again) {
        (void)defer(child, op);
        st = status::in_progress;
    }
    if (st != status::in_progress) {
        --p->inflight;
        if (st != status::ok) request_fail(child, st);
        request_complete(child);
    }
}
}  // namespace

void tchunk_recv_pump(request* r) noexcept {
    while (r->offset < r->bytes && r->inflight < g_dev.tdata_window) {
        const std::size_t len = std::min<std::size_t>(r->rndv_chunk, r->bytes - r->offset);
        request* child = tchunk_child(r, len);
        if (!child) return rndv_give_up(r);
        r->offset += len;
        child->flags |= rf_tdata;
        const bool last = r->offset == r->bytes;
        tdata_issue(r, child, dop_native_tchunk, deferred_recvs_empty(), [](request* c) {
            const status st = native_issue_tchunk(c);
            return st == status::ok ? status::intern : st;  // a receive cannot be done at once
        });
        if (last) {
            request_complete(r);  // the token
            return;
        }
    }
}

void tchunk_send_pump(request* s) noexcept {
    while (s->offset < s->bytes && s->inflight < g_dev.tdata_window) {
        const std::size_t len = std::min<std::size_t>(s->rndv_chunk, s->bytes - s->offset);
        request* child = tchunk_child(s, len);
        if (!child) return rndv_give_up(s);
        if (s->dt)
            (void)dame::pack_range(*s->dt, s->buf, s->count, static_cast<int64_t>(s->offset),
                                   static_cast<int64_t>(len), child->stage);
        s->offset += len;
        const bool last = s->offset == s->bytes;
        tdata_issue(s, child, dop_native_tdata, deferred_sends_empty(), native_reissue_tdata);
        if (last) {
            request_complete(s);  // the token held since the RTS
            return;
        }
    }
}

status native_reissue_tdata(request* child) noexcept {
    if constexpr (native_tagged)
        return nm::opt::isend(g_dev.nm, child->peer, tdata_match(child->parent->remote_id),
                              child->buf, child->capacity, nm::send_default, &child->nm);
    return status::intern;
}

void native_send_tdata(request* s, uint32_t rreq_id, std::size_t bytes) noexcept {
    s->remote_id = rreq_id;
    s->bytes = bytes;
    // One child carries the whole message (rndv_chunk_done completes it like
    // the last chunk); s holds its token until the child is issued.
    request* child = request_alloc(req_kind::internal, 1);
    if (!child) {  // the receiver waits in vain: report it here at least
        request_fail(s, status::no_mem);
        request_complete(s);
        return;
    }
    child->parent = s;
    child->peer = s->peer;
    child->buf = s->buf;
    child->offset = 0;
    child->capacity = bytes;
    child->flags |= rf_released;
    child->nm = {};
    s->offset = bytes;
    tdata_issue(s, child, dop_native_tdata, deferred_sends_empty(), native_reissue_tdata);
    request_complete(s);  // the token
}

}  // namespace ch4lite::dev
