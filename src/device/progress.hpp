// SPDX-License-Identifier: MIT
// The progress engine: one poll of every transport (shm, then the netmod),
// then the queue of operations deferred by back-pressure. Waiting loops spin
// on it; when this node's ranks outnumber the cores they may use, an idle
// poll yields the CPU (sched_yield), so oversubscribed jobs stay fast.
#pragma once
#include "device/device.hpp"
#include "device/request.hpp"

namespace ch4lite::dev {

// Operations that could not start for lack of resources, retried in order.
int deferred_progress() noexcept;
inline bool deferred_sends_empty() noexcept { return g_dev.deferred_sends == 0; }
inline bool deferred_recvs_empty() noexcept { return g_dev.deferred_recvs == 0; }
inline bool deferred_empty() noexcept { return (g_dev.deferred_sends | g_dev.deferred_recvs) == 0; }
// Deferred operations or RMA work (device.hpp, rma_poll): one test on the hot path.
inline bool slow_work() noexcept {
    return (g_dev.deferred_sends | g_dev.deferred_recvs | g_dev.rma_poll) != 0;
}
// deferred_progress() and, when it asks, src/rma's hook.
int slow_progress() noexcept;

// One poll of everything; returns the number of events handled. shm first:
// its idle poll is one cache-line load per local peer. A netmod that carries
// nothing (g_dev.nm_quiet: every peer local) is left to idle_step, which
// polls it once in a long while: its idle poll can be a system call (a few
// microseconds with tcp;ofi_rxm), which would dominate on-node latency.
inline int progress() noexcept {
    int n = g_dev.shm.progress();
    if (!g_dev.nm_quiet) n += g_dev.nm.progress();
    if (slow_work()) n += slow_progress();
    return n;
}

// progress() except for the shm rings [lo, hi), which the caller polls
// itself (dev::recv_direct).
inline int progress_except(uint32_t lo, uint32_t hi) noexcept {
    int n = g_dev.shm.progress_except(lo, hi);
    if (!g_dev.nm_quiet) n += g_dev.nm.progress();
    if (slow_work()) n += slow_progress();
    return n;
}

// Called after an idle poll inside a waiting loop: yields when
// oversubscribed, and now and then checks that the launcher is alive.
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
