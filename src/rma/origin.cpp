// SPDX-License-Identifier: MIT
// Origin side of put / get / accumulate / get_accumulate / compare_and_swap:
// each call becomes records in the target's batch (queue.hpp) right away, so
// the closing fence only posts finished messages.
//
// A record covers a piece of the target stream: contiguous target data is
// one (disp, bytes) range; a derived target type travels as its flattened
// pieces (DAME's IOV emission against a fake base, so the pieces are byte
// offsets in the target window). Pieces are cut to fit one message and, for
// accumulates, at element boundaries. Large contiguous puts skip the batch:
// their pieces go zero copy from the user's buffer. Large puts and gets to
// a node peer of a Win_create window (contiguous, or derived with large
// pieces) are one copy by cross-memory attach at the call, when the kernel
// lets us. Large contiguous puts and gets to peers the netmod reaches use
// its native RMA when it has one (native.hpp).
#include <sys/uio.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "dame/dame.hpp"
#include "device/device.hpp"
#include "device/op.hpp"
#include "rma/native.hpp"
#include "rma/origin.hpp"
#include "rma/pools.hpp"
#include "rma/queue.hpp"
#include "rma/rma.hpp"
#include "rma/sync.hpp"
#include "rma/target.hpp"
#include "rma/win_internal.hpp"
#include "rma/wire.hpp"
#include "shm/cma.hpp"
#include "util/env.hpp"
#include "util/pool_buffer.hpp"
#include "util/small_copy.hpp"

