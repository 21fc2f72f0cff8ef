// SPDX-License-Identifier: MIT
// Posted and unexpected queues for messages the device matches itself (the
// AM path of a netmod without native tagged messaging, and shared memory).
//
// Order: both queues are FIFO and searched from the front, and a netmod
// delivers the AMs of one sender in order, so MPI's non-overtaking rule holds
// per (source, communicator). Queues are per context id, so traffic of one
// communicator never scans another's entries.
#pragma once
#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "device/request.hpp"
#include "util/ilist.hpp"
#include "util/pool.hpp"

namespace ch4lite::dev {

// A message that arrived before its receive was posted.
struct unexpected_msg : util::pool_object {
    static constexpr std::size_t inline_bytes = 192;

    util::ilist_node link;
    uint32_t context = 0;
    int src_rank = 0;
    int tag = 0;
    int src_lpid = 0;
    bool rts = false;       // rendezvous: data still at the sender
    uint32_t flags = 0;
    uint32_t sreq_id = 0;
    std::size_t size = 0;   // message bytes
    uint64_t raddr = 0;     // rts: sender's buffer offered for a single copy (shm)
    std::byte* data = nullptr;  // eager payload: inline_data or heap
    std::byte inline_data[inline_bytes];

    void release_data() noexcept;
};

util::object_pool<unexpected_msg>& unexpected_pool() noexcept;

inline bool match_ok(int want_rank, int want_tag, int rank, int tag) noexcept {
    return (want_rank == MPI_ANY_SOURCE || want_rank == rank) &&
           (want_tag == MPI_ANY_TAG || want_tag == tag);
}

class match_queues {
  public:
    // Removes and returns the first posted receive matching (ctx, rank, tag).
    request* take_posted(uint32_t ctx, int rank, int tag) noexcept;
    // Removes and returns the first unexpected message matching the pattern.
    unexpected_msg* take_unexpected(uint32_t ctx, int rank, int tag) noexcept;
    // Finds without removing (probe).
    unexpected_msg* find_unexpected(uint32_t ctx, int rank, int tag) noexcept;

    // False: no memory for the context's queues (its first receive).
    [[nodiscard]] bool post(request* r) noexcept {
        ctx_lists* l = lists(r->context);
        if (!l) return false;
        l->posted.push_back(r);
        return true;
    }
    // An arriving message cannot be refused: no memory for its context's
    // queues is fatal, as is none for its data (am_on_eager).
    void add_unexpected(unexpected_msg* m) noexcept;
    // Removes a posted receive (cancel). False if it is no longer posted.
    bool unpost(request* r) noexcept;
    // Removes and returns the unexpected message that sender request
    // sreq_id of local process src_lpid announced (an RTS or a synchronous
    // eager message, which its sender waits on), or nullptr when it is not
    // (or no longer) queued (a cancelled send, am_on_cancel).
    unexpected_msg* take_sent(int src_lpid, uint32_t sreq_id) noexcept;
    std::size_t unexpected_count() const noexcept;
    // Frees the unexpected messages of every context for which stale(ctx)
    // says nobody can receive them any more (garbage collection,
    // device/pool_gc.cpp); returns how many.
    std::size_t drop_unexpected_if(bool (*stale)(uint32_t ctx)) noexcept;
    // Cheap emptiness tests of one context's queues (dev::recv_direct).
    bool posted_empty(uint32_t ctx) const noexcept {
        const ctx_lists* l = ctx < by_ctx_.size() ? by_ctx_[ctx].get() : nullptr;
        return !l || l->posted.empty();
    }
    bool unexpected_empty(uint32_t ctx) const noexcept {
        const ctx_lists* l = ctx < by_ctx_.size() ? by_ctx_[ctx].get() : nullptr;
        return !l || l->unexpected.empty();
    }
    void clear() noexcept;

  private:
    struct ctx_lists {
        util::ilist<request, &request::qlink> posted;
        util::ilist<unexpected_msg, &unexpected_msg::link> unexpected;
    };
    // The queues of ctx, made on first use; nullptr when memory ran out.
    ctx_lists* lists(uint32_t ctx) noexcept;
    ctx_lists* find(uint32_t ctx) noexcept {
        return ctx < by_ctx_.size() ? by_ctx_[ctx].get() : nullptr;
    }
    std::vector<std::unique_ptr<ctx_lists>> by_ctx_;
};

// The process's queues (a plain global so the hot path needs no call).
extern match_queues g_match_queues;
inline match_queues& queues() noexcept { return g_match_queues; }

}  // namespace ch4lite::dev
