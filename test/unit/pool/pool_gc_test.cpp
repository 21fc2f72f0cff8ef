// SPDX-License-Identifier: MIT
// Garbage collection: a component registers hooks; a full pool escalates
// simple -> aggressive non-blocking -> aggressive blocking and stops at the
// first mode that frees an object, never past the configured maximum.
#include <gtest/gtest.h>

#include <vector>

#include "util/pool.hpp"

using namespace ch4lite;
using namespace ch4lite::util;

namespace {

struct obj : pool_object {
    int v = 0;
};

// A component that keeps pool objects in three states, each of which only
// one GC mode may reclaim:
//   idle      – a lookaside cache; giving it back costs nothing (simple)
//   prefetch  – prepared objects; dropping them forces a slow path later
//               (aggressive non-blocking)
//   inflight  – in use by "operations" that finish only when progress is
//               driven (aggressive blocking)
struct component {
    object_pool<obj>* pool = nullptr;
    std::vector<obj*> idle, prefetch, inflight;
    int progress_calls = 0;
    int progress_needed = 3;  // polls before the first operation completes
    int calls[3] = {0, 0, 0};
    bool alloc_in_hook = false;
    obj* hook_alloc_result = reinterpret_cast<obj*>(1);

    void progress() {
        if (++progress_calls >= progress_needed && !inflight.empty()) {
            pool->free(inflight.back());
            inflight.pop_back();
        }
    }
    static void hook(gc_mode m, void* ctx) {
        auto* c = static_cast<component*>(ctx);
        ++c->calls[static_cast<int>(m)];
        if (c->alloc_in_hook) c->hook_alloc_result = c->pool->alloc();
        auto drain = [&](std::vector<obj*>& v) {
            for (obj* o : v) c->pool->free(o);
            v.clear();
        };
        switch (m) {
            case gc_mode::simple: drain(c->idle); break;
            case gc_mode::aggressive_nonblocking: drain(c->prefetch); break;
            case gc_mode::aggressive_blocking: {
                const std::size_t before = c->inflight.size();
                while (!c->inflight.empty() && c->inflight.size() == before) c->progress();
                break;
            }
        }
    }
};

struct PoolGc : ::testing::Test {
    object_pool<obj> pool;
    component comp;
    std::vector<obj*> user;  // held by the test itself, never reclaimable