namespace ch4lite::rma {

namespace {

constexpr uint64_t fake_base = uint64_t{1} << 46;
constexpr int max_segs = 64;              // pieces per record
constexpr uint64_t max_rec_bytes = 1u << 30;

// Contiguous puts from this size go zero copy (CH4LITE_RMA_ZCOPY_MIN).
std::size_t zcopy_min() noexcept {
    static const std::size_t v =
        static_cast<std::size_t>(std::max<int64_t>(util::env_int("CH4LITE_RMA_ZCOPY_MIN", 16384), 64));
    return v;
}

// A zero-copy put sends its record and the origin's bytes as two payload
// segments: shm takes any number, a netmod only if it declares payload
// IOVs (netmod.hpp, caps.am_payload_iov); else the bytes are copied into
// the message like any other put's.
bool two_segments(int lpid) noexcept {
    if (dev::g_dev.shm.local(lpid)) return true;
    return active_netmod::caps.am_payload_iov && active_netmod::caps.iov_limit >= 2;
}

// Contiguous transfers from this size to a node peer go by cross-memory
// attach (CH4LITE_RMA_CMA_MIN).
uint64_t cma_min() noexcept {
    static const uint64_t v =
        static_cast<uint64_t>(std::max<int64_t>(util::env_int("CH4LITE_RMA_CMA_MIN", 65536), 1));
    return v;
}

// Puts up to this size take put_other's first way: below the sizes that go
// by CMA, native RMA or zero copy, whatever the environment sets them to.
[[gnu::always_inline]] inline uint64_t small_put_max() noexcept {
    static const uint64_t v = std::min<uint64_t>({256, zcopy_min() - 1, cma_min() - 1, native_min() - 1});
    return v;
}

// Contiguous puts from this size to a node peer of a Win_create window are
// split (CH4LITE_RMA_CMA_SPLIT; 0: never): the target reads the upper half
// from our buffer while we write the lower one, so two cores copy. Off by
// default when oversubscribed (the target may not run while we copy).
uint64_t cma_split_min() noexcept {
    static const uint64_t v = static_cast<uint64_t>(std::clamp<int64_t>(
        util::env_int("CH4LITE_RMA_CMA_SPLIT", dev::g_dev.oversubscribed ? 0 : 256 * 1024), 0,
        int64_t{1} << 40));
    return v;
}

// Accumulates that combine (not MPI_NO_OP) go by CMA only with
// CH4LITE_RMA_CMA_ACC=1: read, combine and write back through the kernel
// measured 2-2.6x slower than sending the operand through the ring and
// having the target combine it (docs/rma.md, "Accumulate by message").
bool cma_acc_on() noexcept {
    static const bool v = util::env_bool("CH4LITE_RMA_CMA_ACC", false);
    return v;
}

// The target range lies inside t's window. The API checks it already
// (MPI_ERR_RMA_RANGE) unless CH4LITE_RMA_CHECK_ORIGIN=0; the paths that
// write without the target's own check (direct access, CMA) check again,
// so such accesses go by message and the target refuses them.
bool fits_check(const win& w, const target_spec& ts) noexcept {
    if (ts.count <= 0) return true;
    const uint64_t wsize = w.peers[static_cast<std::size_t>(ts.rank)].size;
    if (ts.t->contiguous() && ts.t->true_lb() >= 0 && ts.disp <= wsize) {
        // contiguous: [disp + true_lb, + count * size); no overflow below 2^62
        const uint64_t lo = ts.disp + static_cast<uint64_t>(ts.t->true_lb());
        const uint64_t n = static_cast<uint64_t>(ts.count) * static_cast<uint64_t>(ts.t->size());
        if (lo <= wsize && n <= wsize - lo && static_cast<uint64_t>(ts.count) < (uint64_t{1} << 40))
            return true;
    }
    const __int128 span = static_cast<__int128>(ts.count - 1) * ts.t->extent();
    const __int128 lo = static_cast<__int128>(ts.disp) + ts.t->true_lb() + (span < 0 ? span : 0);
    const __int128 hi = static_cast<__int128>(ts.disp) + ts.t->true_ub() + (span > 0 ? span : 0);
    return lo >= 0 && hi <= static_cast<__int128>(w.peers[static_cast<std::size_t>(ts.rank)].size);
}

// The API's check (target_spec::in_range) or our own.
[[gnu::always_inline]] inline bool fits(const win& w, const target_spec& ts) noexcept {
    return ts.in_range || fits_check(w, ts);
}

// t's memory for a direct access of ts now, or null (see direct_target).
[[gnu::always_inline]] inline std::byte* direct(win& w, const target_spec& ts) noexcept {
    if (!w.direct_base[static_cast<std::size_t>(ts.rank)] || !fits(w, ts)) return nullptr;
    return direct_target(w, ts.rank);
}

// The same for accumulates, which MPI orders among themselves only: with
// the hint accumulate_ordering=none they need not wait behind operations
// queued to t (docs/parameters.md, "Info hints").
[[gnu::always_inline]] inline std::byte* direct_acc(win& w, const target_spec& ts) noexcept {
    const auto i = static_cast<std::size_t>(ts.rank);
    std::byte* b = w.direct_base[i];
    if (!b || !fits(w, ts)) return nullptr;
    if (w.tq[i].active && !w.hint_acc_unordered) return nullptr;
    reach_target(w, ts.rank);
    return b;
}

// A single naturally aligned element of 1-8 bytes read with MPI_NO_OP: one
// atomic load, without the target's accumulate lock. Every writer stores
// whole elements (one store each, or vector stores that do not tear an
// aligned element), so the read sees an old or a new element; with the
// hint accumulate_ops=same_op (no NO_OP reads race with writers) the lock
// is taken as for any other accumulate.
bool atomic_read(const void* from, void* to, uint64_t n) noexcept {
    if (reinterpret_cast<uintptr_t>(from) % n) return false;
    switch (n) {
        case 1: *static_cast<uint8_t*>(to) = __atomic_load_n(static_cast<const uint8_t*>(from), __ATOMIC_ACQUIRE); return true;
        case 2: { const uint16_t v = __atomic_load_n(static_cast<const uint16_t*>(from), __ATOMIC_ACQUIRE); std::memcpy(to, &v, 2); return true; }
        case 4: { const uint32_t v = __atomic_load_n(static_cast<const uint32_t*>(from), __ATOMIC_ACQUIRE); std::memcpy(to, &v, 4); return true; }
        case 8: { const uint64_t v = __atomic_load_n(static_cast<const uint64_t*>(from), __ATOMIC_ACQUIRE); std::memcpy(to, &v, 8); return true; }
        default: return false;
    }
}

// Derived types go by CMA only when their pieces average this many bytes
// (a system call moves at most max_segs pieces per side).
constexpr uint64_t cma_piece_min = 1024;

// t takes a CMA transfer of `total` bytes of (o, ts) now: it is a node peer
// of a Win_create window we may attach to, nothing to it is queued this
// epoch (order), the transfer is large, and it reached this epoch.
bool cma_target(win& w, const buf_spec& o, const target_spec& ts, uint64_t total) noexcept {
    const auto i = static_cast<std::size_t>(ts.rank);
    if (total < cma_min() || !w.cma_ok[i] || w.tq[i].active || !fits(w, ts)) return false;
    if (!o.t->contiguous() || !ts.t->contiguous()) {
        const int64_t pieces = std::max(dame::iov_count(*o.t, o.count), dame::iov_count(*ts.t, ts.count));
        if (pieces <= 0 || total / static_cast<uint64_t>(pieces) < cma_piece_min) return false;
    }
    reach_target(w, ts.rank);
    remap_credit(w, ts.rank, total);
    return true;
}

}  // namespace

bool in_target_window(const win& w, const target_spec& ts) noexcept { return fits(w, ts); }

// One copy between the origin stream (o) and the target stream (ts) in t's
// process. False when the kernel refuses (then CMA is off for t from now on;
// part of the range may have been copied, which the message path then
// simply repeats).
bool cma_copy(win& w, const buf_spec& o, const target_spec& ts, bool write, uint64_t total) noexcept {
    const cma_pass pass(w, ts.rank);
    const pid_t pid = w.peers[static_cast<std::size_t>(ts.rank)].pid;
    auto* rbase = reinterpret_cast<void*>(w.peers[static_cast<std::size_t>(ts.rank)].base + ts.disp);
    dame::iov_seg ls[max_segs], rs[max_segs];
    iovec li[max_segs], ri[max_segs];
    uint64_t off = 0;
    while (off < total) {
        const auto at = static_cast<int64_t>(off);
        const auto left = static_cast<int64_t>(total - off);
        dame::iov_result r = dame::to_iov(*ts.t, rbase, ts.count, at, rs, max_segs, left);
        const dame::iov_result l = dame::to_iov(*o.t, o.buf, o.count, at, ls, max_segs, r.bytes);
        if (l.bytes < r.bytes) r = dame::to_iov(*ts.t, rbase, ts.count, at, rs, max_segs, l.bytes);
        if (l.bytes <= 0 || r.bytes != l.bytes) break;
        for (int64_t k = 0; k < l.segs; ++k) li[k] = {ls[k].base, ls[k].len};
        for (int64_t k = 0; k < r.segs; ++k) ri[k] = {rs[k].base, rs[k].len};
        const auto nl = static_cast<unsigned long>(l.segs), nr = static_cast<unsigned long>(r.segs);
        const ssize_t got = write ? ::process_vm_writev(pid, li, nl, ri, nr, 0)
                                  : ::process_vm_readv(pid, li, nl, ri, nr, 0);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) break;
        off += static_cast<uint64_t>(got);
    }
    if (off == total) return true;
    w.cma_ok[static_cast<std::size_t>(ts.rank)] = 0;
    return false;
}

