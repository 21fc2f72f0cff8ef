// SPDX-License-Identifier: MIT
// A communicator's staging segment for collectives among ranks of one node
// (docs/collectives.md, "Staged broadcast"): the root copies the message
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

#include "device/comm.hpp"
#include "util/status.hpp"

namespace ch4lite::dev {

// Whether c (every member local, the caller checked) has a staging
// segment; the first call creates it, collectively over c (all members
// call it, and all get the same answer).
bool stage_usable(comm& c) noexcept;

// MPI_Bcast of n bytes through the segment.
status bcast_staged(std::byte* buf, std::size_t n, int root, comm& c) noexcept;

}  // namespace ch4lite::dev
