// SPDX-License-Identifier: MIT
// Context ids (MPICH's mask algorithm). Each process keeps one bit per id
// (set = free here). Creating a communicator ANDs the masks of every
// member of the parent (an Allreduce with MPI_BAND) and takes the lowest id
// free everywhere, so no process ever holds two live communicators with the
// same id: a message's (context, source rank) names exactly one
// communicator at its receiver. Disjoint communicators made by one split
// may share an id; their members never talk to each other through it.
#pragma once
#include <cstdint>

#include "device/comm.hpp"
#include "util/status.hpp"

namespace ch4lite::dev {

// Ids 2 and 3 carry the agreements of constructors that have no parent
// communicator to talk on (device/group_comm.hpp): never allocated.
inline constexpr uint32_t bridge_context_id = 2;
inline constexpr uint32_t bridge_groups_context_id = 3;

// All ids free except MPI_COMM_WORLD's (0), MPI_COMM_SELF's (1) and the
// bridges' (2, 3).
void context_ids_init() noexcept;
// Collective over `parent`. status::exhausted when no id is free on every
// member (32765 communicators live, or a member offered none). A member
// that cannot use an id (offer false: it could not build its part of the
// new object) offers none, so every member fails alike.
status context_id_allocate(comm& parent, uint32_t& id, bool offer = true) noexcept;
void context_id_release(uint32_t id) noexcept;

// For agreements over other process sets (intercommunicators, groups): the
// process's free-id mask ...
inline constexpr int context_mask_words = static_cast<int>(max_context_ids / 64);
// ... its first `words` words (all zero when offer is false), ...
void context_id_mask(uint64_t* out, int words, bool offer) noexcept;
// ... and, once every member's masks are ANDed, the n lowest ids of the
// result, marked used here (they are free here: this mask was in the AND).
// False (nothing taken) when fewer than n are set.
bool context_id_take(const uint64_t* common, int words, uint32_t* ids, int n) noexcept;

// Nonblocking agreements (MPI_Comm_idup, device/comm_idup.cpp) pick an id
// from a common mask while other work goes on, then check that every member
// could still reserve it. A blocking agreement that has offered its mask and
// waits for the AND must not see one of those ids taken meanwhile: it marks
// itself (offer_scope), and a nonblocking one that finds any in flight
// declines to reserve (and retries).
//
// Under MPI_THREAD_MULTIPLE several threads may run blocking agreements at
// once, each over its own communicator, and each waits for its AND with
// the lock given to the others (util/api_lock.hpp): two of them must not
// offer the same free ids. As in MPICH, in two stages:
// - An agreement's first attempt is eager: it offers the ids of the first
//   mask word if no other first attempt here holds them, else nothing, and
//   needs no turn. If the AND has the ids it needs, done. A first attempt
//   whose collective waits long (a member is elsewhere) holds only those.
// - Later attempts take turns for the rest of the mask: it goes to one
//   agreement at a time, the one with the lowest key (its parent
//   communicator's context, the same on every member) among those here
//   past their first attempt; the others offer zeros and retry. A turn word
//   after the mask, ANDed with it, tells every member whether all of them
//   offered (the answer stands) or not (all retry). The lowest key gets its
//   turn on every member once all of them reach it.
// The two stages keep a thread whose agreement waits for another process
// from stopping the agreements of this process's other threads (MPICH's
// threads/comm/comm_dup_deadlock: a dup of MPI_COMM_SELF behind a dup of a
// communicator whose other members are in their own MPI_COMM_SELF dup).
// With one thread, every attempt is on turn and final, over the whole mask.
class offer_scope {
public:
    // need: how many ids the agreement takes (an eager attempt succeeds
    // when the AND has that many).
    explicit offer_scope(uint64_t key = 0, int need = 1) noexcept;
    ~offer_scope();
    offer_scope(const offer_scope&) = delete;
    offer_scope& operator=(const offer_scope&) = delete;
    // Fills out[0, words) with this process's free-id mask for this
    // attempt (zeros when offer is false, or not on turn) and out[words]
    // with the turn word.
    void fill(uint64_t* out, int words, bool offer) noexcept;
    // After the AND of words + 1 words: whether the answer stands (then
    // the mask is the answer); ends this attempt's turn either way.
    bool final(const uint64_t* common, int words) noexcept;

private:
    void enter_turns() noexcept;
    uint64_t key_;
    int need_;
    bool eager_phase_;
    bool eager_ = false;
    bool turn_ = false;
    bool registered_ = false;
};
bool context_id_offers_pending() noexcept;
// Reserves `id` if it is free here (true), for a nonblocking agreement.
bool context_id_reserve(uint32_t id) noexcept;
// Ids free on this process.
int context_ids_free() noexcept;
// Whether messages of communicator context `ctx` (id << 1 | collective)
// can only be stale: its id is free here and no allocation, blocking or
// nonblocking (which may be about to take it, with peers already sending
// on it), is in progress.
bool context_stale(uint32_t ctx) noexcept;

}  // namespace ch4lite::dev