namespace {

// Accumulate (result: get_accumulate's old values, contiguous, or null) of
// contiguous data into a node peer of a Win_create window by CMA: per
// chunk, under the target's accumulate lock (the one it takes to apply
// accumulates that arrive as messages), read the target range, combine,
// write it back. Returns the bytes done; a refusal leaves the rest
// untouched for the message path (`torn`: the kernel refused in the middle
// of writing a chunk back, which cannot be repaired).
uint64_t cma_acc(win& w, const buf_spec& o, const target_spec& ts, dev::op_id opv,
                 dame::basic_kind k, uint64_t total, std::byte* result, bool& torn) noexcept {
    const uint64_t es = dev::packed_size(k);
    const uint64_t chunk = std::max<uint64_t>((uint64_t{128} << 10) / es * es, es);
    const auto t = static_cast<std::size_t>(ts.rank);
    const pid_t pid = w.peers[t].pid;
    const uint64_t remote = w.peers[t].base + ts.disp + static_cast<uint64_t>(ts.t->true_lb());
    const std::byte* in = opv == dev::op_id::no_op
                              ? nullptr
                              : static_cast<const std::byte*>(o.buf) + o.t->true_lb();
    util::scratch tmp;
    std::byte* b = tmp.get(static_cast<std::size_t>(std::min(chunk, total)));
    torn = false;
    if (!b) return 0;
    uint64_t off = 0;
    while (off < total) {
        const uint64_t n = std::min(chunk, total - off);
        slot_lock lock(w.slot_of[t]);
        if (shm::cma::read(pid, b, remote + off, n) != status::ok) break;
        if (result) std::memcpy(result + off, b, n);
        if (!in) {
            off += n;
            continue;
        }
        dev::op_apply(opv, k, in + off, b, n / es);
        if (shm::cma::write(pid, remote + off, b, n) != status::ok) {
            torn = true;
            break;
        }
        off += n;
    }
    if (off < total) w.cma_ok[t] = 0;
    return off;
}

}  // namespace