    void setup(int max_gc, int idle, int prefetch, int inflight, uint32_t max = 12) {
        ASSERT_EQ(pool.init({"GC", 4, 4, max, max_gc}), status::ok);
        comp.pool = &pool;
        pool.register_gc_hook(&component::hook, &comp);
        for (int i = 0; i < idle; ++i) comp.idle.push_back(pool.alloc());
        for (int i = 0; i < prefetch; ++i) comp.prefetch.push_back(pool.alloc());
        for (int i = 0; i < inflight; ++i) comp.inflight.push_back(pool.alloc());
        // Fill to the max (growth only: an alloc that failed would itself collect).
        while (pool.in_use() < max) user.push_back(pool.alloc());
        ASSERT_EQ(pool.in_use(), max);
    }
    void TearDown() override {
        for (auto* v : {&comp.idle, &comp.prefetch, &comp.inflight, &user})
            for (obj* o : *v) pool.free(o);
    }
    uint64_t runs(int m) const { return pool.stats().gc_runs[m]; }
    uint64_t rescues(int m) const { return pool.stats().gc_rescues[m]; }
};

TEST_F(PoolGc, SimpleModeReclaimsIdleCache) {
    setup(3, 2, 2, 2);
    const uint64_t failures = pool.stats().failures;  // the fill's last alloc
    obj* o = pool.alloc();
    ASSERT_NE(o, nullptr);
    user.push_back(o);
    EXPECT_EQ(comp.calls[0], 1);
    EXPECT_EQ(comp.calls[1], 0);  // stopped at the first mode that helped
    EXPECT_EQ(comp.calls[2], 0);
    EXPECT_EQ(rescues(0), 1u);
    EXPECT_TRUE(comp.idle.empty());
    EXPECT_EQ(comp.prefetch.size(), 2u);
    EXPECT_EQ(pool.stats().failures, failures);
}

TEST_F(PoolGc, NonblockingModeWhenSimpleIsNotEnough) {
    setup(3, 0, 2, 2);
    obj* o = pool.alloc();
    ASSERT_NE(o, nullptr);
    user.push_back(o);
    EXPECT_EQ(comp.calls[0], 1);
    EXPECT_EQ(comp.calls[1], 1);
    EXPECT_EQ(comp.calls[2], 0);
    EXPECT_EQ(rescues(1), 1u);
    EXPECT_EQ(comp.inflight.size(), 2u);
}

TEST_F(PoolGc, BlockingModeDrivesProgressUntilAnObjectReturns) {
    setup(3, 0, 0, 2);
    comp.progress_needed = 5;
    obj* o = pool.alloc();
    ASSERT_NE(o, nullptr);
    user.push_back(o);
    EXPECT_EQ(comp.calls[2], 1);
    EXPECT_EQ(comp.progress_calls, 5);
    EXPECT_EQ(rescues(2), 1u);
    EXPECT_EQ(comp.inflight.size(), 1u);
}

TEST_F(PoolGc, MaxModeLimitsEscalation) {
    setup(1, 0, 2, 2);  // simple only
    EXPECT_EQ(pool.alloc(), nullptr);
    EXPECT_EQ(comp.calls[0], 1);
    EXPECT_EQ(comp.calls[1], 0);
    EXPECT_EQ(comp.calls[2], 0);
    EXPECT_EQ(comp.progress_calls, 0);
    EXPECT_EQ(comp.prefetch.size(), 2u);
}

TEST_F(PoolGc, OffRunsNoHooks) {
    setup(0, 3, 0, 0);
    EXPECT_EQ(pool.alloc(), nullptr);
    EXPECT_EQ(comp.calls[0], 0);
    EXPECT_EQ(runs(0), 0u);
    EXPECT_EQ(comp.idle.size(), 3u);
}

TEST_F(PoolGc, NothingToReclaimFailsAfterEveryMode) {
    setup(3, 0, 0, 0);
    const uint64_t f = pool.stats().failures;
    EXPECT_EQ(pool.alloc(), nullptr);
    EXPECT_EQ(pool.stats().failures, f + 1);
    EXPECT_EQ(comp.calls[0], 1);
    EXPECT_EQ(comp.calls[1], 1);
    EXPECT_EQ(comp.calls[2], 1);
}

TEST_F(PoolGc, HookAllocatingFromTheSamePoolDoesNotRecurse) {
    setup(3, 1, 0, 0);
    comp.alloc_in_hook = true;
    obj* o = pool.alloc();  // the hook's own alloc() sees a full pool: nullptr
    EXPECT_EQ(comp.hook_alloc_result, nullptr);
    ASSERT_NE(o, nullptr);
    user.push_back(o);
    EXPECT_EQ(comp.calls[0], 1);
}

TEST_F(PoolGc, UnregisteredHookIsNotCalled) {
    setup(3, 2, 0, 0);
    pool.unregister_gc_hook(&component::hook, &comp);
    EXPECT_EQ(pool.alloc(), nullptr);
    EXPECT_EQ(comp.calls[0], 0);
}

TEST(PoolTrim, ReturnsFreeChunksAboveMinimumOnly) {
    object_pool<obj> p;
    ASSERT_EQ(p.init({"TRIM", 16, 16, 1024}), status::ok);
    std::vector<obj*> v;
    for (int i = 0; i < 64; ++i) v.push_back(p.alloc());
    EXPECT_EQ(p.capacity(), 64u);
    EXPECT_EQ(p.live_chunks(), 4u);
    // One object still in use in the last chunk keeps that chunk alive.
    obj* keep = v.back();
    v.pop_back();
    for (obj* o : v) p.free(o);
    p.collect(gc_mode::simple);
    // Free chunks go until capacity would drop below min; the busy chunk stays.
    EXPECT_EQ(p.live_chunks(), 1u);
    EXPECT_EQ(p.capacity(), 16u);
    EXPECT_EQ(p.at(keep->pool_index), keep);
    p.free(keep);
    p.collect(gc_mode::simple);
    EXPECT_EQ(p.capacity(), 16u);  // never below min
    EXPECT_EQ(p.live_chunks(), 1u);
    EXPECT_EQ(p.in_use(), 0u);
    // Regrowth reuses a released chunk slot, so indexes stay dense.
    for (int i = 0; i < 32; ++i) ASSERT_NE(p.alloc(), nullptr);
    EXPECT_EQ(p.live_chunks(), 2u);
}

}  // namespace
