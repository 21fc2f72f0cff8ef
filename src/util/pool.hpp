// SPDX-License-Identifier: MIT
// Memory-object pools (seed 002, "Memory Objects").
//
// One template serves requests, unexpected-message buffers, RMA operations and
// pack buffers (util/pool_buffer.hpp). A pool allocates `min_count` objects at
// init, grows by chunks of `chunk` objects up to `max_count`, and when it is
// full runs garbage collection before giving up, escalating through the modes
// up to `max_gc`:
//   simple                 – hooks free what they can without losing speed
//                            (caches of idle objects), and the pool returns
//                            wholly free chunks above min;
//   aggressive_nonblocking – hooks may drop caches that cost a slow path later
//                            (e.g. a lookaside buffer that must be rebuilt);
//   aggressive_blocking    – hooks may drive progress until objects return.
// The first mode after which an object is free ends the collection. If the
// pool is still full, alloc() returns nullptr and the caller reports
// MPI_ERR_NO_MEM: never a crash.
//
// Objects are addressed by a dense index (chunk, offset), which is what request
// handles encode. Objects are constructed once, when their chunk is created,
// and are reused without re-construction; callers initialise what they use.
//
// Objects that several owners share, or that wait for several completion
// events, derive from counted_object: the pool frees one when both its
// reference count and its completion count reach zero, in either order.
//
// Limits come from the environment: CH4LITE_<NAME>_POOL_MIN / _CHUNK / _MAX,
// and CH4LITE_<NAME>_POOL_GC = off | simple | nonblocking | blocking (the
// most aggressive mode the pool may run; default blocking).
#pragma once
#include <cstdint>
#include <memory>
#include <type_traits>
#include <vector>

#include "util/ilist.hpp"
#include "util/status.hpp"

namespace ch4lite::util {

enum class gc_mode { simple, aggressive_nonblocking, aggressive_blocking };
inline constexpr gc_mode gc_modes[] = {gc_mode::simple, gc_mode::aggressive_nonblocking,
                                       gc_mode::aggressive_blocking};
const char* to_string(gc_mode m) noexcept;

// A component's cleanup hook: frees objects it caches or waits for some to be
// returned. Off the hot path, so a plain function pointer is fine here.
using gc_hook = void (*)(gc_mode mode, void* ctx);

struct pool_config {
    const char* name;      // used for env names and messages, e.g. "REQUEST"
    uint32_t min_count;    // allocated at init
    uint32_t chunk;        // growth step; rounded up to a power of two
    uint32_t max_count;    // hard limit; 0 = (1 << 20)
    int max_gc = 3;        // modes the pool may run: 0 none, 1 simple, 2 +nonblocking, 3 +blocking
};

// Reads CH4LITE_<name>_POOL_{MIN,CHUNK,MAX,GC} over the given defaults.
pool_config pool_config_from_env(pool_config dflt);

// Every pooled type derives from pool_object.
struct pool_object {
    ilist_node pool_link;      // free-list membership
    uint32_t pool_index = 0;   // dense index, stable for the object's life
    uint8_t pool_gen = 0;      // bumped at every free; handles carry it
    bool pool_in_use = false;
};

// Pooled objects with shared owners and pending completions (RMA operations,
// pack buffers referenced by several sends). See object_pool::release/complete.
struct counted_object : pool_object {
    int32_t refs = 0;  // owners: handles, queues, the call that issued it
    int32_t cc = 0;    // completion events still to come
};

struct pool_stats {
    uint64_t allocs = 0, frees = 0, grows = 0, failures = 0;
    uint64_t gc_runs[3] = {0, 0, 0};    // collections run, per mode
    uint64_t gc_rescues[3] = {0, 0, 0}; // collections that made an allocation succeed
};

template <class T>
class object_pool {
    static_assert(std::is_base_of_v<pool_object, T>, "pooled types derive from pool_object");
    static constexpr bool counted = std::is_base_of_v<counted_object, T>;

  public:
    object_pool() = default;
    object_pool(const object_pool&) = delete;
    object_pool& operator=(const object_pool&) = delete;
    ~object_pool() { destroy(); }

