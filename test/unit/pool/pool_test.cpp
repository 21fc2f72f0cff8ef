// SPDX-License-Identifier: MIT
// object_pool: min at init, growth in chunks up to an exact max, a clean
// nullptr beyond it, handles by index and generation, counted objects,
// environment limits, pack buffers and scratch.
#include <gtest/gtest.h>

#include <cstdlib>
#include <vector>

#include "util/pool.hpp"
#include "util/pool_buffer.hpp"

using namespace ch4lite;
using namespace ch4lite::util;

namespace {

struct item : pool_object {
    int payload = 0;
};
struct shared_item : counted_object {
    int payload = 0;
};

TEST(Pool, MinAllocatedAtInit) {
    object_pool<item> p;
    ASSERT_EQ(p.init({"T", 100, 32, 1000}), status::ok);
    EXPECT_GE(p.capacity(), 100u);
    EXPECT_EQ(p.capacity(), 128u);  // 4 chunks of 32
    EXPECT_EQ(p.stats().grows, 4u);
    EXPECT_EQ(p.in_use(), 0u);
}

TEST(Pool, GrowsInChunksUpToExactMaxThenFailsCleanly) {
    object_pool<item> p;
    ASSERT_EQ(p.init({"T", 0, 16, 100}), status::ok);
    EXPECT_EQ(p.capacity(), 0u);
    std::vector<item*> got;
    for (int i = 0; i < 100; ++i) {
        item* x = p.alloc();
        ASSERT_NE(x, nullptr) << "allocation " << i;
        x->payload = i;
        got.push_back(x);
        EXPECT_EQ(p.capacity() % 16 == 0 || p.capacity() == 100, true);
    }
    EXPECT_EQ(p.capacity(), 100u);  // the last chunk is only partly in service
    EXPECT_EQ(p.stats().grows, 7u);
    // Full: nullptr, counted as a failure, every GC mode tried once.
    EXPECT_EQ(p.alloc(), nullptr);
    EXPECT_EQ(p.alloc(), nullptr);
    EXPECT_EQ(p.stats().failures, 2u);
    EXPECT_EQ(p.stats().gc_runs[0], 2u);
    EXPECT_EQ(p.stats().gc_runs[2], 2u);
    EXPECT_EQ(p.in_use(), 100u);
    for (int i = 0; i < 100; ++i) EXPECT_EQ(got[i]->payload, i);
    // Freeing one makes exactly one allocation possible again.
    p.free(got[42]);
    item* again = p.alloc();
    EXPECT_EQ(again, got[42]);
    EXPECT_EQ(p.alloc(), nullptr);
    for (item* x : got) p.free(x);
    EXPECT_EQ(p.in_use(), 0u);
}

TEST(Pool, MaxSmallerThanChunkAndMin) {
    object_pool<item> p;
    ASSERT_EQ(p.init({"T", 50, 64, 5}), status::ok);
    EXPECT_EQ(p.max_count(), 5u);
    EXPECT_EQ(p.capacity(), 5u);
    for (int i = 0; i < 5; ++i) ASSERT_NE(p.alloc(), nullptr);
    EXPECT_EQ(p.alloc(), nullptr);
}

TEST(Pool, UninitializedOrDestroyedPoolAllocatesNothing) {
    object_pool<item> p;
    EXPECT_FALSE(p.initialized());
    EXPECT_EQ(p.alloc(), nullptr);
    ASSERT_EQ(p.init({"T", 4, 4, 8}), status::ok);
    EXPECT_TRUE(p.initialized());
    EXPECT_NE(p.alloc(), nullptr);
    p.destroy();
    EXPECT_FALSE(p.initialized());
    EXPECT_EQ(p.alloc(), nullptr);
}

TEST(Pool, IndexLookupAndGenerations) {
    object_pool<item> p;
    ASSERT_EQ(p.init({"T", 8, 8, 64}), status::ok);
    item* a = p.alloc();
    const uint32_t idx = a->pool_index;
    const uint8_t gen = a->pool_gen;
    EXPECT_EQ(p.at(idx), a);
    EXPECT_EQ(p.at(1u << 19), nullptr);  // beyond every chunk
    p.free(a);
    EXPECT_EQ(p.at(idx), nullptr);  // released objects are not found
    item* b = p.alloc();             // LIFO: the same object, a new generation
    EXPECT_EQ(b, a);
    EXPECT_NE(b->pool_gen, gen);
    p.free(b);
}

TEST(Pool, CountedObjectsFreeWhenRefsAndCompletionsReachZero) {
    object_pool<shared_item> p;
    ASSERT_EQ(p.init({"T", 4, 4, 4}), status::ok);
    // Owner releases first, completion arrives later.
    shared_item* a = p.alloc_counted(1, 2);
    p.release(a);
    EXPECT_EQ(p.in_use(), 1u);
    p.complete(a);
    EXPECT_EQ(p.in_use(), 1u);
    p.complete(a);
    EXPECT_EQ(p.in_use(), 0u);
    // Completions first, two owners.
    shared_item* b = p.alloc_counted(1, 1);
    p.retain(b);
    p.complete(b);
    p.release(b);
    EXPECT_EQ(p.in_use(), 1u);
    p.release(b);
    EXPECT_EQ(p.in_use(), 0u);
}

TEST(Pool, EnvironmentLimits) {
    setenv("CH4LITE_ENVT_POOL_MIN", "3", 1);
    setenv("CH4LITE_ENVT_POOL_CHUNK", "5", 1);
    setenv("CH4LITE_ENVT_POOL_MAX", "1K", 1);
    setenv("CH4LITE_ENVT_POOL_GC", "simple", 1);
    pool_config c = pool_config_from_env({"ENVT", 1, 1, 1});
    EXPECT_EQ(c.min_count, 3u);
    EXPECT_EQ(c.chunk, 5u);
    EXPECT_EQ(c.max_count, 1024u);
    EXPECT_EQ(c.max_gc, 1);
    object_pool<item> p;
    ASSERT_EQ(p.init(c), status::ok);
    EXPECT_EQ(p.chunk_size(), 8u);  // rounded up to a power of two
    EXPECT_EQ(p.capacity(), 8u);
    // Out-of-range and malformed values keep the defaults.
    setenv("CH4LITE_ENVT_POOL_MAX", "-4", 1);
    setenv("CH4LITE_ENVT_POOL_MIN", "9999999", 1);
    setenv("CH4LITE_ENVT_POOL_GC", "sometimes", 1);
    c = pool_config_from_env({"ENVT", 1, 1, 77});
    EXPECT_EQ(c.max_count, 77u);
    EXPECT_EQ(c.min_count, 1u);
    EXPECT_EQ(c.max_gc, 3);
    for (const char* v : {"MIN", "CHUNK", "MAX", "GC"}) {
        std::string n = std::string("CH4LITE_ENVT_POOL_") + v;
        unsetenv(n.c_str());
    }
}

TEST(PackBuffers, ScratchUsesPoolThenHeap) {
    ASSERT_EQ(pack_buffers_init(), status::ok);
    auto& pool = pack_buffer_pool();
    const uint32_t before = pool.in_use();
    {
        scratch tiny;  // a few hundred bytes live in the object: no pool operation
        std::byte* t = tiny.get(scratch::inline_bytes);
        ASSERT_NE(t, nullptr);
        EXPECT_EQ(reinterpret_cast<uintptr_t>(t) % 64, 0u);
        EXPECT_EQ(tiny.data(), t);
        EXPECT_EQ(pool.in_use(), before);
        scratch small;
        std::byte* p = small.get(scratch::inline_bytes + 1);
        ASSERT_NE(p, nullptr);
        EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 64, 0u);
        EXPECT_EQ(pool.in_use(), before + 1);
        p[scratch::inline_bytes] = std::byte{1};
        scratch big;
        std::byte* q = big.get(pack_buffer::bytes + 1);
        ASSERT_NE(q, nullptr);
        EXPECT_EQ(reinterpret_cast<uintptr_t>(q) % 64, 0u);
        q[pack_buffer::bytes] = std::byte{2};
        EXPECT_EQ(pool.in_use(), before + 1);  // big requests do not use the pool
        // Re-getting replaces the old buffer.
        EXPECT_NE(small.get(pack_buffer::bytes + 10), nullptr);
        EXPECT_EQ(pool.in_use(), before);
    }
    EXPECT_EQ(pool.in_use(), before);
    // The pool at its maximum: small scratch falls back to the heap.
    std::vector<scratch> all(pool.max_count() + 2);
    for (auto& s : all) ASSERT_NE(s.get(1000), nullptr);
    EXPECT_EQ(pool.in_use(), pool.max_count());
    all.clear();
    EXPECT_EQ(pool.in_use(), 0u);
    pack_buffers_finalize();
}

}  // namespace
