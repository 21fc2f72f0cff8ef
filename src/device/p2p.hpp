// SPDX-License-Identifier: MIT
// Device point-to-point entry points called by src/api. Inline: with a
// native-tagged netmod an MPI_Isend is request_alloc + nm.isend, no indirect
// call anywhere; otherwise (or when g_dev.device_matching: shm on, see
// device.hpp) the device matches on top of active messages, which go to
// shm or the netmod by the destination's locality bit.
#pragma once
#include <cstddef>
#include <cstring>

#include "device/am_p2p.hpp"
#include "device/comm.hpp"
#include "device/deferred.hpp"
#include "device/device.hpp"
#include "device/lazy_recv.hpp"
#include "device/match_queue.hpp"
#include "device/progress.hpp"
#include "device/request.hpp"
#include "device/typed.hpp"
#include "util/api_lock.hpp"

namespace ch4lite::dev {

// The result of starting an operation: ok/in_progress (r is valid and
// started; it may already be complete) or a failure (r is released).
inline status start_result(request* r, status s, deferred_op op) noexcept {
    switch (s) {
        case status::ok: r->cc = 0; return status::ok;
        case status::in_progress: return status::ok;
        case status::again: return defer(r, op);
        default:
            r->cc = 0;
            request_release(r);
            return s;
    }
}

// The matching fields of a send request (its sender rank travels in the
// match bits / header) and of a receive request; buffers are the caller's.
[[gnu::always_inline]] inline void set_send_match(request* r, uint32_t ctx, comm& c, int rank,
                                                  int tag, bool sync) noexcept {
    r->c = &c;
    r->peer = c.lpid(rank);
    r->match_rank = c.rank;
    r->tag = tag;
    r->context = ctx;
    if (sync) r->flags |= rf_sync;
}
[[gnu::always_inline]] inline void set_recv_match(request* r, uint32_t ctx, comm& c, int rank,
                                                  int tag) noexcept {
    r->c = &c;
    r->peer = rank == MPI_ANY_SOURCE ? -1 : c.lpid(rank);
    r->match_rank = rank;
    r->match_tag = tag;
    r->context = ctx;
}

// Posts send r (fields set, r->nm cleared) as a native tagged send of
// (buf, len), behind any deferred sends (which re-issue r->buf, r->capacity).
[[gnu::always_inline]] inline status native_post_send(request* r, const void* buf, std::size_t len) noexcept {
    if (!deferred_sends_empty()) return defer(r, dop_native_isend);
    const status s =
        nm::opt::isend(g_dev.nm, r->peer, nm::match{r->context, r->match_rank, r->tag}, buf, len,
                       (r->flags & rf_sync) ? nm::send_sync : nm::send_default, &r->nm);
    return start_result(r, s, dop_native_isend);
}

// Posts receive r (fields set, r->nm cleared) as a native tagged receive
// into (buf, len), behind any deferred receives.
[[gnu::always_inline]] inline status native_post_recv(request* r, void* buf, std::size_t len) noexcept {
    if (!deferred_recvs_empty()) return defer(r, dop_native_irecv);
    const int rank = r->match_rank, tag = r->match_tag;
    const status s =
        nm::opt::irecv(g_dev.nm, r->peer < 0 ? nm::any : r->peer,
                       nm::match{r->context, rank < 0 ? nm::any : rank, tag < 0 ? nm::any : tag},
                       buf, len, &r->nm);
    return start_result(r, s, dop_native_irecv);
}

// Sends on an explicit context: c.ctx_p2p() for point-to-point, c.ctx_coll()
// for collectives built on point-to-point.
// always_inline: the large-message branch made GCC outline this (+34
// instructions per MPI_Isend on shm, measured with callgrind).
[[gnu::always_inline]] inline status isend_on(uint32_t ctx, const void* buf, std::size_t bytes, comm& c, int rank, int tag,
                       bool sync, request*& out) noexcept {
    request* r = request_alloc(req_kind::send, 1);
    if (!r) return status::no_mem;
    r->buf = const_cast<void*>(buf);
    r->capacity = r->bytes = bytes;
    set_send_match(r, ctx, c, rank, tag, sync);
    out = r;
    if constexpr (native_tagged) {
        if (!g_dev.device_matching) {
            r->nm = {};
            // Large messages announce themselves (a typed receiver may need
            // them in chunks; docs/ddt-wire.md).
            if (__builtin_expect(bytes > g_dev.tagged_rndv_min, 0)) return native_start_rts(r);
            return native_post_send(r, buf, bytes);
        }
    }
    if (am_isend_cell(r)) {
        r->cc = 0;
        return status::ok;
    }
    return am_isend(r);
}

[[gnu::always_inline]] inline status irecv_on(uint32_t ctx, void* buf, std::size_t bytes, comm& c, int rank, int tag,
                       request*& out) noexcept {
    request* r = request_alloc(req_kind::recv, 1);
    if (!r) return status::no_mem;
    r->buf = buf;
    r->capacity = bytes;
    set_recv_match(r, ctx, c, rank, tag);
    out = r;
    if constexpr (native_tagged) {
        if (!g_dev.device_matching) {
            r->nm = {};
            return native_post_recv(r, buf, bytes);
        }
    }
    lazy_flush(ctx);  // armed persistent receives were posted first (lazy_recv.hpp)
    return am_irecv(r);
}

[[gnu::always_inline]] inline status isend(const void* buf, std::size_t bytes, comm& c, int rank, int tag, bool sync,
                    request*& out) noexcept {
    return isend_on(c.ctx_p2p(), buf, bytes, c, rank, tag, sync, out);
}
[[gnu::always_inline]] inline status irecv(void* buf, std::size_t bytes, comm& c, int rank, int tag,
                    request*& out) noexcept {
    return irecv_on(c.ctx_p2p(), buf, bytes, c, rank, tag, out);
}

// ---- blocking calls that need no request (docs/shm.md, "Direct paths") ----
// MPI_Send / MPI_Recv of a small contiguous message between ranks of one
// node: the send writes one ring cell and is complete; the receive waits on
// the ring itself and copies the payload out of the cell, with no request,
// no posted-queue entry and no dispatch. Each returns false when it does not
// apply, and the caller takes the request path, which is always correct.

// send_direct's message that needs a data-ring chunk (out of line: the copy
// is what costs there).
[[gnu::noinline]] inline bool send_direct_data(int peer, const eager_hdr& h, const void* buf,
                                               std::size_t bytes) noexcept {
    const nm::iov v{buf, bytes};
    return g_dev.shm.am_send(peer, am_eager, &h, sizeof h, &v, 1) == status::ok;
}

// A blocking standard send of at most the shm eager limit, to a local peer,
// with no earlier send deferred (their order would change) and room in the
// ring: one cell, or a cell plus a chunk of the data ring.
[[gnu::always_inline]] inline bool send_direct(uint32_t ctx, const void* buf, std::size_t bytes,
                                               comm& c, int rank, int tag) noexcept {
    if constexpr (native_tagged) {
        if (!g_dev.device_matching) return false;
    }
    if (g_dev.deferred_sends != 0) return false;
    const int peer = c.lpid(rank);
    if (!g_dev.shm.local(peer)) return false;
    const eager_hdr h{ctx, c.rank, tag, 0u, 0u};
    if (bytes <= shm::cell::inline_bytes - sizeof(eager_hdr))
        return g_dev.shm.am_send_cell(peer, am_eager, h, buf, bytes) == status::ok;
    return bytes <= g_dev.shm.eager_max() && send_direct_data(peer, h, buf, bytes);
}

// A blocking standard send of a noncontiguous buffer whose packed size is
// within the shm eager limit, to a local peer, on the same conditions:
// packed straight into the ring (docs/ddt-wire.md, "Direct paths and staging on the node").
[[gnu::noinline]] inline bool send_direct_typed(uint32_t ctx, const void* buf, const dame::type& t,
                                                int64_t count, std::size_t bytes, comm& c, int rank,
                                                int tag) noexcept {
    if constexpr (native_tagged) {
        if (!g_dev.device_matching) return false;
    }
    if (g_dev.deferred_sends != 0) return false;
    const int peer = c.lpid(rank);
    if (!g_dev.shm.local(peer) || bytes > g_dev.shm.eager_max()) return false;
    const eager_hdr h{ctx, c.rank, tag, 0u, 0u};
    return g_dev.shm.am_send_packed(peer, am_eager, &h, sizeof h, t, buf, count, 0, bytes) ==
           status::ok;
}

// A blocking receive whose message can come through shm (a local source,
// or MPI_ANY_SOURCE) on a context with no receive posted: then the first
// message that matches, among those queued unexpected and those arriving,
// is ours. A plain eager one that fits is taken from the unexpected queue
// or straight from the head of the source's ring (any ring for
// MPI_ANY_SOURCE); everything else on the rings is left to progress, which
// queues it as usual. When the first match needs more (a rendezvous, an
// Ssend, one too long for the buffer) it returns false, and the request
// path matches that same message. With t (a noncontiguous receive), buf
// holds count instances of t, cap is their packed size, and the payload is
// unpacked into them straight from the ring.
// Not under MPI_THREAD_MULTIPLE: the loop notices a queued match only
// after its own polls, while there another thread's poll may queue it (and
// another thread may post a receive on ctx meanwhile).
inline bool recv_direct(uint32_t ctx, void* buf, std::size_t cap, comm& c, int rank, int tag,
                        direct_recv& out, const dame::type* t = nullptr, int64_t count = 0) noexcept {
    if constexpr (native_tagged) {
        if (!g_dev.device_matching) return false;
    }
    if (util::g_thread_multiple) return false;
    lazy_flush(ctx);
    if (!g_dev.shm.active() || !queues().posted_empty(ctx)) return false;
    uint32_t lo = 0, hi = g_dev.shm.rings();
    if (rank != MPI_ANY_SOURCE) {
        const int peer = c.lpid(rank);
        if (!g_dev.shm.local(peer)) return false;
        lo = g_dev.shm.local_index(peer);
        hi = lo + 1;
    }
    if (!queues().unexpected_empty(ctx)) {
        const direct_take k = am_take_unexpected_eager(ctx, rank, tag, buf, cap, out, t, count);
        if (k != direct_take::none) return k == direct_take::taken;
    }
    unsigned idle = 0;
    for (;;) {
        int n = 0;
        for (uint32_t i = lo; i < hi; ++i) {
            const shm::cell* x = g_dev.shm.head(i);
            if (!x) continue;
            eager_hdr h;
            if (x->handler == am_eager && x->hlen == sizeof h && x->plen <= cap) {
                std::memcpy(&h, x->bytes, sizeof h);
                if (h.context == ctx && h.flags == 0 && match_ok(rank, tag, h.src_rank, h.tag)) {
                    uint64_t data_end;  // small_copy: memcpy above 64 bytes
                    const void* payload = g_dev.shm.head_payload(i, *x, data_end);
                    if (t)
                        shm::unpack_from_ring(*t, buf, count, payload, x->plen);
                    else
                        shm::small_copy(buf, payload, x->plen);
                    out.src_rank = h.src_rank;
                    out.tag = h.tag;
                    out.bytes = x->plen;
                    g_dev.shm.pop(i, data_end);
                    return true;
                }
            }
            n += g_dev.shm.dispatch(i);  // not ours: the usual way (a match behind it gets queued)
        }
        n += progress_except(lo, hi);
        if (n == 0) {
            idle_step(idle);
        } else {
            idle = 0;
            if (!queues().unexpected_empty(ctx)) {
                const direct_take k = am_take_unexpected_eager(ctx, rank, tag, buf, cap, out, t, count);
                if (k != direct_take::none) return k == direct_take::taken;
            }
        }
    }
}

// The message at the head of local source `rank`'s ring, if it is a plain
// eager one on ctx with exactly (rank, tag) that fits in cap bytes: copied
// to buf and popped (true). Anything else at the head stays for progress.
// For callers that know no posted receive can match that message first
// (a collective schedule's own tag, coll/sched.cpp) and have already looked
// in the unexpected queue, which holds the earlier arrivals.
// `ring` is the source's shm.local_index() (the device-matching path only).
inline bool take_ring_head(uint32_t ring, uint32_t ctx, void* buf, std::size_t cap, int rank, int tag,
                           direct_recv& out) noexcept {
    const uint32_t i = ring;
    const shm::cell* x = g_dev.shm.head(i);
    if (!x || x->handler != am_eager || x->hlen != sizeof(eager_hdr) || x->plen > cap) return false;
    eager_hdr h;
    std::memcpy(&h, x->bytes, sizeof h);
    if (h.context != ctx || h.flags != 0 || h.src_rank != rank || h.tag != tag) return false;
    uint64_t data_end;
    const void* payload = g_dev.shm.head_payload(i, *x, data_end);
    shm::small_copy(buf, payload, x->plen);
    out.src_rank = h.src_rank;
    out.tag = h.tag;
    out.bytes = x->plen;
    g_dev.shm.pop(i, data_end);
    return true;
}

// Nonblocking probe. found=false when nothing matches yet.
inline bool iprobe(comm& c, int rank, int tag, int& src_rank, int& src_tag,
                   std::size_t& bytes) noexcept {
    if constexpr (native_tagged) {
        if (!g_dev.device_matching) {
            // The netmod's probe polls only the netmod: operations the
            // device holds back (back-pressure) must move too.
            if (!deferred_empty()) (void)deferred_progress();
            nm::recv_info info{};
            const int peer = rank == MPI_ANY_SOURCE ? nm::any : c.lpid(rank);
            const bool found = nm::opt::iprobe(
                g_dev.nm, peer,
                nm::match{c.ctx_p2p(), rank < 0 ? nm::any : rank, tag < 0 ? nm::any : tag}, info);
            if (found) {
                src_rank = info.rank;
                src_tag = info.tag;
                bytes = info.rts ? static_cast<std::size_t>(rts_size(info.data)) : info.bytes;
            }
            return found;
        }
    }
    lazy_flush(c.ctx_p2p());
    progress();
    return am_iprobe(c.ctx_p2p(), rank, tag, src_rank, src_tag, bytes);
}

// Cancels a pending receive; true if it was cancelled (it then completes
// with the cancelled flag set).
bool cancel_recv(request* r) noexcept;
// Asks to cancel a pending send (MPI_Cancel): on the device-matching path a
// send that waits for its receiver (rendezvous, synchronous) is withdrawn
// if the receiver has not matched it yet; it then completes cancelled.
// False where nothing was asked: the send is complete, completes by itself
// (eager), or the netmod matches (its provider holds the message).
bool cancel_send(request* r) noexcept;

}  // namespace ch4lite::dev
