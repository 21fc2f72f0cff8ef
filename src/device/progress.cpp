// SPDX-License-Identifier: MIT
#include "device/progress.hpp"

#include <poll.h>
#include <sched.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

#include "util/api_lock.hpp"
#include "util/env.hpp"
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

inline int64_t now_ns() noexcept {
    timespec ts;
    ::clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

int64_t env_us(const char* name, int64_t def_us) noexcept {
    return std::max<int64_t>(util::env_int(name, def_us), 0) * 1000;
}

// The not-busy wait of before: spin, pausing once a wait gets long.
inline void spin(unsigned idle) noexcept {
    // The first polls spin flat out: a pause here is time the message
    // may already be waiting (on-node latency is ~100 ns); a rank that
    // keeps waiting pauses, which saves power and helps an SMT sibling.
    if (idle > 1024) __builtin_ia32_pause();
}
}  // namespace

void idle_init(idle_policy& p, bool oversubscribed) noexcept {
    const char* y = util::env_str("CH4LITE_YIELD", "auto");
    p.m = std::strcmp(y, "auto") == 0                  ? idle_policy::mode::adaptive
          : util::env_bool("CH4LITE_YIELD", false) ? idle_policy::mode::always
                                                       : idle_policy::mode::never;
    p.oversubscribed = oversubscribed || p.m == idle_policy::mode::always;
    p.gap_ns = std::max<int64_t>(env_us("CH4LITE_YIELD_GAP", 200), 1000);
    p.hold_ns = env_us("CH4LITE_YIELD_HOLD", 100'000);
    p.spin_ns = env_us("CH4LITE_YIELD_SPIN", 10);
    p.sleep_after_ns = env_us("CH4LITE_YIELD_SLEEP", 50);
    // Polls between two yields of a rank preempted by outside work (a
    // multiple of 16: the clock is read every 16 polls).
    p.yield_every = static_cast<uint32_t>(
        std::clamp<int64_t>(util::env_int("CH4LITE_YIELD_EVERY", 0), 0, 1 << 24) + 15) & ~15u;
    p.sleep_max_ns = static_cast<uint32_t>(std::clamp<int64_t>(env_us("CH4LITE_YIELD_SLEEP_MAX", 64), 2000, 100'000'000));
    // Our sleeps are short: ask for 1 us of timer slack instead of the
    // default 50 us, or a 2 us sleep would last 50.
    if (p.m != idle_policy::mode::never) (void)::prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);
}

int background_progress() noexcept {
    int n = 0;
    if (!deferred_empty()) n += deferred_progress();
    if (g_dev.sched_active != 0) n += coll::sched_progress();
    if (g_dev.rma_poll != 0) n += rma::hook();
    return n;
}

void idle_step(unsigned& idle) noexcept {
    ++idle;
    // Under MPI_THREAD_MULTIPLE, threads waiting to enter MPI get the lock
    // now: what this wait needs may be their next call.
    util::api_lock_yield();
    // A quiet netmod (device.hpp) still gets a poll now and then, so any
    // housekeeping its provider does in progress is not starved.
    if (g_dev.nm_quiet && (idle & 0x3fff) == 0 && g_dev.nm_open) (void)g_dev.nm.progress();
    idle_policy& p = g_dev.idle;
    if (p.m == idle_policy::mode::never) {
        spin(idle);
        if ((idle & 0xfffff) == 0) check_launcher();
        return;
    }
    // The clock every 16 polls while spinning (~25 ns against 16 polls),
    // at every poll once yielding or sleeping (a system call each anyway).
    if (idle != 1 && (idle & 15) != 0 && !p.giving && p.no_spin == 0) {
        spin(idle);
        return;
    }
    const int64_t t = now_ns();
    if (idle == 1) {  // a new streak of idle polls
        p.streak_start = p.last = t;
        p.sleep_ns = 0;
        p.giving = false;
        return;
    }
    // A gap between two readings that no poll takes: we were preempted
    // (not counted while we sleep on purpose).
    if (t - p.last > p.gap_ns && p.sleep_ns == 0) {
        p.busy_until = t + p.hold_ns;
        ++p.preemptions;
    }
    p.last = t;
    const bool busy = p.oversubscribed || t < p.busy_until;
    const int64_t waited = t - p.streak_start;
    if (!busy || (waited < p.spin_ns && p.no_spin == 0)) {
        p.giving = false;
        spin(idle);
        if ((idle & 0xfffff) == 0) check_launcher();
        return;
    }
    if (!p.oversubscribed) {
        // Preempted by outside work, and no more ranks than cores: the rank
        // we wait for most likely has a core of its own, and a yield (let
        // alone a sleep) hands ours to the outside work for a whole time
        // slice, after which the rank we waited for may wait for us. Spin
        // (as MPICH and Open MPI do), or with CH4LITE_YIELD_EVERY yield
        // once every that many polls; the yield is not a preemption.
        p.giving = false;
        spin(idle);
        if (p.yield_every && idle % p.yield_every == 0) {
            ::sched_yield();
            p.last = now_ns();
        }
        if ((idle & 0xfffff) == 0) check_launcher();
        return;
    }
    p.giving = true;
    if (waited < p.sleep_after_ns) {
        // Give the core to a rank that has work; the provider's sockets are
        // polled again when we are scheduled.
        ::sched_yield();
    } else {
        // A long wait on a busy host: free the core entirely, in growing
        // steps (2 us .. CH4LITE_YIELD_SLEEP_MAX), polling between them.
        p.sleep_ns = p.sleep_ns ? std::min<uint32_t>(p.sleep_ns * 2, p.sleep_max_ns) : 2000;
        const timespec d{0, static_cast<long>(p.sleep_ns)};
        ::nanosleep(&d, nullptr);
        ++p.sleeps;
        p.last = now_ns();
    }
    if ((idle & 0x3ff) == 0) check_launcher();
}

}  // namespace ch4lite::dev