void pack_origin(const buf_spec& o, uint64_t off, uint64_t n, std::byte* dst) noexcept {
    if (o.t->contiguous())
        std::memcpy(dst, static_cast<const std::byte*>(o.buf) + o.t->true_lb() + off, n);
    else
        dame::pack_range(*o.t, o.buf, o.count, static_cast<int64_t>(off), static_cast<int64_t>(n), dst);
}

op* new_slot(win& w, const buf_spec& r, uint64_t expect, int target) noexcept {
    op* s = op_pool().alloc();
    if (!s) return nullptr;
    s->w = &w;
    if (__builtin_expect(w.async != 0, 0)) {  // passive target / PSCW: counted per target
        // (slot_done reads these only in such an epoch, which outlives its replies)
        s->target = target;
        ++w.tsync[static_cast<std::size_t>(target)].replies;
        s->req = w.req;  // MPI_Rget & co. complete with their reply
        if (w.req) ++w.req->cc;
    }
    s->buf = const_cast<void*>(r.buf);
    s->count = r.count;
    s->t = r.t;
    r.t->retain();
    s->expect = expect;
    s->got = 0;
    s->pull_rank = -1;
    s->pull_to = 0;
    ++w.pending_resp;
    return s;
}

// Appends the records covering target-stream bytes [start, total) of ts.
status encode(win& w, const rec_desc& d, const target_spec& ts, uint64_t total,
              uint64_t start) noexcept {
    const int t = ts.rank;
    const bool contig = ts.t->contiguous();
    const std::size_t fixed =
        sizeof(rec) + (d.slot ? sizeof(rec_resp) : 0) + (contig ? 0 : sizeof(uint64_t));
    dame::iov_seg segs[max_segs];
    uint64_t off = start;
    bool fresh = false;  // the batch was just cut: a piece must fit now
    while (off < total) {
        const std::size_t avail = batch_free(w, t, fixed + 16 * 4 + 256);
        uint64_t want = total - off;
        int64_t nseg = 0;
        if (avail > fixed + d.esize + 16) {
            const uint64_t room = avail - fixed;
            if (contig) {
                want = std::min<uint64_t>({want, d.data ? room : max_rec_bytes, max_rec_bytes});
            } else {
                const int64_t cap_segs = std::min<int64_t>(max_segs, static_cast<int64_t>(
                                                                         (room - d.esize) / sizeof(seg)));
                const uint64_t cap = d.data ? room - static_cast<uint64_t>(cap_segs) * sizeof(seg)
                                            : max_rec_bytes;
                auto* b = reinterpret_cast<void*>(fake_base + ts.disp);
                dame::iov_result r = dame::to_iov(*ts.t, b, ts.count, static_cast<int64_t>(off), segs,
                                                  cap_segs, static_cast<int64_t>(std::min(want, cap)));
                want = static_cast<uint64_t>(r.bytes);
                if (want % d.esize) {  // a piece boundary inside an element: cut before it
                    want -= want % d.esize;
                    if (want)
                        r = dame::to_iov(*ts.t, b, ts.count, static_cast<int64_t>(off), segs, cap_segs,
                                         static_cast<int64_t>(want));
                }
                nseg = r.segs;
            }
            want -= want % d.esize;
        } else {
            want = 0;
        }
        if (want == 0) {
            if (fresh) return status::intern;  // cannot happen with sane limits
            const status s = batch_cut(w, t);
            if (s != status::ok) return s;
            fresh = true;
            continue;
        }
        fresh = false;
        const std::size_t need = fixed + static_cast<std::size_t>(nseg) * sizeof(seg) +
                                 (d.data ? pad8(want) : 0);
        std::byte* p = batch_room(w, t, need);
        if (!p) return status::no_mem;
        const rec r{d.kind, static_cast<uint8_t>(d.flags | (contig ? 0 : rf_segs)), d.opv, d.basic,
                    static_cast<uint32_t>(want),
                    contig ? ts.disp + static_cast<uint64_t>(ts.t->true_lb()) + off : 0};
        std::memcpy(p, &r, sizeof r);
        p += sizeof r;
        if (d.slot) {
            const rec_resp rr{op_id_of(d.slot), 0, off};
            std::memcpy(p, &rr, sizeof rr);
            p += sizeof rr;
        }
        if (!contig) {
            const uint64_t n = static_cast<uint64_t>(nseg);
            std::memcpy(p, &n, sizeof n);
            p += sizeof n;
            for (int64_t i = 0; i < nseg; ++i) {
                const seg sg{reinterpret_cast<uint64_t>(segs[i].base) - fake_base, segs[i].len};
                std::memcpy(p, &sg, sizeof sg);
                p += sizeof sg;
            }
        }
        if (d.data) pack_origin(*d.data, off, want, p);
        off += want;
    }
    return status::ok;
}

