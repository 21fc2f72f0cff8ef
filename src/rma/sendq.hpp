// SPDX-License-Identifier: MIT
// Outgoing RMA messages. An out_msg (a pool object) holds one active message:
// its header, a payload that is either its own byte buffer (aggregated
// records) or a reference to memory that outlives the send (a large put's
// origin buffer, a large get's window piece), and, while the netmod owns it,
// the device request whose completion frees it.
//
// post() sends at once when the transport can take the message, queues it
// on back-pressure (one FIFO, so messages to a target never overtake each
// other: accumulate order depends on it) and retries from pump(). Nothing
// blocks inside a transport call. Every message counts in its window's
// `inflight` until it is gone, so a fence or Win_free can wait for them.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "device/request.hpp"
#include "netmod/netmod.hpp"
#include "util/ilist.hpp"
#include "util/pool.hpp"
#include "util/status.hpp"

namespace ch4lite::rma {

class win;

// A growable byte buffer that keeps its capacity across epochs (no malloc
// in the steady state of a fence loop). Contents are 8-byte aligned.
class buffer {
  public:
    buffer() = default;
    ~buffer() { std::free(p_); }
    buffer(const buffer&) = delete;
    buffer& operator=(const buffer&) = delete;
    void swap(buffer& o) noexcept {
        std::swap(p_, o.p_);
        std::swap(len_, o.len_);
        std::swap(cap_, o.cap_);
    }
    std::byte* data() const noexcept { return p_; }
    std::size_t size() const noexcept { return len_; }
    bool empty() const noexcept { return len_ == 0; }
    void clear() noexcept { len_ = 0; }
    // n more bytes at the end (uninitialized); nullptr when out of memory.
    std::byte* grow(std::size_t n) noexcept {
        if (len_ + n > cap_ && !reserve(len_ + n)) return nullptr;
        std::byte* at = p_ + len_;
        len_ += n;
        return at;
    }
    void shrink_to(std::size_t n) noexcept { len_ = n; }
    bool reserve(std::size_t n) noexcept;

  private:
    std::byte* p_ = nullptr;
    std::size_t len_ = 0, cap_ = 0;
};

struct out_msg : util::pool_object {
    util::ilist_node link;   // window's target queue, the send FIFO
    win* w = nullptr;
    int peer = 0;            // world rank
    uint8_t handler = 0;
    uint8_t hlen = 0;
    uint8_t niov = 0;
    bool counted = false;    // an am_rma_batch the target counts
    alignas(8) std::byte hdr[40];
    nm::iov iov[3];
    buffer own;              // owned payload (iov[0] points into it when used)
    dev::request* req = nullptr;  // while the netmod sends it
    dev::request* user_req = nullptr;  // MPI_Rput: completed when this message is gone
};

// Allocates an out_msg for `w` to world rank `peer`; nullptr when the pool
// is exhausted.
out_msg* msg_alloc(win* w, int peer, uint8_t handler) noexcept;
// Returns a message that was never posted.
void msg_free(out_msg* m) noexcept;

// Sends or queues m; afterwards the queue owns it. Errors other than
// back-pressure are returned (the message is dropped).
status post(out_msg* m) noexcept;
// Retries queued messages, reaps finished ones; returns events handled.
int pump() noexcept;
// Messages still queued or in flight (all windows).
bool sends_idle() noexcept;

// Bits of dev::g_dev.rma_poll (why device progress calls rma::hook).
inline constexpr uint32_t poll_sends = 1u << 0;    // messages queued or in flight
inline constexpr uint32_t poll_waiters = 1u << 1;  // lock requests waiting (target side)

// Payload limit of one AM to world rank `peer` (shm or netmod).
std::size_t msg_limit(int peer) noexcept;

}  // namespace ch4lite::rma
