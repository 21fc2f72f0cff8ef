// SPDX-License-Identifier: MIT
// A communicator's staging segment for collectives among ranks of one node
// (docs/collectives-staged.md, "Staged broadcast"): the root copies the message
// into shared memory once, chunk by chunk, and every other rank copies it
// out as soon as it runs — plain memory copies (the kernel's single copy
// moves 3.6-5x fewer bytes per second, bench/rma/cma_copy.c) and no
// pairwise step that waits for a descheduled partner.
//
// Chunks go through `slots` rings of `chunk` bytes. Per slot: `seq`, the
// number (+1) of the chunk it holds, stored by the root after the copy
// (release); `done`, how many readers finished with it (fetch_add). The
// root refills a slot only when every reader finished its previous lap.
// Every member counts chunks the same way (`next`), since every member
// calls the same broadcasts with the same byte count.
#pragma once
#include <cstddef>
#include <cstdint>

#include "device/comm.hpp"
#include "util/status.hpp"

namespace ch4lite::coll {

using dev::comm;

// Whether every member of c is on this node (cached in the communicator).
bool all_local(comm& c) noexcept;

// Whether c (every member local, the caller checked) has a staging
// segment; the first call creates it, collectively over c (all members
// call it, and all get the same answer).
bool stage_usable(comm& c) noexcept;

// MPI_Bcast of n bytes through the segment (blocking).
status bcast_staged(std::byte* buf, std::size_t n, int root, comm& c) noexcept;

// A broadcast through the segment, moved as far as it can go without
// waiting (the scheduled form, coll/stage_nb.cpp). Only the current user of
// the slots may advance (c.stage_turns, coll/turns.hpp).
struct bcast_cursor {
    std::byte* buf;
    std::size_t n;
    int root;
    std::size_t off = 0;
    std::size_t total = 0;  // the root's byte count (known after the first chunk)
    uint64_t chunks = 0;    // chunks moved
};
// True once every chunk of the broadcast moved (k.total != k.n: the root's
// count differed; what fits was kept).
bool bcast_advance(comm& c, bcast_cursor& k) noexcept;

// Staged exchange rounds (Alltoall, Allreduce): every member has a box per
// half of stage_box_bytes(c) (0: no segment, or created while both
// CH4LITE_COLL_ALLREDUCE_STAGE and _ALLTOALL_STAGE were "never"). In a round each member fills
// its box, and once all did, reads the others' (docs/collectives-staged.md,
// "Staged exchange"). No pairwise step: a member waits only for the last
// one to fill. Members that disagree on the byte count all stop after the
// first round and report truncation (coll::note_mismatch).
std::size_t stage_box_bytes(const comm& c) noexcept;

// Whether this call (one the caller found eligible for a staged exchange,
// the same on every member) takes it: not for a while after a member's
// timed fill ran slow (stage_seg.cpp, timed fills). Every member calls it
// for every eligible call, and all get the same answer.
bool stage_exchange_now(comm& c) noexcept;

// MPI_Alltoall of n-byte blocks (sbuf != rbuf); needs
// stage_box_bytes(c) / c.size >= 64.
status alltoall_staged(const std::byte* sbuf, std::byte* rbuf, std::size_t n, comm& c) noexcept;

// MPI_Allreduce in place on rbuf (count instances of op.elem bytes,
// op.elem <= stage_box_bytes(c)); every op, commutative or not (the p
// contributions of an element are folded in rank order by one member).
struct reduction;
status allreduce_staged(std::byte* rbuf, int64_t count, const reduction& op, comm& c) noexcept;

}  // namespace ch4lite::coll
