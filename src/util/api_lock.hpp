// SPDX-License-Identifier: MIT
// The lock behind MPI_THREAD_MULTIPLE: one lock around every MPI call, as
// MPICH's default "global" critical section. It is taken only once
// MPI_Init_thread granted MULTIPLE (api_lock_on); a program at any lower
// level pays one predictable branch per call. Recursive, because a callback
// into the application (an error handler, an attribute copy or delete
// function, a user reduction, a generalized request's query) may call MPI
// again on the same thread. A thread that waits inside a call (MPI_Wait,
// MPI_Recv, a blocking collective...) hands the lock to threads that want
// it at each idle poll (api_lock_yield, from dev::idle_step), so one
// thread's blocking call never stops another thread's calls: the message it
// waits for may be the one another thread is about to send.
#pragma once
#include <pthread.h>

#include <atomic>
#include <cstdint>
#include <mutex>

namespace ch4lite::util {

struct api_lock_state {
    std::mutex m;
    std::atomic<pthread_t> owner{};  // 0 when free (pthread_self() is never 0)
    unsigned depth = 0;              // nesting of the owner's calls
    std::atomic<int> waiters{0};     // threads blocked in api_lock()
    std::atomic<uint64_t> taken{0};  // acquisitions, for the hand-over in api_lock_yield
};

extern std::atomic<bool> g_api_lock_on;
// MPI_THREAD_MULTIPLE granted: set by dev::init before the transports open
// (a netmod that tells its library how it is entered reads it).
extern bool g_thread_multiple;
extern api_lock_state g_api_lock;

// Set once by MPI_Init_thread (before it returns MULTIPLE), cleared by
// MPI_Finalize after the last call that could take it.
void api_lock_enable(bool on) noexcept;
void api_lock() noexcept;
void api_unlock() noexcept;
// For the progress thread (dev/async_progress.hpp): takes the lock only if
// it is free (true: taken, depth 1), and gives it back without the hook.
bool api_try_lock() noexcept;
void api_unlock_quiet() noexcept;
// Set while the progress thread runs (dev/async_progress.hpp): when an
// outermost MPI call ends, work_left() is asked with the lock still held,
// and wake() is called once it is released if the answer was yes.
struct api_hooks {
    bool (*work_left)() noexcept = nullptr;
    void (*wake)() noexcept = nullptr;
};
extern api_hooks g_api_hooks;
// Inside a call, at an idle poll: when other threads wait for the lock,
// give it up (whatever the nesting), let one of them take it, and take it
// back. Nothing when the lock is off or nobody waits.
void api_lock_yield_slow() noexcept;
inline void api_lock_yield() noexcept {
    if (g_api_lock_on.load(std::memory_order_relaxed) &&
        g_api_lock.waiters.load(std::memory_order_relaxed) != 0)
        api_lock_yield_slow();
}

// First statement of every MPI function (CH4_API_LOCK()); the state is read
// once, so MPI_Init_thread, which turns the lock on, and MPI_Finalize,
// which turns it off, pair their own lock and unlock.
class api_guard {
public:
    api_guard() noexcept : held_(g_api_lock_on.load(std::memory_order_relaxed)) {
        if (held_) api_lock();
    }
    ~api_guard() {
        if (held_) api_unlock();
    }
    api_guard(const api_guard&) = delete;
    api_guard& operator=(const api_guard&) = delete;

private:
    bool held_;
};

}  // namespace ch4lite::util

#define CH4_API_LOCK() const ::ch4lite::util::api_guard ch4_api_guard_
