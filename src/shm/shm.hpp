// SPDX-License-Identifier: MIT
// THE shared-memory contract: everything the device knows about shm
// (docs/shm.md). Like the netmod it is a concrete class the device holds by
// value and calls inline: no virtual call, no function pointer.
//
//   init(bootstrap&)   finds the ranks of this node, creates (one rank) or
//                      attaches (the others) the node's segment, unlinks it
//                      once all attached, probes cross-memory attach.
//                      Collective over the job when shm is enabled.
//   finalize()         unmaps.
//   local(peer)        THE locality bit: world rank `peer` is reached through
//                      shm (same node, segment attached; includes ourselves)
//   am_send(...)       one active message to a local peer, copied into the
//                      ring before it returns: ok (buffers reusable), again
//                      (ring full: the device defers and retries after
//                      progress) or invalid (payload above am_payload_max).
//                      Per-pair FIFO, like the netmod's am_ordered.
//   progress()         delivers arrived messages to dev::am_dispatch, in
//                      order per sender; returns how many.
//   eager_max(), chunk(), cma_send(), cma_ok(peer), cma_read(...)
//                      what the device's protocols need for large messages:
//                      eager limit, pipelined chunk size, whether senders
//                      offer their buffer for a single copy, whether we can
//                      read a peer's memory, and the single copy itself.
#pragma once
#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "dame/dame.hpp"
#include "netmod/netmod.hpp"
#include "shm/cma.hpp"
#include "shm/ring.hpp"
#include "shm/segment.hpp"
#include "util/status.hpp"

namespace ch4lite::dev {
class bootstrap;
}

namespace ch4lite::shm {

// Unpacks a typed payload of n bytes from a ring chunk into (t, buf, count):
// from typed_unstage_min to below 4 KiB after a backward copy into a stack
// buffer (ring.hpp), else straight from the ring. Out of line, as the
// staged send.
void unpack_from_ring(const dame::type& t, void* buf, int64_t count, const void* payload,
                      std::size_t n) noexcept;

class transport {
  public:
    status init(dev::bootstrap& bs, std::string& error);
    status finalize();

    // Enabled by CH4LITE_SHM (default on); the same on every rank.
    static bool enabled() noexcept;
    // This rank has local peers reached through a segment.
    bool active() const noexcept { return nlocal_ > 1; }
    int local_ranks() const noexcept { return static_cast<int>(nlocal_); }
    bool local(int peer) const noexcept { return local_idx_[static_cast<std::size_t>(peer)] >= 0; }
    // Copies of at least this many bytes into memory another rank reads go
    // with non-temporal stores (CH4LITE_SHM_STREAM_MIN; stream_copy).
    std::size_t stream_min() const noexcept { return tx_.empty() ? SIZE_MAX : tx_[0].stream_min; }

    // Whether copying through the ring to peer beats the kernel's single
    // copy right now (tx_runs_cached; docs/shm-protocols.md, "Ring or single copy").
    bool ring_runs_fast(int peer) noexcept {
        return tx_runs_cached(tx_[static_cast<std::size_t>(local_idx_[static_cast<std::size_t>(peer)])]);
    }

    status am_send(int peer, uint8_t handler, const void* hdr, std::size_t hlen,
                   const nm::iov* payload, int niov) noexcept {
        std::size_t plen = 0;
        for (int i = 0; i < niov; ++i) plen += payload[i].len;
        return tx_send(tx_[static_cast<std::size_t>(local_idx_[static_cast<std::size_t>(peer)])],
                       handler, hdr, hlen, payload, niov, plen);
    }

    // One AM of header type H whose header and payload fit one cell
    // (fits_inline(sizeof(H), plen) must hold): ok or again.
    template <class H>
    [[gnu::always_inline]] status am_send_cell(int peer, uint8_t handler, const H& hdr,
                                               const void* payload, std::size_t plen) noexcept {
        return tx_send_cell(
            tx_[static_cast<std::size_t>(local_idx_[static_cast<std::size_t>(peer)])], handler,
            hdr, payload, plen);
    }

    // One AM whose payload is bytes [offset, offset + len) of the packed
    // stream of (t, buf, count), packed by DAME straight into the ring; from
    // typed_stage_min to typed_stage_max packed on the stack first and copied
    // into the ring backward; from the ring's stream_min on, while cached
    // stores into the ring run slow (tx_send_large), packed in cache first
    // and streamed into the ring (the reason is stream_copy's); the cached
    // ones up to typed_stage_max staged too.
    status am_send_packed(int peer, uint8_t handler, const void* hdr, std::size_t hlen,
                          const dame::type& t, const void* buf, int64_t count, int64_t offset,
                          std::size_t len) noexcept {
        tx_ring& tx = tx_[static_cast<std::size_t>(local_idx_[static_cast<std::size_t>(peer)])];
        if (len >= tx.stream_min)
            return am_send_packed_large(tx, handler, hdr, hlen, t, buf, count, offset, len);
        if (len >= typed_stage_min && len <= typed_stage_max)
            return am_send_packed_staged(tx, handler, hdr, hlen, t, buf, count, offset, len);
        return tx_send_fill(tx, handler, hdr, hlen, len, [&](std::byte* dst) noexcept {
            (void)dame::pack_range(t, buf, count, offset, static_cast<int64_t>(len), dst);
        });
    }