namespace {

// The common fine-grained case: contiguous data on both sides, a node peer
// we may access directly now. Its target address, or null.
[[gnu::always_inline]] inline std::byte* direct_contig(win& w, const buf_spec& o,
                                                       const target_spec& ts) noexcept {
    if (ts.rank == w.rank() || !o.t->contiguous() || !ts.t->contiguous()) return nullptr;
    std::byte* b = direct(w, ts);
    return b ? b + ts.disp + ts.t->true_lb() : nullptr;
}

// A contiguous put of `total` bytes to node peer ts.rank (cma_target said
// yes) as a split single copy: an rk_pull record for [h, total) goes out
// now, and we write [0, h) meanwhile; the fence waits for the target's
// reply (pending_resp), as our buffer must stay until it has read.
bool cma_split_put(win& w, const buf_spec& o, const target_spec& ts, uint64_t total) noexcept {
    const uint64_t h = (total / 2) & ~uint64_t{4095};
    if (h == 0 || total - h > UINT32_MAX) return false;
    const int t = ts.rank;
    const auto* src = static_cast<const std::byte*>(o.buf) + o.t->true_lb();
    const uint64_t disp = ts.disp + static_cast<uint64_t>(ts.t->true_lb());
    out_msg* m = msg_alloc(&w, w.lpid(t), am_rma_batch);
    if (!m) return false;
    std::byte* p = m->own.grow(sizeof(rec) + sizeof(rec_resp) + sizeof(uint64_t));
    op* slot = p ? new_slot(w, o, 0, t) : nullptr;
    if (!slot) {
        msg_free(m);
        return false;
    }
    slot->buf = const_cast<std::byte*>(src + h);
    slot->count = static_cast<int64_t>(total - h);
    slot->pull_rank = t;
    slot->pull_to = w.peers[static_cast<std::size_t>(t)].base + disp + h;
    const rec r{rk_pull, 0, 0, 0, static_cast<uint32_t>(total - h), disp + h};
    const rec_resp rr{op_id_of(slot), 0, 0};
    const auto from = static_cast<uint64_t>(reinterpret_cast<uintptr_t>(src + h));
    std::memcpy(p, &r, sizeof r);
    std::memcpy(p + sizeof r, &rr, sizeof rr);
    std::memcpy(p + sizeof r + sizeof rr, &from, sizeof from);
    m->iov[0] = {m->own.data(), m->own.size()};
    m->niov = 1;
    if (batch_send_now(w, t, m) != status::ok) {  // no reply will come: copy it all ourselves
        slot_done(w, slot);
        return false;
    }
    ++w.pulls;
    // Our half. If the kernel refuses, it goes by message, queued after the pull.
    if (!cma_copy(w, o, ts, true, h)) {
        const rec_desc d{rk_put, 0, 0, 0, &o, nullptr, 1};
        (void)encode(w, d, ts, h);
    }
    return true;
}

// Small contiguous puts to another rank, below every size that picks
// another way (put() already ruled out direct access): one record at the end
// of the target's open batch, as encode() would write it, without its
// general bookkeeping (docs/rma.md, "Many small operations").
[[gnu::always_inline]] inline bool small_put(win& w, const buf_spec& o, const target_spec& ts,
                                             uint64_t total) noexcept {
    if (total <= small_put_max() && o.t->contiguous() && ts.t->contiguous() && ts.rank != w.rank()) {
        if (std::byte* p = batch_room_open(w, ts.rank, sizeof(rec) + pad8(total))) {
            const rec r{rk_put, 0, 0, 0, static_cast<uint32_t>(total),
                        ts.disp + static_cast<uint64_t>(ts.t->true_lb())};
            std::memcpy(p, &r, sizeof r);
            util::small_copy(p + sizeof r, static_cast<const std::byte*>(o.buf) + o.t->true_lb(), total);
            return true;
        }
    }
    return false;
}

// A put's records: large contiguous ones zero copy from the user's buffer
// in message-sized pieces, the rest packed.
status put_records(win& w, const buf_spec& o, const target_spec& ts, uint64_t total) noexcept {
    if (o.t->contiguous() && ts.t->contiguous() && total >= zcopy_min() &&
        two_segments(w.lpid(ts.rank))) {
        const std::size_t piece = batch_limit(w, ts.rank) - sizeof(rec);
        const auto* src = static_cast<const std::byte*>(o.buf) + o.t->true_lb();
        const uint64_t disp = ts.disp + static_cast<uint64_t>(ts.t->true_lb());
        for (uint64_t off = 0; off < total; off += piece) {
            const uint64_t n = std::min<uint64_t>(piece, total - off);
            out_msg* m = msg_alloc(&w, w.lpid(ts.rank), am_rma_batch);
            if (!m) return status::no_mem;
            std::byte* p = m->own.grow(sizeof(rec));
            if (!p) {
                msg_free(m);
                return status::no_mem;
            }
            const rec r{rk_put, 0, 0, 0, static_cast<uint32_t>(n), disp + off};
            std::memcpy(p, &r, sizeof r);
            m->iov[0] = {m->own.data(), sizeof r};
            m->iov[1] = {src + off, n};
            m->niov = 2;
            if (w.req) {  // MPI_Rput: complete once the pieces left
                m->user_req = w.req;
                ++w.req->cc;
            }
            const status s = batch_append(w, ts.rank, m);
            if (s != status::ok) return s;
        }
        return status::ok;
    }
    const rec_desc d{rk_put, 0, 0, 0, &o, nullptr, 1};
    return encode(w, d, ts, total);
}

// A get's record and reply slot (ourselves in a dynamic window: applied now).
[[gnu::always_inline]] inline status get_records(win& w, const buf_spec& o, const target_spec& ts,
                                                 uint64_t total) noexcept {
    op* slot = new_slot(w, o, total, ts.rank);
    if (!slot) return status::no_mem;
    const rec_desc d{rk_get, 0, 0, 0, nullptr, slot, 1};
    return encode(w, d, ts, total);
}

// Everything else put and get do (total > 0), out of line so that the
// direct path needs no stack frame.
[[gnu::noinline]] status put_other(win& w, const buf_spec& o, const target_spec& ts,
                                   uint64_t total) noexcept {
    if (__builtin_expect(w.async != 0, 0)) return async_put(w, o, ts, total);
    if (small_put(w, o, ts, total)) return status::ok;
    if (ts.rank == w.rank()) {
        if (w.fl == flavor::dynamic) return put_msg(w, o, ts, total);  // the records check the address
        dame::copy(*o.t, o.buf, o.count, *ts.t, w.base + ts.disp, ts.count);
        return status::ok;
    }
    if (std::byte* b = direct(w, ts)) {  // same node: a plain copy now
        if (o.t->contiguous() && ts.t->contiguous())
            util::small_copy(b + ts.disp + ts.t->true_lb(), static_cast<const std::byte*>(o.buf) + o.t->true_lb(),
                       total);
        else
            dame::copy(*o.t, o.buf, o.count, *ts.t, b + ts.disp, ts.count);
        return status::ok;
    }
    if (cma_target(w, o, ts, total)) {
        auto& st = dev::g_dev.stats;
        if (total >= cma_split_min() && cma_split_min() > 0 && o.t->contiguous() && ts.t->contiguous() &&
            split_ok(w, ts.rank) && cma_split_put(w, o, ts, total)) {
            ++st.rma_cma_puts;
            ++st.rma_split_puts;
            split_seen(w, ts.rank, true);
            return status::ok;
        }
        if (cma_copy(w, o, ts, true, total)) {
            ++st.rma_cma_puts;
            return status::ok;
        }
    }
    if (fits(w, ts) && native_record(w, o, ts, total, true)) return status::ok;
    return put_records(w, o, ts, total);
}

[[gnu::noinline]] status get_other(win& w, const buf_spec& o, const target_spec& ts,
                                   uint64_t total) noexcept {
    if (__builtin_expect(w.async != 0, 0)) return async_get(w, o, ts, total);
    if (ts.rank == w.rank()) {
        if (w.fl == flavor::dynamic) return get_msg(w, o, ts, total);  // the records check the address
        dame::copy(*ts.t, w.base + ts.disp, ts.count, *o.t, const_cast<void*>(o.buf), o.count);
        return status::ok;
    }
    if (std::byte* b = direct(w, ts)) {
        if (o.t->contiguous() && ts.t->contiguous())
            util::small_copy(static_cast<std::byte*>(const_cast<void*>(o.buf)) + o.t->true_lb(),
                       b + ts.disp + ts.t->true_lb(), total);
        else
            dame::copy(*ts.t, b + ts.disp, ts.count, *o.t, const_cast<void*>(o.buf), o.count);
        return status::ok;
    }
    if (cma_target(w, o, ts, total) && cma_copy(w, o, ts, false, total)) return status::ok;
    if (fits(w, ts) && native_record(w, o, ts, total, false)) return status::ok;
    return get_records(w, o, ts, total);
}

}  // namespace

