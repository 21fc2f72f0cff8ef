// SPDX-License-Identifier: MIT
// Garbage collection of the device's memory-object pools (util/pool.hpp):
// the hooks each pool runs, mode by mode, when it is at its maximum and an
// allocation would fail (docs/pools.md).
//
//   pool         simple                    aggressive non-blocking   aggressive blocking
//   requests     (nothing cached)          poll what completed       progress until one returns,
//                                                                    CH4LITE_POOL_GC_WAIT_MS at most
//                (both only while released requests are in flight:
//                 the others return only when the application waits)
//   unexpected   messages of freed         (nothing more)            (nothing more: only receives
//   messages     communicators (stale;                               return them)
//                their ids reaped first)
//   pack buffers the packed copies of sends poll, then give back the  progress until one comes back
//                that completed but are    copies of the sends that  (off by default: the heap
//                not yet waited for; the   completed meanwhile       backs the pool up)
//                heap staging cache        (both only while a transfer holding one is in flight)
//
// A hook that drives progress may run inside progress (an allocation in a
// message handler): the transports and the deferred queue refuse nested
// polls (shm, ucx, ofi and device/deferred.cpp guard themselves), so the
// nested call only polls what is not already being polled.
#include <chrono>
#include <cinttypes>
#include <cstdio>

#include "device/comm_create.hpp"
#include "device/context_id.hpp"
#include "device/match_queue.hpp"
#include "device/pool_gc.hpp"
#include "device/progress.hpp"
#include "device/request.hpp"
#include "device/typed.hpp"
#include "util/env.hpp"
#include "util/pool_buffer.hpp"

namespace ch4lite::dev {

namespace {

std::chrono::milliseconds wait_limit() noexcept {
    static const auto v = std::chrono::milliseconds(
        std::max<int64_t>(util::env_int("CH4LITE_POOL_GC_WAIT_MS", 1000), 0));
    return v;
}

// Polls until `pool` has an object free again: `polls` polls at most
// (non-blocking), or until wait_limit() passed (blocking). `after` runs
// after each poll that did something (and every 64th): what gives objects
// back that progress alone does not.
template <class T, class After>
void poll_until_free(util::object_pool<T>& pool, int polls, bool blocking, After&& after) noexcept {
    const uint32_t before = pool.in_use();
    const auto until = std::chrono::steady_clock::now() + wait_limit();
    unsigned idle = 0;
    for (int i = 0;; ++i) {
        if (pool.in_use() < before) return;
        if (!blocking && i >= polls) return;
        if (blocking && (i & 63) == 0 && std::chrono::steady_clock::now() >= until) return;
        const int n = progress();
        if (n > 0 || (i & 63) == 63) after();
        if (n == 0 && blocking) idle_step(idle);
    }
}
template <class T>
void poll_until_free(util::object_pool<T>& pool, int polls, bool blocking) noexcept {
    poll_until_free(pool, polls, blocking, [] {});
}

// Requests that return to the pool by themselves when their operation
// completes: released by their owner (MPI_Request_free, the device's own
// internal operations). Others come back only when the application waits
// for them, so polling for them would be in vain.
bool requests_returning() noexcept {
    bool any = false;
    request_pool().for_each_in_use([&](const request* r) { any |= (r->flags & rf_released) != 0; });
    return any;
}

void request_hook(util::gc_mode mode, void*) {
    if (mode != util::gc_mode::simple && !requests_returning()) return;
    switch (mode) {
        case util::gc_mode::simple: return;  // requests are never cached
        case util::gc_mode::aggressive_nonblocking:
            poll_until_free(request_pool(), 1024, false);
            return;
        case util::gc_mode::aggressive_blocking:
            poll_until_free(request_pool(), 0, true);
            return;
    }
}

void unexpected_hook(util::gc_mode mode, void*) {
    if (mode != util::gc_mode::simple) return;
    comms_reap();  // freed communicators' context ids become free
    (void)queues().drop_unexpected_if(context_stale);
}

// A request's packed copy (its stage: typed.cpp) from the stage pool, not
// the heap.
bool pooled_stage(const request* r) noexcept { return r->stage && !(r->flags & rf_stage_heap); }

// A send's packed copy stays with the request until the request is freed
// (MPI_Wait/MPI_Test, or at completion when released), but once the send
// completed nothing reads it again: give the pooled ones back. Returns how
// many.
int release_done_stages() noexcept {
    int n = 0;
    request_pool().for_each_in_use([&](request* r) {
        if (r->kind == req_kind::send && r->cc == 0 && pooled_stage(r)) {
            stage_free(r);
            ++n;
        }
    });
    return n;
}

// Whether a pack buffer comes back by progress alone: a send or receive in
// flight holds one (a receive's bounce returns when it completes, a send's
// copy through release_done_stages()). Buffers of collectives' temporaries
// (util::scratch) return when their call does: never by polling here.
bool stages_returning() noexcept {
    bool any = false;
    request_pool().for_each_in_use([&](const request* r) {
        any |= (r->kind == req_kind::send || r->kind == req_kind::recv) && r->cc > 0 && pooled_stage(r);
    });
    return any;
}

void pack_hook(util::gc_mode mode, void*) {
    switch (mode) {
        case util::gc_mode::simple:
            stage_cache_release();  // heap memory, for the fallback that follows
            (void)release_done_stages();
            return;
        case util::gc_mode::aggressive_nonblocking:
            if (stages_returning())
                poll_until_free(util::pack_buffer_pool(), 1024, false,
                                [] { (void)release_done_stages(); });
            return;
        case util::gc_mode::aggressive_blocking:
            if (stages_returning())
                poll_until_free(util::pack_buffer_pool(), 0, true,
                                [] { (void)release_done_stages(); });
            return;
    }
}

template <class T>
void print(const char* name, const util::object_pool<T>& p) {
    const util::pool_stats& s = p.stats();
    std::fprintf(stderr,
                 "ch4lite: stats rank %d: pool %s: max %u, failures %" PRIu64
                 ", gc runs %" PRIu64 "/%" PRIu64 "/%" PRIu64 ", rescues %" PRIu64 "/%" PRIu64
                 "/%" PRIu64 " (simple/non-blocking/blocking)\n",
                 g_dev.world_rank, name, p.max_count(), s.failures, s.gc_runs[0], s.gc_runs[1],
                 s.gc_runs[2], s.gc_rescues[0], s.gc_rescues[1], s.gc_rescues[2]);
}

}  // namespace

void register_pool_gc_hooks() noexcept {
    request_pool().register_gc_hook(request_hook, nullptr);
    unexpected_pool().register_gc_hook(unexpected_hook, nullptr);
    util::pack_buffer_pool().register_gc_hook(pack_hook, nullptr);
}

void print_pool_stats() noexcept {
    print("REQUEST", request_pool());
    print("UNEXPECTED", unexpected_pool());
    print("PACK", util::pack_buffer_pool());
}

}  // namespace ch4lite::dev
