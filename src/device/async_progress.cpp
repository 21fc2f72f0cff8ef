// SPDX-License-Identifier: MIT
// The progress thread (async_progress.hpp).
#include "device/async_progress.hpp"

#include <time.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "device/progress.hpp"
#include "device/request.hpp"
#include "util/api_lock.hpp"
#include "util/env.hpp"
#include "util/log.hpp"

namespace ch4lite::dev {

namespace {

std::thread g_thread;
std::atomic<bool> g_stop{false};
// The thread is (about to be) asleep: the end of an MPI call that leaves
// work pending wakes it (wake). Sequentially consistent with the lock's
// hand-over: the thread stores true, then try-locks; a call that held the
// lock then reads it after releasing, so it cannot miss the sleeper.
std::atomic<bool> g_sleeping{false};
std::mutex g_sleep_m;
std::condition_variable g_sleep_cv;

// Under the lock: is there anything a poll could advance?
bool pending() noexcept { return !background_idle() || request_pool().in_use() != 0; }

void wake() noexcept {
    if (!g_sleeping.load()) return;
    {
        std::lock_guard<std::mutex> g(g_sleep_m);
        g_sleeping.store(false);
    }
    g_sleep_cv.notify_one();
}

void nap_ns(long ns) noexcept {
    timespec d{0, ns};
    ::nanosleep(&d, nullptr);
}

// Sleeps until an MPI call leaves work behind, or 10 ms (a safety net).
void sleep_until_work() noexcept {
    g_sleeping.store(true);
    // A call that ended before the store could not see it: look once more.
    if (util::api_try_lock()) {
        const bool more = pending();
        util::api_unlock_quiet();
        if (more) {
            g_sleeping.store(false);
            return;
        }
    }  // else a call holds the lock: its end sees g_sleeping
    std::unique_lock<std::mutex> g(g_sleep_m);
    g_sleep_cv.wait_for(g, std::chrono::milliseconds(10),
                        [] { return !g_sleeping.load() || g_stop.load(std::memory_order_relaxed); });
    g_sleeping.store(false);
}

void loop() noexcept {
    unsigned empty = 0;  // polls in a row that found nothing
    while (!g_stop.load(std::memory_order_acquire)) {
        if (!util::api_try_lock()) {
            // An application thread is in MPI and progresses itself.
            empty = 0;
            sleep_until_work();
            continue;
        }
        const int n = progress();
        const bool more = pending();
        util::api_unlock_quiet();
        if (!more) {
            empty = 0;
            sleep_until_work();
            continue;
        }
        if (n != 0) {
            empty = 0;
            continue;
        }
        // Work in flight that waits for a peer: poll flat out for a while
        // (the message may be microseconds away), then in growing naps so
        // that a computing application keeps most of its core.
        if (++empty < 256) {
            __builtin_ia32_pause();
            continue;
        }
        nap_ns(std::min<long>(1000L << std::min(empty - 256, 6u), 50'000));
    }
}

}  // namespace

bool async_progress_wanted() noexcept { return util::env_bool("CH4LITE_ASYNC_PROGRESS", false); }

void async_progress_start() noexcept {
    if (g_thread.joinable()) return;
    g_stop.store(false, std::memory_order_relaxed);
    util::g_api_hooks = {pending, wake};
    try {
        g_thread = std::thread(loop);
        util::verbose("async progress: a progress thread polls while the application computes");
    } catch (...) {
        util::g_api_hooks = {};
        util::warn("CH4LITE_ASYNC_PROGRESS: cannot start the progress thread; going on without it");
    }
}

void async_progress_stop() noexcept {
    if (!g_thread.joinable()) return;
    {
        std::lock_guard<std::mutex> g(g_sleep_m);
        g_stop.store(true, std::memory_order_release);
    }
    g_sleep_cv.notify_one();
    g_thread.join();
    util::g_api_hooks = {};
}

}  // namespace ch4lite::dev