status put_msg(win& w, const buf_spec& o, const target_spec& ts, uint64_t total) noexcept {
    if (ts.rank == w.rank()) {  // ourselves in a dynamic window: checked and applied now
        const rec_desc d{rk_put, 0, 0, 0, &o, nullptr, 1};
        const status s = encode(w, d, ts, total);
        return s != status::ok ? s : self_flush(w);
    }
    if (small_put(w, o, ts, total)) return status::ok;
    return put_records(w, o, ts, total);
}

status get_msg(win& w, const buf_spec& o, const target_spec& ts, uint64_t total) noexcept {
    const status s = get_records(w, o, ts, total);
    if (s != status::ok || ts.rank != w.rank()) return s;
    return self_flush(w);  // ourselves in a dynamic window: checked and applied now
}

status put(win& w, const buf_spec& o, const target_spec& ts) noexcept {
    ++w.ops;
    const uint64_t total = static_cast<uint64_t>(o.count) * static_cast<uint64_t>(o.t->size());
    if (total == 0) return status::ok;
    if (std::byte* t = direct_contig(w, o, ts)) {
        util::small_copy(t, static_cast<const std::byte*>(o.buf) + o.t->true_lb(), total);
        return status::ok;
    }
    return put_other(w, o, ts, total);
}

status get(win& w, const buf_spec& o, const target_spec& ts) noexcept {
    ++w.ops;
    const uint64_t total = static_cast<uint64_t>(o.count) * static_cast<uint64_t>(o.t->size());
    if (total == 0) return status::ok;
    if (std::byte* t = direct_contig(w, o, ts)) {
        util::small_copy(static_cast<std::byte*>(const_cast<void*>(o.buf)) + o.t->true_lb(), t, total);
        return status::ok;
    }
    return get_other(w, o, ts, total);
}

