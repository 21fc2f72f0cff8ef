// SPDX-License-Identifier: MIT
#include "rma/target.hpp"

#include <mpi.h>

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstring>

#include "dame/basic.hpp"
#include "dame/dame.hpp"
#include "device/op.hpp"
#include "rma/pools.hpp"
#include "rma/queue.hpp"
#include "rma/win_internal.hpp"
#include "shm/cma.hpp"
#include "util/env.hpp"
#include "util/log.hpp"
#include "util/pool_buffer.hpp"
#include "util/small_copy.hpp"

namespace ch4lite::rma {

namespace {

// Where a record's stream lives in the window: one range, or pieces.
// Window offset -> address. A dynamic window's offsets are addresses (its
// base is null): computed in integers, not as arithmetic on a null pointer.
inline std::byte* addr(std::byte* base, uint64_t off) noexcept {
    return reinterpret_cast<std::byte*>(reinterpret_cast<uintptr_t>(base) + off);
}

struct region {
    std::byte* base;
    uint64_t disp;
    uint64_t bytes;
    const std::byte* segs;  // nseg x seg (unaligned), or null
    uint64_t nseg;

    seg at(uint64_t i) const noexcept {
        seg s;
        std::memcpy(&s, segs + i * sizeof(seg), sizeof s);
        return s;
    }
    // Moves stream bytes [off, off + len) between the window and `buf`.
    template <bool Out>
    void move(uint64_t off, std::byte* buf, uint64_t len) const noexcept {
        if (!segs) {
            if (Out)
                std::memcpy(buf, addr(base, disp + off), len);
            else
                std::memcpy(addr(base, disp + off), buf, len);
            return;
        }
        uint64_t pos = 0;
        for (uint64_t i = 0; i < nseg && len; ++i) {
            const seg s = at(i);
            if (pos + s.len <= off) {
                pos += s.len;
                continue;
            }
            const uint64_t skip = off > pos ? off - pos : 0;
            const uint64_t n = std::min(s.len - skip, len);
            if (Out)
                std::memcpy(buf, addr(base, s.off + skip), n);
            else
                std::memcpy(addr(base, s.off + skip), buf, n);
            buf += n;
            len -= n;
            off += n;
            pos += s.len;
        }
    }
};

// [off, off + len) lies in an attached region of a dynamic window (offsets
// are addresses there; win::regions is sorted and disjoint).
bool attached(const win& w, uint64_t off, uint64_t len) noexcept {
    auto it = std::upper_bound(w.regions.begin(), w.regions.end(), off,
                               [](uint64_t v, const dyn_region& r) { return v < r.lo; });
    if (it == w.regions.begin()) return false;
    --it;
    return off >= it->lo && len <= it->hi - off && off <= it->hi;
}

bool piece_ok(const win& w, uint64_t off, uint64_t len) noexcept {
    if (w.fl == flavor::dynamic) return attached(w, off, len);
    return off <= w.size && len <= w.size - off;
}

bool in_window(const win& w, const rec& r, const region& g) noexcept {
    if (!g.segs) return piece_ok(w, r.disp, r.bytes);
    uint64_t sum = 0;
    for (uint64_t i = 0; i < g.nseg; ++i) {
        const seg s = g.at(i);
        if (!piece_ok(w, s.off, s.len)) return false;
        sum += s.len;
    }
    return sum == r.bytes;
}

// Element checks of accumulate-like records: a real kind, an op that
// applies to it, whole elements.
bool elements_ok(const rec& r) noexcept {
    if (r.basic >= static_cast<uint8_t>(dame::basic_kind::count_)) return false;
    const auto k = static_cast<dame::basic_kind>(r.basic);
    const std::size_t es = dev::packed_size(k);
    if (es == 0 || r.bytes % es) return false;
    if (r.kind == rk_cas) return r.bytes == es;
    if (r.op >= static_cast<uint8_t>(dev::op_id::count_)) return false;
    return dev::op_applies(static_cast<dev::op_id>(r.op), k);
}

[[gnu::cold]] void refuse(win& w, int src, const rec& r, const char* why) noexcept {
    ++w.refused;
    if (w.error != status::ok) return;
    w.error = status::range;
    char text[200];
    std::snprintf(text, sizeof text,
                  "rank %d accessed %" PRIu32 " bytes at offset %" PRIu64
                  " of this window (%" PRIu64 " bytes): %s",
                  src, r.bytes, r.disp, w.size, why);
    w.error_text = text;
}

void acc_apply(const region& g, dev::op_id o, dame::basic_kind k, const std::byte* data) noexcept {
    const std::size_t es = dev::packed_size(k);
    if (!g.segs) {
        dev::op_apply(o, k, data, addr(g.base, g.disp), g.bytes / es);
        return;
    }
    bool whole = true;
    for (uint64_t i = 0; i < g.nseg && whole; ++i) whole = g.at(i).len % es == 0;
    if (whole) {
        for (uint64_t i = 0; i < g.nseg; ++i) {
            const seg s = g.at(i);
            dev::op_apply(o, k, data, addr(g.base, s.off), s.len / es);
            data += s.len;
        }
        return;
    }
    // An element split over pieces (a pair type with padding): gather the
    // target elements, combine, scatter back.
    util::scratch tmp;
    std::byte* t = tmp.get(g.bytes);
    if (!t) return;
    g.move<true>(0, t, g.bytes);
    dev::op_apply(o, k, data, t, g.bytes / es);
    g.move<false>(0, t, g.bytes);
}

// Appends a reply for stream bytes [0, g.bytes) of a record; with `zero`
// the data is zeros (refused record) and `flags` says why.
void reply(win& w, int src, const rec_resp& rr, const region& g, uint32_t flags,
           bool zero_copy_ok) noexcept {
    const std::size_t lim = batch_limit(w, src);
    buffer& b = w.replies[static_cast<std::size_t>(src)];
    if (zero_copy_ok && !flags && src != w.rank() && g.bytes > lim / 2 && !g.segs) {
        (void)replies_flush(w, src);  // keep replies in order
        for (uint64_t off = 0; off < g.bytes; off += lim) {
            const uint64_t n = std::min<uint64_t>(lim, g.bytes - off);
            out_msg* m = msg_alloc(&w, w.lpid(src), am_rma_resp_data);
            if (!m) return;  // the origin's fence would hang: out of messages is fatal below
            const resp_data_hdr h{rr.id, 0, rr.offset + off};
            std::memcpy(m->hdr, &h, sizeof h);
            m->hlen = sizeof h;
            m->iov[0] = {addr(g.base, g.disp + off), n};
            m->niov = 1;
            (void)post(m);
        }
        return;
    }
    uint64_t off = 0;
    do {
        if (b.size() + sizeof(resp_rec) + 64 > lim && !b.empty()) (void)replies_flush(w, src);
        const uint64_t room = lim > b.size() + sizeof(resp_rec) ? lim - b.size() - sizeof(resp_rec) : 64;
        const uint64_t n = std::min<uint64_t>(room, g.bytes - off);
        std::byte* p = b.grow(sizeof(resp_rec) + pad8(n));
        if (!p) return;
        const resp_rec h{rr.id, static_cast<uint32_t>(n), rr.offset + off, flags, 0};
        std::memcpy(p, &h, sizeof h);
        if (flags)
            std::memset(p + sizeof h, 0, n);
        else
            g.move<true>(off, p + sizeof h, n);
        ++w.reply_recs[static_cast<std::size_t>(src)];
        off += n;
    } while (off < g.bytes);
}

}  // namespace

uint32_t op_id_of(const op* o) noexcept {
    return o->pool_index | (static_cast<uint32_t>(o->pool_gen) << util::handle_index_bits);
}
op* op_from_id(uint32_t id) noexcept {
    op* o = op_pool().at(id & util::handle_max_index);
    return (o && o->pool_gen == (id >> util::handle_index_bits)) ? o : nullptr;
}

bool apply_batch(win& w, int src, const std::byte* p, std::size_t n, uint32_t nrec) noexcept {
    const std::byte* end = p + n;
    for (uint32_t i = 0; i < nrec; ++i) {
        rec r;
        rec_resp rr{};
        if (static_cast<std::size_t>(end - p) < sizeof r) return false;
        std::memcpy(&r, p, sizeof r);
        p += sizeof r;
        // The common record, a plain put inside the window: copied at once.
        // Anything else (or a put that fails a check) takes the general way.
        if (r.kind == rk_put && r.flags == 0 && r.bytes <= static_cast<uint64_t>(end - p) &&
            piece_ok(w, r.disp, r.bytes)) {
            util::small_copy(addr(w.base, r.disp), p, r.bytes);
            p += std::min<uint64_t>(pad8(r.bytes), static_cast<uint64_t>(end - p));
            continue;
        }
        const bool replies = rec_replies(r.kind);
        if (replies) {
            if (static_cast<std::size_t>(end - p) < sizeof rr) return false;
            std::memcpy(&rr, p, sizeof rr);
            p += sizeof rr;
        }
        region g{w.base, r.disp, r.bytes, nullptr, 0};
        if (r.flags & rf_segs) {
            if (static_cast<std::size_t>(end - p) < sizeof(uint64_t)) return false;
            std::memcpy(&g.nseg, p, sizeof g.nseg);
            p += sizeof g.nseg;
            if (g.nseg > static_cast<uint64_t>(end - p) / sizeof(seg)) return false;
            g.segs = p;
            p += g.nseg * sizeof(seg);
        }
        const bool carries = r.kind == rk_put || r.kind == rk_acc ||
                             (r.kind == rk_getacc && !(r.flags & rf_nodata));
        const uint64_t dlen = carries ? r.bytes
                              : r.kind == rk_cas  ? 2ull * r.bytes
                              : r.kind == rk_pull ? sizeof(uint64_t)
                                                  : 0;
        if (static_cast<uint64_t>(end - p) < dlen) return false;
        const std::byte* data = p;
        p += std::min<uint64_t>(pad8(dlen), static_cast<uint64_t>(end - p));
        if (r.kind < rk_put || r.kind > rk_pull || (r.kind == rk_pull && g.segs)) return false;

        uint32_t bad = 0;
        if (!in_window(w, r, g)) {
            refuse(w, src, r, "outside the window");
            bad = rsf_range;
        } else if ((r.kind == rk_acc || r.kind == rk_getacc || r.kind == rk_cas) && !elements_ok(r)) {
            refuse(w, src, r, "invalid operation or element type");
            bad = rsf_bad;
        }
        if (bad) {
            if (replies) reply(w, src, rr, g, bad, false);
            continue;
        }
        const auto k = static_cast<dame::basic_kind>(r.basic);
        const auto o = static_cast<dev::op_id>(r.op);
        // Node peers accumulate into our memory directly under this lock.
        // In an epoch opened with MPI_MODE_NOPUT nothing updates our memory,
        // so a read (get_accumulate with MPI_NO_OP) needs no lock.
        const bool reads = r.kind == rk_getacc && !carries &&
                           ((w.fence_assert | (w.exposed ? w.post_assert : 0)) & MPI_MODE_NOPUT);
        slot_lock lock((r.kind == rk_acc || r.kind == rk_getacc || r.kind == rk_cas) && !reads ? w.my_slot
                                                                                            : nullptr);
        switch (r.kind) {
            case rk_put: g.move<false>(0, const_cast<std::byte*>(data), r.bytes); break;
            case rk_get: reply(w, src, rr, g, 0, true); break;
            case rk_acc: acc_apply(g, o, k, data); break;
            case rk_getacc:
                reply(w, src, rr, g, 0, false);  // the old values, before the update
                if (carries) acc_apply(g, o, k, data);
                break;
            case rk_cas: {
                std::byte* t = addr(w.base, r.disp);
                reply(w, src, rr, g, 0, false);
                if (std::memcmp(t, data + r.bytes, r.bytes) == 0) std::memcpy(t, data, r.bytes);
                break;
            }
            case rk_pull: {  // read the origin's half of a split put (no reply data)
                uint64_t from;
                std::memcpy(&from, data, sizeof from);
                const auto s = static_cast<std::size_t>(src);
                split_seen(w, src, false);
                uint32_t fl = rsf_pull;
                static const bool pull = util::env_bool("CH4LITE_RMA_CMA_PULL", true);
                if (pull && w.cma_ok[s] && shm::cma::read(w.peers[s].pid, w.base + r.disp, from, r.bytes) == status::ok)
                    fl = 0;
                reply(w, src, rr, region{w.base, r.disp, 0, nullptr, 0}, fl, false);
                break;
            }
        }
    }
    return true;
}

status replies_flush(win& w, int src) noexcept {
    buffer& b = w.replies[static_cast<std::size_t>(src)];
    uint32_t& nrec = w.reply_recs[static_cast<std::size_t>(src)];
    if (b.empty()) return status::ok;
    if (src == w.rank()) {
        on_replies(b.data(), b.size(), nrec);
        b.clear();
        nrec = 0;
        return status::ok;
    }
    out_msg* m = msg_alloc(&w, w.lpid(src), am_rma_resp);
    if (!m) return status::no_mem;
    m->own.swap(b);
    b.clear();
    const resp_hdr h{nrec};
    std::memcpy(m->hdr, &h, sizeof h);
    m->hlen = sizeof h;
    m->iov[0] = {m->own.data(), m->own.size()};
    m->niov = 1;
    nrec = 0;
    return post(m);
}

namespace {

void deliver(op* slot, uint64_t off, const std::byte* data, uint64_t len, uint32_t flags) noexcept {
    win& w = *slot->w;
    if (slot->pull_rank >= 0) --w.pulls;
    if (flags == rsf_pull) {  // the target could not read our half of a split put: write it
        const auto t = static_cast<std::size_t>(slot->pull_rank);
        if (shm::cma::write(w.peers[t].pid, slot->pull_to, slot->buf, static_cast<std::size_t>(slot->count)) !=
                status::ok &&
            w.error == status::ok) {
            w.error = status::io;
            w.error_text = "a put could be copied neither by its target nor by its origin";
        }
    } else if (flags) {
        if (w.error == status::ok) {
            w.error = status::range;
            w.error_text = flags & rsf_range ? "a target refused an access outside its window"
                                             : "a target refused an invalid accumulate";
        }
    } else if (off <= slot->expect && len <= slot->expect - off) {
        if (slot->t->contiguous())
            std::memcpy(static_cast<std::byte*>(slot->buf) + slot->t->true_lb() + off, data, len);
        else
            dame::unpack_range(*slot->t, slot->buf, slot->count, static_cast<int64_t>(off),
                               static_cast<int64_t>(len), data);
    }
    slot->got += len;
    if (slot->got >= slot->expect) slot_done(w, slot);
}

}  // namespace

void on_replies(const std::byte* p, std::size_t n, uint32_t nrec) noexcept {
    const std::byte* end = p + n;
    for (uint32_t i = 0; i < nrec; ++i) {
        resp_rec h;
        if (static_cast<std::size_t>(end - p) < sizeof h) break;
        std::memcpy(&h, p, sizeof h);
        p += sizeof h;
        if (static_cast<std::size_t>(end - p) < h.bytes) break;
        if (op* slot = op_from_id(h.id))
            deliver(slot, h.offset, p, h.bytes, h.flags);
        else
            util::warn("rma: reply for an unknown operation %u", h.id);
        p += std::min<std::size_t>(pad8(h.bytes), static_cast<std::size_t>(end - p));
    }
}

void on_reply_data(const resp_data_hdr& h, const void* data, std::size_t len) noexcept {
    if (op* slot = op_from_id(h.id))
        deliver(slot, h.offset, static_cast<const std::byte*>(data), len, 0);
    else
        util::warn("rma: reply data for an unknown operation %u", h.id);
}

}  // namespace ch4lite::rma
