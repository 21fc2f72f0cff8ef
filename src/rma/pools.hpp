// SPDX-License-Identifier: MIT
// The RMA memory-object pools (util/pool.hpp): reply slots (RMA_OP) and
// outgoing messages (RMA_MSG), limits from CH4LITE_RMA_{OP,MSG}_POOL_*.
// Set up by the first window and kept until the process ends, so a program
// that creates and frees windows in a loop does not rebuild them.
#pragma once
#include "rma/sendq.hpp"
#include "rma/win.hpp"
#include "util/pool.hpp"

namespace ch4lite::rma {

util::object_pool<op>& op_pool() noexcept;
// A reply slot (origin.cpp's new_slot) is done: the window stops waiting
// for it, its type reference is dropped, it goes back to the pool.
void slot_done(win& w, op* s) noexcept;
util::object_pool<out_msg>& msg_pool() noexcept;
// Idempotent; no_mem when a pool cannot reach its minimum.
status pools_init() noexcept;

}  // namespace ch4lite::rma
