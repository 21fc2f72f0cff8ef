// SPDX-License-Identifier: MIT
#include "device/progress.hpp"

#include <poll.h>
#include <sched.h>
#include <unistd.h>

#include "rma/rma.hpp"
#include "util/log.hpp"

namespace ch4lite::dev {

namespace {
// The launcher closed our PMI connection: it is gone, and so is the job.
void check_launcher() noexcept {
    const int fd = g_dev.boot.fd();
    if (fd < 0) return;
    pollfd p{fd, POLLRDHUP, 0};
    if (::poll(&p, 1, 0) > 0 && (p.revents & (POLLHUP | POLLRDHUP | POLLERR | POLLNVAL)))
        util::fatal("the launcher (mpiexec) is gone: ending rank %d", g_dev.world_rank);
}
}  // namespace

int slow_progress() noexcept {
    int n = deferred_empty() ? 0 : deferred_progress();
    if (g_dev.rma_poll) n += rma::hook();
    return n;
}

void idle_step(unsigned& idle) noexcept {
    ++idle;
    // A quiet netmod (device.hpp) still gets a poll now and then, so any
    // housekeeping its provider does in progress is not starved.
    if (g_dev.nm_quiet && (idle & 0x3fff) == 0 && g_dev.nm_open) (void)g_dev.nm.progress();
    if (g_dev.oversubscribed) {
        // Give the core to a rank that has work; the provider's sockets are
        // polled again when we are scheduled.
        sched_yield();
        if ((idle & 0x3ff) == 0) check_launcher();
    } else {
        // The first polls spin flat out: a pause here is time the message
        // may already be waiting (on-node latency is ~100 ns); a rank that
        // keeps waiting pauses, which saves power and helps an SMT sibling.
        if (idle > 1024) __builtin_ia32_pause();
        if ((idle & 0xfffff) == 0) check_launcher();
    }
}

}  // namespace ch4lite::dev
