// SPDX-License-Identifier: MIT
// Buffered mode (MPI-4.1 §3.6): the buffers attached with MPI_Buffer_attach
// (the process's) and MPI_Comm_attach_buffer (a communicator's), and the
// send that copies a message into one and lets it go on its own.
//
// A buffered send packs its message into a block of the attached buffer and
// starts an ordinary send of those bytes (so it keeps MPI order with the
// sender's other sends and any receive can take it: the wire carries the
// packed stream either way). The send request owns the block (a
// request_ext, freed with the request when the send completed), so the
// space comes back exactly when the transport is done with it, in any order.
// Blocks are placed first fit in address order and rounded up to 16 bytes:
// the per-message overhead in the attached buffer is at most 15 bytes (the
// bookkeeping lives outside it), within MPI_BSEND_OVERHEAD (512, fixed by
// the ABI). A small message to a rank on this node that the shm ring takes
// at once is sent straight from the user's buffer, after the space check,
// with no copy. MPI_BUFFER_AUTOMATIC: each message gets heap memory.
#pragma once
#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "api/dt.hpp"
#include "device/comm.hpp"
#include "device/request.hpp"

namespace ch4lite::api {

class bsend_buffer {
  public:
    static constexpr std::size_t align = 16;

    bsend_buffer(void* base, std::size_t size, bool automatic) noexcept
        : base_(static_cast<std::byte*>(base)), size_(size), automatic_(automatic) {}

    void* base() const noexcept { return automatic_ ? MPI_BUFFER_AUTOMATIC : base_; }
    std::size_t size() const noexcept { return size_; }
    bool automatic() const noexcept { return automatic_; }
    std::size_t pending() const noexcept { return pending_; }
    std::size_t used() const noexcept;

    // A block of at least n bytes (first fit): its memory, or nullptr when
    // no free block is large enough (or no memory for the bookkeeping).
    std::byte* alloc(std::size_t n) noexcept;
    // Gives back a block of alloc() (also one that was never sent).
    void release(std::byte* p) noexcept;
    // A send now owns block p: released when the send request is freed.
    [[nodiscard]] bool attach_to(dev::request* r, std::byte* p) noexcept;

    // Requests completed when no buffered send of this buffer is pending
    // (MPI_Buffer_iflush); done at once when none is.
    void add_flush_waiter(dev::request* r) noexcept;

  private:
    friend struct bsend_hold;
    void send_done(std::byte* p) noexcept;  // the send owning block p was freed

    struct block {
        std::size_t off;
        std::size_t len;
    };
    std::byte* base_;
    std::size_t size_;
    bool automatic_;
    std::vector<block> blocks_;  // in use, by offset
    std::size_t pending_ = 0;    // blocks owned by sends
    std::vector<dev::request*> flush_waiters_;
};

// The buffer a buffered send on communicator `comm` uses: the
// communicator's, else the process's; nullptr when neither is attached.
bsend_buffer* bsend_buffer_for(MPI_Comm comm) noexcept;

// MPI_Comm_free of comm: a buffer attached to it is detached (after its
// pending messages left), so a later communicator with the same handle
// value never finds it.
void bsend_comm_freed(MPI_Comm comm) noexcept;

// Buffered send after the argument checks (MPI_Bsend, MPI_Ibsend, the
// start of a MPI_Bsend_init request): copies the message into the buffer
// and starts it. With `request`, a completed request is returned (the
// message is buffered). Returns MPI_SUCCESS or the raised error.
int bsend_checked(const char* func, dev::comm& c, MPI_Comm comm, const void* buf, int64_t count,
                  const dt_info& d, std::size_t bytes, const void* start, int dest, int tag,
                  MPI_Request* request) noexcept;

}  // namespace ch4lite::api
