// SPDX-License-Identifier: MIT
// The netmod's native RMA (netmod.hpp, caps.native_rma) for large
// contiguous puts and gets to peers the netmod reaches (docs/rma.md,
// "Native netmod RMA").
//
// Every member registers its window memory at creation; the key and the
// address base travel with (base, size, disp_unit). A qualifying put or get
// is recorded at the call and issued in the closing fence, once the
// target's final of this epoch has arrived (it has left the previous fence,
// so everything of the previous epoch is applied to its memory). The final
// this rank owes such a target leaves only after the puts and gets to it
// completed (a put completes when its bytes are in the target's memory), so
// the target cannot leave the fence before they land.
#pragma once
#include <cstdint>

#include "rma/rma.hpp"
#include "rma/win.hpp"
#include "util/status.hpp"

namespace ch4lite::rma {

// Registers this rank's window memory when native RMA is usable (collective
// callers: every member calls it before the exchange; a failure only means
// peers use messages). Fills mine.rkey / raddr / native.
void native_register(win* w, peer_info& mine) noexcept;
void native_release(win* w) noexcept;

// Contiguous puts and gets from this size go native (CH4LITE_RMA_NATIVE_MIN).
uint64_t native_min() noexcept;

// Records a put (write) or get of `total` contiguous bytes between the
// origin buffer and the target range when the native path takes it; false:
// use messages. The caller checked the range already (fits). any_size:
// also below native_min() (a lone small operation of a passive epoch,
// origin_async.cpp).
bool native_record(win& w, const buf_spec& o, const target_spec& ts, uint64_t total,
                   bool write, bool any_size = false) noexcept;

// Inside the closing fence: issues what may go now, reaps completions and
// sends the finals owed. True when nothing native is left this epoch.
bool native_step(win& w) noexcept;

// In a passive-target or PSCW epoch (docs/rma-passive.md): issues what
// may go now (its target granted our lock: tsync[t].granted), reaps
// completions. True when nothing native is left.
bool native_step_async(win& w) noexcept;

// Native operations issued (all windows, this process): for the verbose log.
uint64_t native_ops_issued() noexcept;

}  // namespace ch4lite::rma