    status init(pool_config cfg) noexcept;
    void destroy() noexcept;
    bool initialized() const noexcept { return cfg_.max_count != 0; }

    // Fast path: pop the free list. Slow path (out of line): grow or collect.
    T* alloc() noexcept {
        T* obj = static_cast<T*>(free_.pop_front());
        if (__builtin_expect(obj == nullptr, 0)) obj = alloc_slow();
        if (obj) {
            obj->pool_in_use = true;
            ++in_use_;
            ++stats_.allocs;
        }
        return obj;
    }
    void free(T* obj) noexcept {
        obj->pool_in_use = false;
        obj->pool_gen = static_cast<uint8_t>((obj->pool_gen + 1) & 0x7f);
        --in_use_;
        ++stats_.frees;
        free_.push_front(obj);  // LIFO: the hottest object is reused first
    }

    // ---- counted objects (T derives from counted_object)
    // An object with `refs` owners and `cc` pending completions.
    T* alloc_counted(int32_t refs, int32_t cc) noexcept requires counted {
        T* obj = alloc();
        if (obj) {
            obj->refs = refs;
            obj->cc = cc;
        }
        return obj;
    }
    void retain(T* obj) noexcept requires counted { ++obj->refs; }
    // One owner is done; frees the object if nothing else holds or awaits it.
    void release(T* obj) noexcept requires counted {
        if (--obj->refs == 0 && obj->cc == 0) free(obj);
    }
    // One completion event; frees the object if it was the last and no owner remains.
    void complete(T* obj) noexcept requires counted {
        if (--obj->cc == 0 && obj->refs == 0) free(obj);
    }

    // The object at `index`, or nullptr if out of range, released or not in use.
    T* at(uint32_t index) const noexcept {
        const uint32_t c = index >> shift_;
        if (c >= chunks_.size() || !chunks_[c]) return nullptr;
        T* obj = &chunks_[c][index & (chunk_size() - 1)];
        return obj->pool_in_use ? obj : nullptr;
    }

    // Calls f(T*) for every object in use (slow: for teardown and rare scans).
    template <class F>
    void for_each_in_use(F&& f) const {
        for (std::size_t c = 0; c < chunks_.size(); ++c)
            if (chunks_[c])
                for (uint32_t i = 0; i < chunk_usable_[c]; ++i)
                    if (chunks_[c][i].pool_in_use) f(&chunks_[c][i]);
    }

    void register_gc_hook(gc_hook hook, void* ctx) { hooks_.push_back({hook, ctx}); }
    void unregister_gc_hook(gc_hook hook, void* ctx) noexcept;
    // Runs one GC mode: the hooks, then the pool's own trim (all modes).
    void collect(gc_mode mode) noexcept;

    uint32_t in_use() const noexcept { return in_use_; }
    uint32_t capacity() const noexcept { return capacity_; }
    uint32_t min_count() const noexcept { return cfg_.min_count; }
    uint32_t max_count() const noexcept { return cfg_.max_count; }
    uint32_t chunk_size() const noexcept { return 1u << shift_; }
    int max_gc() const noexcept { return cfg_.max_gc; }
    std::size_t live_chunks() const noexcept;
    const pool_stats& stats() const noexcept { return stats_; }
    const char* name() const noexcept { return cfg_.name; }

  private:
    [[gnu::noinline, gnu::cold]] T* alloc_slow() noexcept;
    bool grow() noexcept;
    void trim() noexcept;

    struct hook_entry {
        gc_hook fn;
        void* ctx;
    };
    pool_config cfg_{"", 0, 0, 0, 0};
    uint32_t shift_ = 0;
    uint32_t capacity_ = 0;
    uint32_t in_use_ = 0;
    std::vector<std::unique_ptr<T[]>> chunks_;
    std::vector<uint32_t> chunk_usable_;  // objects of each chunk in service
    std::vector<uint32_t> chunk_free_;    // scratch for trim()
    ilist<pool_object, &pool_object::pool_link> free_;  // holds T objects
    std::vector<hook_entry> hooks_;
    pool_stats stats_;
    bool collecting_ = false;
};

}  // namespace ch4lite::util

#include "util/pool_impl.hpp"
