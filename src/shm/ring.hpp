// SPDX-License-Identifier: MIT
// One direction of one pair of local ranks: a single-producer single-consumer
// ring in the shared segment (docs/shm.md, "Rings").
//
//   ctrl   one 128-byte block written only by the receiver: how far it has
//          consumed (cells and data bytes). The sender reads it only when
//          the ring looks full, so in steady state nobody pulls it across.
//   cells  a power-of-two array of 64-byte cells, one per message. A cell
//          holds the AM header and, when they fit (<= 54 bytes together),
//          the payload: the smallest messages cost one cache line (the
//          "fast box"). `seq` is written last, with release semantics; the
//          receiver waits for seq == position + 1, so a cell left over from
//          the previous lap (seq == position + 1 - cells) is never taken
//          for a new one, and the receiver never writes into cells.
//   data   a power-of-two byte ring for payloads that do not fit in a cell.
//          Chunks are allocated and freed in FIFO order (the receiver
//          copies a payload out during dispatch), never straddle the end
//          (place() skips to the start) and are 64-byte aligned. Both sides
//          compute a chunk's position with the same place() from their own
//          counters, so no offset travels in the cell.
//
// Positions are 64-bit counters that never wrap in practice. Everything here
// is inline and free of syscalls, locks and allocation (STYLE.md #9).
#pragma once
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "netmod/netmod.hpp"
#include "util/small_copy.hpp"
#include "util/status.hpp"
#include "util/stream_copy.hpp"