    int progress() noexcept {
        int n = 0;
        for (uint32_t i = 0; i < nlocal_; ++i)
            if (rx_peek(rx_[i])) n += drain(i);
        return n;
    }
    // progress() of the rings outside [lo, hi), and dispatching ring i:
    // the direct receive polls its own rings first (dev::recv_direct).
    int progress_except(uint32_t lo, uint32_t hi) noexcept {
        int n = 0;
        for (uint32_t i = 0; i < lo; ++i)
            if (rx_peek(rx_[i])) n += drain(i);
        for (uint32_t i = hi; i < nlocal_; ++i)
            if (rx_peek(rx_[i])) n += drain(i);
        return n;
    }
    int dispatch(uint32_t i) noexcept { return drain(i); }

    // The direct receive (dev::recv_direct) reads the next cell of one ring
    // itself instead of dispatching it: local index of a (local) world rank,
    // how many rings, the head cell of ring i (nullptr: empty, or a drain is
    // running), its sender, the head cell's payload (in the cell or in the
    // data ring; *data_end is for pop) and popping the head cell.
    uint32_t local_index(int peer) const noexcept {
        return static_cast<uint32_t>(local_idx_[static_cast<std::size_t>(peer)]);
    }
    uint32_t rings() const noexcept { return nlocal_; }
    const cell* head(uint32_t i) const noexcept { return draining_ ? nullptr : rx_peek(rx_[i]); }
    int sender(uint32_t i) const noexcept { return world_of_[i]; }
    const std::byte* head_payload(uint32_t i, const cell& c, uint64_t& data_end) const noexcept {
        return rx_payload(rx_[i], c, data_end);
    }
    void pop(uint32_t i, uint64_t data_end) noexcept { rx_pop(rx_[i], data_end); }

    std::size_t eager_max() const noexcept { return eager_max_; }
    std::size_t chunk() const noexcept { return chunk_; }
    std::size_t am_payload_max() const noexcept { return payload_max_; }
    bool cma_send() const noexcept { return cma_send_; }
    bool cma_ok(int peer) const noexcept {
        return cma_ok_[static_cast<std::size_t>(local_idx_[static_cast<std::size_t>(peer)])] != 0;
    }
    status cma_read(int peer, void* dst, uint64_t src, std::size_t n) const noexcept;
    // Rendezvous sends to peer that offered it our buffer and are not yet
    // done with it (am_start_rts .. SYNC_ACK or CTS): while there are any,
    // the peer is busy copying from us, so a message from it is not split
    // (docs/shm-protocols.md, "Large messages").
    uint32_t& cma_offers(int peer) noexcept {
        return cma_offers_[static_cast<std::size_t>(local_idx_[static_cast<std::size_t>(peer)])];
    }
    // The other way: n bytes from src into the peer's address dst (the
    // second half of a split single copy, done by the sender).
    status cma_write(int peer, uint64_t dst, const void* src, std::size_t n) const noexcept;
    bool is_self(int peer) const noexcept { return local_index(peer) == me_; }
    // Single copy into local segments: reads n bytes starting at the peer's
    // address src into the iovec list (at most IOV_MAX entries).
    status cma_readv(int peer, const nm::iov* dst, int niov, uint64_t src,
                     std::size_t n) const noexcept;

    // One line for the library version and -v: "on (4 local ranks, cma)" etc.
    std::string describe() const;

  private:
    int drain(uint32_t i) noexcept;  // out of line: dispatch what ring i holds
    // Out of line: their staging buffers stay out of am_send_packed's frame.
    status am_send_packed_staged(tx_ring& tx, uint8_t handler, const void* hdr, std::size_t hlen,
                                 const dame::type& t, const void* buf, int64_t count,
                                 int64_t offset, std::size_t len) noexcept;
    status am_send_packed_large(tx_ring& tx, uint8_t handler, const void* hdr, std::size_t hlen,
                                const dame::type& t, const void* buf, int64_t count,
                                int64_t offset, std::size_t len) noexcept;
    status create_or_attach(dev::bootstrap& bs, const std::vector<int>& locals,
                            std::string& error);
    void setup_rings();
    void probe_cma();

    uint32_t nlocal_ = 0;  // ranks sharing the segment (0: none; 1: a 1-rank job's own)
    uint32_t me_ = 0;      // my local index
    int world_rank_ = 0;
    bool inited_ = false;
    bool draining_ = false;
    bool cma_send_ = false;
    std::size_t eager_max_ = 0, chunk_ = 0, payload_max_ = 0;
    std::vector<int32_t> local_idx_;   // world rank -> local index, -1 = not local
    std::vector<int> world_of_;        // local index -> world rank
    std::vector<pid_t> pid_of_;        // local index -> pid
    std::vector<uint8_t> cma_ok_;      // local index -> we can read its memory
    std::vector<uint32_t> cma_offers_; // local index -> see cma_offers()
    std::vector<tx_ring> tx_;          // local index -> ring we write to it
    std::vector<rx_ring> rx_;          // local index -> ring it writes to us
    segment seg_;
    uint64_t cookie_ = 0;
    uint64_t probe_word_ = 0;          // peers read it through CMA at init
    std::string note_;                 // why shm is off on this node, if it is
};

}  // namespace ch4lite::shm
