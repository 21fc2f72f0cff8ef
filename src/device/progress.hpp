// SPDX-License-Identifier: MIT
// The progress engine: one poll of every transport (shm, then the netmod),
// then the queue of operations deferred by back-pressure. Waiting loops spin
// on it; on a busy host (ranks outnumber the cores, or the wait was
// preempted) an idle poll yields and then sleeps (idle_step, idle.hpp), so
// the rank with work gets the core.
#pragma once
#include "device/device.hpp"
#include "device/request.hpp"

namespace ch4lite::coll {
// Polls the running collective schedules (coll/sched.hpp).
int sched_progress() noexcept;
}  // namespace ch4lite::coll
namespace ch4lite::rma {
// src/rma's polled work (rma/rma.hpp), while g_dev.rma_poll is nonzero.
int hook() noexcept;
}  // namespace ch4lite::rma

namespace ch4lite::dev {

// Operations that could not start for lack of resources, retried in order.
int deferred_progress() noexcept;
inline bool deferred_sends_empty() noexcept { return g_dev.deferred_sends == 0; }
inline bool deferred_recvs_empty() noexcept { return g_dev.deferred_recvs == 0; }
inline bool deferred_empty() noexcept { return (g_dev.deferred_sends | g_dev.deferred_recvs) == 0; }

// The rarer work of a poll, out of line: deferred operations, running
// collective schedules and src/rma's polled work (device.hpp, rma_poll).
// progress() tests the four counters at once, so the
// point-to-point path pays the same one predictable branch as before
// schedules existed.
int background_progress() noexcept;
inline bool background_idle() noexcept {
    return (g_dev.deferred_sends | g_dev.deferred_recvs | g_dev.sched_active | g_dev.rma_poll) == 0;
}

// One poll of everything; returns the number of events handled. shm first:
// its idle poll is one cache-line load per local peer. A netmod that carries
// nothing (g_dev.nm_quiet: every peer local) is left to idle_step, which
// polls it once in a long while: its idle poll can be a system call (a few
// microseconds with tcp;ofi_rxm), which would dominate on-node latency.
inline int progress() noexcept {
    int n = g_dev.shm.progress();
    if (!g_dev.nm_quiet) n += g_dev.nm.progress();
    if (__builtin_expect(!background_idle(), 0)) n += background_progress();
    return n;
}

// progress() but the collective schedules: for coll::wait, which polls
// them itself, before the transports.
inline int progress_transports() noexcept {
    int n = g_dev.shm.progress();
    if (!g_dev.nm_quiet) n += g_dev.nm.progress();
    if (!deferred_empty()) n += deferred_progress();
    if (g_dev.rma_poll != 0) n += rma::hook();
    return n;
}

// progress() except for the shm rings [lo, hi), which the caller polls
// itself (dev::recv_direct).
inline int progress_except(uint32_t lo, uint32_t hi) noexcept {
    int n = g_dev.shm.progress_except(lo, hi);
    if (!g_dev.nm_quiet) n += g_dev.nm.progress();
    if (__builtin_expect(!background_idle(), 0)) n += background_progress();
    return n;
}

// Called after an idle poll inside a waiting loop: spins, or on a busy host
// yields / sleeps (idle.hpp), and now and then checks that the launcher is
// alive.
void idle_step(unsigned& idle) noexcept;

template <class Done>
inline void progress_until(Done&& done) noexcept {
    unsigned idle = 0;
    while (!done()) {
        if (progress() == 0)
            idle_step(idle);
        else
            idle = 0;
    }
}

inline void wait(request* r) noexcept {
    progress_until([r] { return r->cc == 0; });
}

}  // namespace ch4lite::dev