status accumulate(win& w, const buf_spec& o, const target_spec& ts, dev::op_id opv) noexcept {
    ++w.ops;
    const uint64_t total = static_cast<uint64_t>(o.count) * static_cast<uint64_t>(o.t->size());
    if (total == 0 || opv == dev::op_id::no_op) return status::ok;
    const dame::basic_kind k = ts.t->basic();
    if (o.t->contiguous() && ts.t->contiguous()) {
        if (std::byte* b = direct_acc(w, ts)) {
            slot_lock lock(w.slot_of[static_cast<std::size_t>(ts.rank)]);
            dev::op_apply(opv, k, static_cast<const std::byte*>(o.buf) + o.t->true_lb(),
                          b + ts.disp + ts.t->true_lb(), total / dev::packed_size(k));
            return status::ok;
        }
    }
    if (__builtin_expect(w.async != 0, 0)) return async_acc(w, o, ts, opv, total);
    uint64_t done = 0;
    if (o.t->contiguous() && ts.t->contiguous() && cma_acc_on() && cma_target(w, o, ts, total)) {
        bool torn = false;
        done = cma_acc(w, o, ts, opv, k, total, nullptr, torn);
        if (done == total) return status::ok;
        if (torn) return status::io;
    }
    const rec_desc d{rk_acc, 0, static_cast<uint8_t>(opv), static_cast<uint8_t>(k), &o, nullptr,
                     dev::packed_size(k)};
    const status s = encode(w, d, ts, total, done);
    if (s != status::ok || ts.rank != w.rank()) return s;
    return self_flush(w);
}