namespace ch4lite::shm {

// Copies into the data ring with non-temporal stores (util/stream_copy.hpp).
using util::stream_copy;
using util::stream_fence;

inline constexpr std::size_t line = 64;

struct alignas(line) cell {
    static constexpr std::size_t inline_bytes = 54;
    uint32_t seq;   // position + 1 once the cell is filled (release store)
    uint32_t plen;  // payload bytes
    uint8_t handler;
    uint8_t hlen;
    std::byte bytes[inline_bytes];  // header, then the payload when it fits
};
static_assert(sizeof(cell) == line);

// Written by the receiver only; 128 bytes so the adjacent-line prefetcher
// does not pair it with the first cell.
struct alignas(128) ring_ctrl {
    uint64_t cells_done;  // cells consumed
    uint64_t data_done;   // data-ring bytes released (absolute position)
};

// Where one ring lives (pointers into the mapping).
struct ring_view {
    ring_ctrl* ctrl = nullptr;
    cell* cells = nullptr;
    std::byte* data = nullptr;
    uint32_t cell_mask = 0;   // cells - 1
    uint64_t data_bytes = 0;  // power of two
};

inline bool fits_inline(std::size_t hlen, std::size_t plen) noexcept {
    return hlen + plen <= cell::inline_bytes;
}

// Start of a data chunk of `len` bytes at or after absolute position `pos`:
// chunks never straddle the end of the ring.
inline uint64_t place(uint64_t pos, std::size_t len, uint64_t ring) noexcept {
    const uint64_t off = pos & (ring - 1);
    return off + len > ring ? pos + (ring - off) : pos;
}
inline uint64_t chunk_end(uint64_t start, std::size_t len) noexcept {
    return (start + len + line - 1) & ~static_cast<uint64_t>(line - 1);
}
// Largest payload the data ring can always take once drained: with len <=
// ring / 2, the skip place() may add still fits (docs/shm.md).
inline std::size_t max_payload(uint64_t ring) noexcept { return static_cast<std::size_t>(ring / 2); }

// Payload copies of inline cells: no library call (a call to memcpy cost
// ~25 instructions per message here, measured with callgrind).
using util::small_copy;

// ---- sender side --------------------------------------------------------

struct tx_ring {
    ring_view v;
    uint64_t cells_sent = 0;
    uint64_t cells_done_seen = 0;  // cached copy of v.ctrl->cells_done
    uint64_t data_tail = 0;
    uint64_t data_done_seen = 0;   // cached copy of v.ctrl->data_done
    std::size_t stream_min = SIZE_MAX;  // payload segments from here: stream_copy
    // Adaptive stores (docs/shm-protocols.md, "Cached or streamed stores"): payloads
    // of at least adapt_min bytes are written with cached stores and timed
    // (those below adapt_time_min only every 8th) while that runs faster than
    // adapt_rate bytes per ns; after two slower ones in a row the next
    // adapt_nt go streamed, then cached stores are tried again.
    std::size_t adapt_min = SIZE_MAX;
    std::size_t adapt_time_min = 16384;
    double adapt_rate = 6.0;     // bytes per ns (6 GB/s)
    uint32_t adapt_nt = 1024;
    uint32_t nt_left = 0;        // streamed copies before the next trial
    uint32_t slow_seen = 0;      // slow cached copies in a row
    uint32_t untimed = 0;        // untimed cached copies since the last timed one
    bool prefaulted = false;     // tx_prefault ran
    static constexpr uint32_t time_every = 8;  // below adapt_time_min: untimed == 7 times the next
};

// Typed payloads from typed_stage_min to typed_stage_max bytes are packed
// on the stack (or in scratch memory) and copied into the ring backward
// (transport::am_send_packed), and those from typed_unstage_min to below
// util::backward_rx_max are unpacked on the stack after a backward copy out
// of it (dev::recv_direct), instead of packing or unpacking 4-40-byte pieces
// straight in the ring: DDTBench NAS_LU_y/64 (2560 bytes) derived-type /
// packed ping-pong 1.40 -> 1.12 (fast placement), 1.49 -> 1.00 (slow);
// NAS_MG_y/34 (4096 bytes, sender only) 1.16 -> 0.90 (fast), 0.98 -> 1.06
// (slow); NAS_LU_y/33 (1320 bytes, receiver only) 0.98 -> 0.86 (fast).
// Below 2 KiB the sender's staging lost; at 480 bytes each side's did; from
// 5 KiB on the sender's lost as much as it gained; the receiver's at 4096
// bytes lost in both placements (docs/ddt-wire.md, "Direct paths and staging on the node").
inline constexpr std::size_t typed_stage_min = 2048, typed_stage_max = 4096;
inline constexpr std::size_t typed_unstage_min = 1024;

// A copy into memory another process reads: streamed from stream_min bytes
// on, else cached stores, backward from util::backward_min bytes (docs/shm-protocols.md,
// "Copy routine"). Returns whether it streamed (the caller then fences
// before publishing).
inline bool copy_for_reader(std::byte* dst, const void* src, std::size_t n,
                            std::size_t stream_min) noexcept {
    const auto* s = static_cast<const std::byte*>(src);
    if (n >= stream_min) {
        stream_copy(dst, s, n);
        return true;
    }
    if (n >= util::backward_min)
        util::backward_copy(dst, s, n);
    else
        std::memcpy(dst, s, n);
    return false;
}

// Cached copies into memory another process reads are judged by their
// speed (the rings' adaptive stores below, the staged broadcast's fill in
// coll/stage.cpp; docs/shm-protocols.md, "Cached or streamed stores"):
// copy_ran_slow runs copy() and says whether it moved n bytes slower than
// bytes_per_ns; second_slow_in_a_row counts slow ones in a row (a fast one
// resets) and says when the second came, starting anew.
template <class Copy>
inline bool copy_ran_slow(std::size_t n, double bytes_per_ns, Copy&& copy) noexcept {
    using clock = std::chrono::steady_clock;
    const auto t0 = clock::now();
    copy();
    const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(clock::now() - t0).count();
    return static_cast<double>(ns) * bytes_per_ns > static_cast<double>(n);
}
inline bool second_slow_in_a_row(uint32_t& streak, bool slow) noexcept {
    if (!slow) {
        streak = 0;
        return false;
    }
    if (++streak < 2) return false;
    streak = 0;
    return true;
}

inline void copy_iov(std::byte* dst, const nm::iov* payload, int niov,
                     std::size_t stream_min = SIZE_MAX) noexcept {
    bool streamed = false;
    for (int i = 0; i < niov; ++i) {
        streamed = copy_for_reader(dst, payload[i].base, payload[i].len, stream_min) || streamed;
        dst += payload[i].len;
    }
    if (streamed) stream_fence();  // the cell's release store must not pass them
}

// Enqueues one message: header + a payload of plen bytes that fill(dst)
// writes in place (a copy of segments, or a datatype's packed bytes: one copy
// from the user's buffer into the ring). ok: copied, buffers reusable;
// again: the ring is full (retry after the receiver consumed); invalid: the
// payload can never fit.
template <class Fill>
inline status tx_send_fill(tx_ring& t, uint8_t handler, const void* hdr, std::size_t hlen,
                           std::size_t plen, Fill&& fill) noexcept {
    if (__builtin_expect(t.cells_sent - t.cells_done_seen > t.v.cell_mask, 0)) {
        t.cells_done_seen = std::atomic_ref(t.v.ctrl->cells_done).load(std::memory_order_acquire);
        if (t.cells_sent - t.cells_done_seen > t.v.cell_mask) return status::again;
    }
    cell& c = t.v.cells[t.cells_sent & t.v.cell_mask];
    if (__builtin_expect(fits_inline(hlen, plen), 1)) {
        std::memcpy(c.bytes, hdr, hlen);
        fill(c.bytes + hlen);
    } else {
        if (hlen > cell::inline_bytes || plen > max_payload(t.v.data_bytes)) return status::invalid;
        const uint64_t start = place(t.data_tail, plen, t.v.data_bytes);
        const uint64_t end = chunk_end(start, plen);
        if (end - t.data_done_seen > t.v.data_bytes) {
            t.data_done_seen = std::atomic_ref(t.v.ctrl->data_done).load(std::memory_order_acquire);
            if (end - t.data_done_seen > t.v.data_bytes) return status::again;
        }
        fill(t.v.data + (start & (t.v.data_bytes - 1)));
        std::memcpy(c.bytes, hdr, hlen);
        t.data_tail = end;
    }
    c.plen = static_cast<uint32_t>(plen);
    c.handler = handler;
    c.hlen = static_cast<uint8_t>(hlen);
    std::atomic_ref(c.seq).store(static_cast<uint32_t>(t.cells_sent + 1), std::memory_order_release);
    ++t.cells_sent;
    return status::ok;
}

// A timed cached copy into the ring was (not) slow: two slow ones in a row
// switch the next adapt_nt copies to streamed stores. A slow copy, or the
// end of a streamed stretch, has the next cached copy timed whatever its
// size.
inline void tx_note_cached(tx_ring& t, bool slow) noexcept {
    t.untimed = slow ? tx_ring::time_every - 1 : 0;
    if (second_slow_in_a_row(t.slow_seen, slow)) t.nt_left = t.adapt_nt;
}

// One payload of a streamed stretch went (streamed, or by another way than
// the ring): at the stretch's end the next cached copy is timed.
inline void tx_count_streamed(tx_ring& t) noexcept {
    if (--t.nt_left == 0) t.untimed = tx_ring::time_every - 1;
}

// Whether cached stores into the ring run at speed, i.e. it is not in a
// streamed stretch (adaptive stores on). While it is, the call counts as
// one payload of the stretch, so a sender that stays off the ring while it
// runs slow still tries it again.
inline bool tx_runs_cached(tx_ring& t) noexcept {
    if (t.adapt_min == SIZE_MAX) return false;  // CH4LITE_SHM_STORE_ADAPT=0
    if (t.nt_left == 0) return true;
    tx_count_streamed(t);
    return false;
}

// Before the first timed copy: the untouched rest of the data area's first
// lap is faulted in, so that copy is not timed slow for its page faults
// (which would start a streamed stretch in any placement). Positions from
// data_tail on were never written in the first lap, so nothing the
// receiver may read lies there.
inline void tx_prefault(tx_ring& t) noexcept {
    t.prefaulted = true;
    constexpr uint64_t page = 4096;
    for (uint64_t pos = (t.data_tail + page - 1) & ~(page - 1); pos < t.v.data_bytes; pos += page)
        *reinterpret_cast<volatile unsigned char*>(t.v.data + pos) = 0;
}

// Enqueues one message whose payload (plen >= stream_min) fill(dst, streamed)
// writes: streamed (non-temporal, fenced by fill) below adapt_min and while
// nt_left lasts, else with cached stores, timed (tx_note_cached) from
// adapt_time_min bytes on and every time_every-th copy below. A timed copy
// is timed_fill(dst), which returns whether the stores ran slow; `sampled`:
// every time_every-th copy is timed whatever its size (timed_fill costs
// more than fill).
template <class Fill, class TimedFill>
inline status tx_send_large(tx_ring& t, uint8_t handler, const void* hdr, std::size_t hlen,
                            std::size_t plen, Fill&& fill, TimedFill&& timed_fill,
                            bool sampled) noexcept {
    if (plen < t.adapt_min || t.nt_left > 0) {
        const status s = tx_send_fill(t, handler, hdr, hlen, plen,
                                      [&](std::byte* dst) noexcept { fill(dst, true); });
        if (s == status::ok && plen >= t.adapt_min) tx_count_streamed(t);
        return s;
    }
    if ((sampled || plen < t.adapt_time_min) && t.untimed < tx_ring::time_every - 1) {
        const status s = tx_send_fill(t, handler, hdr, hlen, plen,
                                      [&](std::byte* dst) noexcept { fill(dst, false); });
        if (s == status::ok) ++t.untimed;
        return s;
    }
    if (__builtin_expect(!t.prefaulted, 0) && t.data_tail < t.v.data_bytes) tx_prefault(t);
    bool slow = false;
    const status s = tx_send_fill(t, handler, hdr, hlen, plen,
                                  [&](std::byte* dst) noexcept { slow = timed_fill(dst); });
    if (s == status::ok) tx_note_cached(t, slow);
    return s;
}

// The same for a fill that only copies: the timed copy is the fill itself.
template <class Fill>
inline status tx_send_large(tx_ring& t, uint8_t handler, const void* hdr, std::size_t hlen,
                            std::size_t plen, Fill&& fill) noexcept {
    return tx_send_large(
        t, handler, hdr, hlen, plen, fill,
        [&](std::byte* dst) noexcept { return copy_ran_slow(plen, t.adapt_rate, [&] { fill(dst, false); }); },
        false);
}

// Enqueues one message (header + payload of plen bytes in niov segments).
inline status tx_send(tx_ring& t, uint8_t handler, const void* hdr, std::size_t hlen,
                      const nm::iov* payload, int niov, std::size_t plen) noexcept {
    if (__builtin_expect(plen >= t.adapt_min && plen >= t.stream_min, 0))
        return tx_send_large(t, handler, hdr, hlen, plen, [&](std::byte* dst, bool streamed) noexcept {
            copy_iov(dst, payload, niov, streamed ? 0 : SIZE_MAX);
        });
    return tx_send_fill(t, handler, hdr, hlen, plen,
                        [&](std::byte* dst) noexcept { copy_iov(dst, payload, niov, t.stream_min); });
}

// The common smallest message, fully inline: a header of fixed type H and
// a payload that fit one cell together. ok or again (ring full).
template <class H>
[[gnu::always_inline]] inline status tx_send_cell(tx_ring& t, uint8_t handler, const H& hdr,
                                                  const void* payload, std::size_t plen) noexcept {
    static_assert(sizeof(H) <= cell::inline_bytes);
    if (__builtin_expect(t.cells_sent - t.cells_done_seen > t.v.cell_mask, 0)) {
        t.cells_done_seen = std::atomic_ref(t.v.ctrl->cells_done).load(std::memory_order_acquire);
        if (t.cells_sent - t.cells_done_seen > t.v.cell_mask) return status::again;
    }
    cell& c = t.v.cells[t.cells_sent & t.v.cell_mask];
    __builtin_memcpy(c.bytes, &hdr, sizeof(H));
    small_copy(c.bytes + sizeof(H), payload, plen);
    c.plen = static_cast<uint32_t>(plen);
    c.handler = handler;
    c.hlen = static_cast<uint8_t>(sizeof(H));
    std::atomic_ref(c.seq).store(static_cast<uint32_t>(t.cells_sent + 1), std::memory_order_release);
    ++t.cells_sent;
    return status::ok;
}

// ---- receiver side ------------------------------------------------------

struct rx_ring {
    ring_view v;
    uint64_t cells_done = 0;
    uint64_t data_done = 0;
};

// The next filled cell, or nullptr. Touches one cache line.
inline const cell* rx_peek(const rx_ring& x) noexcept {
    const cell& c = x.v.cells[x.cells_done & x.v.cell_mask];
    return std::atomic_ref(const_cast<uint32_t&>(c.seq)).load(std::memory_order_acquire) ==
                   static_cast<uint32_t>(x.cells_done + 1)
               ? &c
               : nullptr;
}

// The payload of the peeked cell c; *data_end receives where the receiver's
// data counter moves once the message is consumed.
inline const std::byte* rx_payload(const rx_ring& x, const cell& c, uint64_t& data_end) noexcept {
    if (fits_inline(c.hlen, c.plen)) {
        data_end = x.data_done;
        return c.bytes + c.hlen;
    }
    const uint64_t start = place(x.data_done, c.plen, x.v.data_bytes);
    data_end = chunk_end(start, c.plen);
    return x.v.data + (start & (x.v.data_bytes - 1));
}

// Releases the peeked cell (and its data chunk) to the sender. Release
// order: our reads of the payload happen before the sender may reuse it.
inline void rx_pop(rx_ring& x, uint64_t data_end) noexcept {
    ++x.cells_done;
    if (data_end != x.data_done) {
        x.data_done = data_end;
        std::atomic_ref(x.v.ctrl->data_done).store(data_end, std::memory_order_release);
    }
    std::atomic_ref(x.v.ctrl->cells_done).store(x.cells_done, std::memory_order_release);
}

}  // namespace ch4lite::shm
