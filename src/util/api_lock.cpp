// SPDX-License-Identifier: MIT
// The MPI_THREAD_MULTIPLE lock (api_lock.hpp).
#include "util/api_lock.hpp"

#include <sched.h>

namespace ch4lite::util {

std::atomic<bool> g_api_lock_on{false};
bool g_thread_multiple = false;
api_lock_state g_api_lock;

void api_lock_enable(bool on) noexcept { g_api_lock_on.store(on, std::memory_order_release); }

namespace {

void acquire(api_lock_state& l, pthread_t self, unsigned depth) noexcept {
    if (!l.m.try_lock()) {
        // Counted as a waiter from the start, so a thread that yields the
        // lock (api_lock_yield_slow) waits for this one to take it.
        l.waiters.fetch_add(1, std::memory_order_relaxed);
        // Calls hold the lock briefly (the progress thread's poll, a call
        // that does not wait): spin a little before sleeping in the kernel,
        // whose wake-up takes longer than most holds.
        bool got = false;
        for (int i = 0; i < 200 && !(got = l.m.try_lock()); ++i) __builtin_ia32_pause();
        if (!got) l.m.lock();
        l.waiters.fetch_sub(1, std::memory_order_relaxed);
    }
    l.owner.store(self, std::memory_order_relaxed);
    l.depth = depth;
    l.taken.store(l.taken.load(std::memory_order_relaxed) + 1, std::memory_order_release);
}

}  // namespace

void api_lock() noexcept {
    api_lock_state& l = g_api_lock;
    const pthread_t self = pthread_self();
    // Only this thread ever stores its own id: a stale read is never equal.
    if (l.owner.load(std::memory_order_relaxed) == self) {
        ++l.depth;
        return;
    }
    acquire(l, self, 1);
}

api_hooks g_api_hooks;

void api_unlock_quiet() noexcept {
    api_lock_state& l = g_api_lock;
    if (--l.depth != 0) return;
    l.owner.store(pthread_t{}, std::memory_order_relaxed);
    l.m.unlock();
}

void api_unlock() noexcept {
    api_lock_state& l = g_api_lock;
    if (l.depth != 1 || !g_api_hooks.work_left) {
        api_unlock_quiet();
        return;
    }
    const bool left = g_api_hooks.work_left();
    api_unlock_quiet();
    if (left) g_api_hooks.wake();
}

bool api_try_lock() noexcept {
    api_lock_state& l = g_api_lock;
    if (!l.m.try_lock()) return false;
    l.owner.store(pthread_self(), std::memory_order_relaxed);
    l.depth = 1;
    l.taken.store(l.taken.load(std::memory_order_relaxed) + 1, std::memory_order_release);
    return true;
}

void api_lock_yield_slow() noexcept {
    api_lock_state& l = g_api_lock;
    const pthread_t self = pthread_self();
    if (l.owner.load(std::memory_order_relaxed) != self) return;  // not inside a locked call
    const unsigned depth = l.depth;
    const uint64_t before = l.taken.load(std::memory_order_relaxed);
    l.depth = 0;
    l.owner.store(pthread_t{}, std::memory_order_relaxed);
    l.m.unlock();
    // std::mutex is not fair: re-locking at once would usually win against
    // the waiter just woken. Wait until another thread had it (or nobody
    // waits any more); the waiter is runnable, so this ends.
    while (l.taken.load(std::memory_order_acquire) == before &&
           l.waiters.load(std::memory_order_relaxed) != 0)
        ::sched_yield();
    acquire(l, self, depth);
}

}  // namespace ch4lite::util
