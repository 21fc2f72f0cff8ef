// SPDX-License-Identifier: MIT
// Operations of passive-target and PSCW epochs that the direct fast paths
// of origin.cpp did not take (docs/rma-passive.md, "Operations"):
//   - ourselves: a copy, or (accumulates, dynamic windows) our own records
//     applied at once;
//   - a node peer whose memory we reach without it (mapped: Win_allocate,
//     shared, remapped Win_create; or by cross-memory attach: Win_create):
//     done at the call, accumulates under its accumulate lock (node_ops.cpp);
//   - anyone else (peers the netmod reaches, dynamic windows, a node
//     without CMA): records in the target's batch, sent when the batch is
//     full and at the next flush, unlock or complete.
#include <cstring>

#include "dame/dame.hpp"
#include "rma/native.hpp"
#include "rma/origin.hpp"
#include "rma/queue.hpp"
#include "rma/sync.hpp"
#include "rma/win_internal.hpp"
#include "rma/wire.hpp"
#include "shm/cma.hpp"
#include "util/small_copy.hpp"

namespace ch4lite::rma {

namespace {

bool self(const win& w, int t) noexcept { return t == w.rank() && w.fl != flavor::dynamic; }

// One CMA copy between o and ts in node peer t's process: contiguous data
// in one system call straight away, derived types through cma_copy.
bool cma_move(win& w, const buf_spec& o, const target_spec& ts, bool write, uint64_t total) noexcept {
    cma_credit(w, ts.rank, total);
    if (!o.t->contiguous() || !ts.t->contiguous()) return cma_copy(w, o, ts, write, total);
    const auto t = static_cast<std::size_t>(ts.rank);
    const cma_pass pass(w, ts.rank);
    const uint64_t remote = w.peers[t].base + ts.disp + static_cast<uint64_t>(ts.t->true_lb());
    auto* local = static_cast<std::byte*>(const_cast<void*>(o.buf)) + o.t->true_lb();
    const status s = write ? shm::cma::write(w.peers[t].pid, remote, local, total)
                           : shm::cma::read(w.peers[t].pid, local, remote, total);
    if (s == status::ok) return true;
    w.cma_ok[t] = 0;  // by message from now on
    return false;
}

// Node peer t may be reached without it for ts: mapped or by CMA, and the
// range is known to lie in its window (else the target must refuse it).
bool node_ok(win& w, const target_spec& ts) noexcept {
    return ts.rank != w.rank() && node_reach(w, ts.rank) && in_target_window(w, ts);
}

// A large contiguous put or get to a peer the netmod reaches goes by its
// native RMA (native.hpp) once our lock on the target is held: the lock
// request asks for a grant (bf_grant), the operation is issued when it
// comes (native_step_async, at the latest in the next flush or unlock;
// an unlock sends nothing to that target before it completed). Not for
// request-based operations, whose request would have to wait for it too.
//
// A small one goes native only alone and once the lock is held already:
// nothing queued for the target, no native operation to it in flight, and
// the last flush or unlock to it closed a window of at most one put or get
// (a put or get followed by a flush, OSU's -s flush and lock_all: one
// write or read with delivery completion instead of a batch and the
// target's acknowledgement, 8 B over tcp;ofi_rxm ~1.2x instead of ~1.4x
// the raw libfabric round trip). Otherwise it joins the target's batch:
// many small operations between flushes travel as few messages (a native
// one among them cost a third of 8 B put bandwidth: both processes' CPU
// time is the limit on loopback), and one whose lock is not held yet does
// not wait for a grant (the lock request rides on the batch). The first
// flush to a target asks for the grant (passive.cpp).
bool native_small(win& w, const buf_spec& o, const target_spec& ts, uint64_t total, bool write) noexcept {
    const auto t = static_cast<std::size_t>(ts.rank);
    target_sync& s = w.tsync[t];
    const target_q& q = w.tq[t];
    // Passive target only (a PSCW target's post may not be here yet).
    if (s.lock == lk_none || !(s.granted || s.nocheck) || !s.lone || q.nrec != 0 || q.native != 0)
        return false;
    if (!native_record(w, o, ts, total, write, true)) return false;
    s.granted = true;  // MPI_MODE_NOCHECK: no grant to wait for
    (void)native_step_async(w);
    return true;
}

bool native_async(win& w, const buf_spec& o, const target_spec& ts, uint64_t total, bool write) noexcept {
    ++w.tsync[static_cast<std::size_t>(ts.rank)].window_ops;
    if (w.req || !in_target_window(w, ts)) return false;
    if (total < native_min()) return native_small(w, o, ts, total, write);
    if (!native_record(w, o, ts, total, write)) return false;
    target_sync& s = w.tsync[static_cast<std::size_t>(ts.rank)];
    if (!s.granted && !s.grant_asked) {
        if (s.lock == lk_none || s.nocheck) {
            s.granted = true;  // PSCW (the target posted) or MPI_MODE_NOCHECK
        } else {
            s.grant_asked = true;
            (void)async_send(w, ts.rank, bf_grant);  // carries the lock request if not sent yet
        }
    }
    (void)native_step_async(w);
    return true;
}

}  // namespace

status async_put(win& w, const buf_spec& o, const target_spec& ts, uint64_t total) noexcept {
    const int t = ts.rank;
    if (self(w, t)) {
        dame::copy(*o.t, o.buf, o.count, *ts.t, w.base + ts.disp, ts.count);
        return status::ok;
    }
    if (node_ok(w, ts)) {
        reach_target(w, t);
        if (std::byte* b = w.direct_base[static_cast<std::size_t>(t)]) {
            if (o.t->contiguous() && ts.t->contiguous())
                util::small_copy(b + ts.disp + ts.t->true_lb(),
                                 static_cast<const std::byte*>(o.buf) + o.t->true_lb(), total);
            else
                dame::copy(*o.t, o.buf, o.count, *ts.t, b + ts.disp, ts.count);
            return status::ok;
        }
        if (cma_move(w, o, ts, true, total)) return status::ok;
        // The kernel refused: by message from now on (a partial copy is repeated).
    }
    if (t != w.rank()) {
        touch(w, t);
        if (native_async(w, o, ts, total, true)) return status::ok;  // complete when delivered
        w.tsync[static_cast<std::size_t>(t)].need_ack = true;  // only an ack says it is applied
    }
    return put_msg(w, o, ts, total);
}

status async_get(win& w, const buf_spec& o, const target_spec& ts, uint64_t total) noexcept {
    const int t = ts.rank;
    void* const obuf = const_cast<void*>(o.buf);
    if (self(w, t)) {
        dame::copy(*ts.t, w.base + ts.disp, ts.count, *o.t, obuf, o.count);
        return status::ok;
    }
    if (node_ok(w, ts)) {
        reach_target(w, t);
        if (std::byte* b = w.direct_base[static_cast<std::size_t>(t)]) {
            if (o.t->contiguous() && ts.t->contiguous())
                util::small_copy(static_cast<std::byte*>(obuf) + o.t->true_lb(),
                                 b + ts.disp + ts.t->true_lb(), total);
            else
                dame::copy(*ts.t, b + ts.disp, ts.count, *o.t, obuf, o.count);
            return status::ok;
        }
        if (cma_move(w, o, ts, false, total)) return status::ok;
    }
    if (t != w.rank()) {
        touch(w, t);
        if (native_async(w, o, ts, total, false)) return status::ok;
    }
    return get_msg(w, o, ts, total);
}

status async_acc(win& w, const buf_spec& o, const target_spec& ts, dev::op_id opv,
                 uint64_t total) noexcept {
    const int t = ts.rank;
    if (node_ok(w, ts)) {
        reach_target(w, t);
        if (!w.direct_base[static_cast<std::size_t>(t)]) cma_credit(w, t, total);
        const status s = node_acc(w, &o, nullptr, ts, opv);
        if (s != status::again) return s;
    }
    if (t != w.rank()) {
        touch(w, t);
        w.tsync[static_cast<std::size_t>(t)].need_ack = true;
    }
    const dame::basic_kind k = ts.t->basic();
    const rec_desc d{rk_acc, 0, static_cast<uint8_t>(opv), static_cast<uint8_t>(k), &o, nullptr,
                     dev::packed_size(k)};
    const status s = encode(w, d, ts, total);
    if (s != status::ok || t != w.rank()) return s;
    return self_flush(w);
}

status async_getacc(win& w, const buf_spec& o, const buf_spec& r, const target_spec& ts,
                    dev::op_id opv, uint64_t total) noexcept {
    const int t = ts.rank;
    const bool nodata = opv == dev::op_id::no_op;
    if (node_ok(w, ts)) {
        reach_target(w, t);
        if (!w.direct_base[static_cast<std::size_t>(t)]) cma_credit(w, t, total);
        const status s = node_acc(w, nodata ? nullptr : &o, &r, ts, opv);
        if (s != status::again) return s;
    }
    if (t != w.rank()) touch(w, t);
    const dame::basic_kind k = ts.t->basic();
    op* slot = new_slot(w, r, total, t);
    if (!slot) return status::no_mem;
    const rec_desc d{rk_getacc, static_cast<uint8_t>(nodata ? rf_nodata : 0),
                     static_cast<uint8_t>(opv), static_cast<uint8_t>(k), nodata ? nullptr : &o, slot,
                     dev::packed_size(k)};
    const status s = encode(w, d, ts, total);
    if (s != status::ok || t != w.rank()) return s;
    return self_flush(w);
}

status async_cas(win& w, const void* origin, const void* compare, void* result,
                 const dame::type* t, int rank, uint64_t disp) noexcept {
    if (node_ok(w, target_spec{rank, disp, 1, t})) {
        reach_target(w, rank);
        if (!w.direct_base[static_cast<std::size_t>(rank)]) cma_credit(w, rank, static_cast<uint64_t>(t->size()));
        const status s = node_cas(w, origin, compare, result, t, rank, disp);
        if (s != status::again) return s;
    }
    if (rank != w.rank()) touch(w, rank);
    return cas_msg(w, origin, compare, result, t, rank, disp);
}

}  // namespace ch4lite::rma