status get_accumulate(win& w, const buf_spec& o, const buf_spec& r, const target_spec& ts,
                      dev::op_id opv) noexcept {
    ++w.ops;
    const uint64_t total = static_cast<uint64_t>(ts.count) * static_cast<uint64_t>(ts.t->size());
    if (total == 0) return status::ok;
    const dame::basic_kind k = ts.t->basic();
    const bool nodata = opv == dev::op_id::no_op;
    if ((nodata || o.t->contiguous()) && r.t->contiguous() && ts.t->contiguous()) {
        if (std::byte* b = direct_acc(w, ts)) {
            std::byte* t = b + ts.disp + ts.t->true_lb();
            if (nodata && total <= 8 && !w.hint_same_op &&
                atomic_read(t, static_cast<std::byte*>(const_cast<void*>(r.buf)) + r.t->true_lb(), total))
                return status::ok;
            slot_lock lock(w.slot_of[static_cast<std::size_t>(ts.rank)]);
            std::memcpy(static_cast<std::byte*>(const_cast<void*>(r.buf)) + r.t->true_lb(), t, total);
            if (!nodata)
                dev::op_apply(opv, k, static_cast<const std::byte*>(o.buf) + o.t->true_lb(), t,
                              total / dev::packed_size(k));
            return status::ok;
        }
    }
    if (__builtin_expect(w.async != 0, 0)) return async_getacc(w, o, r, ts, opv, total);
    uint64_t done = 0;
    if ((nodata || (o.t->contiguous() && cma_acc_on())) && r.t->contiguous() && ts.t->contiguous() &&
        cma_target(w, nodata ? buf_spec{r.buf, r.count, r.t} : o, ts, total)) {
        bool torn = false;
        std::byte* res = static_cast<std::byte*>(const_cast<void*>(r.buf)) + r.t->true_lb();
        done = cma_acc(w, o, ts, opv, k, total, res, torn);
        if (done == total) return status::ok;
        if (torn) return status::io;
    }
    op* slot = new_slot(w, r, total, ts.rank);
    if (!slot) return status::no_mem;
    slot->got = done;  // the reply slot completes at `total` result bytes
    const rec_desc d{rk_getacc, static_cast<uint8_t>(nodata ? rf_nodata : 0),
                     static_cast<uint8_t>(opv), static_cast<uint8_t>(k), nodata ? nullptr : &o, slot,
                     dev::packed_size(k)};
    const status s = encode(w, d, ts, total, done);
    if (s != status::ok || ts.rank != w.rank()) return s;
    return self_flush(w);
}

status compare_and_swap(win& w, const void* origin, const void* compare, void* result,
                        const dame::type* t, int rank, uint64_t disp) noexcept {
    ++w.ops;
    const auto n = static_cast<std::size_t>(t->size());
    if (std::byte* b = direct_acc(w, target_spec{rank, disp, 1, t})) {
        std::byte* tp = b + disp + t->true_lb();
        slot_lock lock(w.slot_of[static_cast<std::size_t>(rank)]);
        std::memcpy(result, tp, n);
        if (std::memcmp(tp, compare, n) == 0) std::memcpy(tp, origin, n);
        return status::ok;
    }
    if (__builtin_expect(w.async != 0, 0)) return async_cas(w, origin, compare, result, t, rank, disp);
    return cas_msg(w, origin, compare, result, t, rank, disp);
}

status cas_msg(win& w, const void* origin, const void* compare, void* result,
               const dame::type* t, int rank, uint64_t disp) noexcept {
    const auto n = static_cast<std::size_t>(t->size());
    const buf_spec r{result, 1, t};
    op* slot = new_slot(w, r, n, rank);
    if (!slot) return status::no_mem;
    const std::size_t need = sizeof(rec) + sizeof(rec_resp) + pad8(2 * n);
    std::byte* p = batch_room(w, rank, need);
    if (!p) return status::no_mem;
    const rec rc{rk_cas, 0, 0, static_cast<uint8_t>(t->basic()), static_cast<uint32_t>(n),
                 disp + static_cast<uint64_t>(t->true_lb())};
    const rec_resp rr{op_id_of(slot), 0, 0};
    std::memcpy(p, &rc, sizeof rc);
    std::memcpy(p + sizeof rc, &rr, sizeof rr);
    std::memcpy(p + sizeof rc + sizeof rr, static_cast<const std::byte*>(origin) + t->true_lb(), n);
    std::memcpy(p + sizeof rc + sizeof rr + n, static_cast<const std::byte*>(compare) + t->true_lb(), n);
    if (rank != w.rank()) return status::ok;
    return self_flush(w);
}

void slot_done(win& w, op* s) noexcept {
    --w.pending_resp;
    if (__builtin_expect(w.async != 0, 0)) {  // made in this async epoch (new_slot)
        --w.tsync[static_cast<std::size_t>(s->target)].replies;
        if (s->req) dev::request_complete(s->req);
    }
    s->t->release();
    op_pool().free(s);
}

}  // namespace ch4lite::rma
