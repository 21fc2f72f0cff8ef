// SPDX-License-Identifier: MIT
// Memory-object pools (seed 002, "Memory Objects").
//
// One template serves requests, unexpected-message buffers, RMA operations and
// pack buffers. A pool allocates `min_count` objects at init, grows by chunks
// of `chunk` objects up to `max_count`, and when it is full runs garbage
// collection before giving up:
//   simple                 – hooks free what they can without losing speed,
//                            and the pool returns wholly free chunks above min;
//   aggressive_nonblocking – hooks may drop caches, fall back to slow paths;
//   aggressive_blocking    – hooks may drive progress until objects return.
// If the pool is still full, alloc() returns nullptr and the caller reports
// MPI_ERR_NO_MEM: never a crash.
//
// Objects are addressed by a dense index (chunk, offset), which is what request
// handles encode. Objects are constructed once, when their chunk is created,
// and are reused without re-construction; callers initialise what they use.
//
// Limits come from the environment: CH4LITE_<NAME>_POOL_MIN / _CHUNK / _MAX.
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

// A component's cleanup hook: frees objects it caches or waits for some to be
// returned. Off the hot path, so a plain function pointer is fine here.
using gc_hook = void (*)(gc_mode mode, void* ctx);

struct pool_config {
    const char* name;      // used for env names and messages, e.g. "REQUEST"
    uint32_t min_count;    // allocated at init
    uint32_t chunk;        // growth step; rounded up to a power of two
    uint32_t max_count;    // hard limit; 0 = (1 << 20)
};

// Reads CH4LITE_<name>_POOL_{MIN,CHUNK,MAX} over the given defaults.
pool_config pool_config_from_env(pool_config dflt);

// Every pooled type derives from pool_object.
struct pool_object {
    ilist_node pool_link;      // free-list membership
    uint32_t pool_index = 0;   // dense index, stable for the object's life
    uint8_t pool_gen = 0;      // bumped at every free; handles carry it
    bool pool_in_use = false;
};

struct pool_stats {
    uint64_t allocs = 0, frees = 0, grows = 0, gc_runs[3] = {0, 0, 0}, failures = 0;
};

template <class T>
class object_pool {
    static_assert(std::is_base_of_v<pool_object, T>, "pooled types derive from pool_object");

  public:
    object_pool() = default;
    object_pool(const object_pool&) = delete;
    object_pool& operator=(const object_pool&) = delete;
    ~object_pool() { destroy(); }

    status init(pool_config cfg);
    void destroy() noexcept;

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
    // The object at `index`, or nullptr if out of range, released or not in use.
    T* at(uint32_t index) const noexcept {
        const uint32_t c = index >> shift_;
        if (c >= chunks_.size() || !chunks_[c]) return nullptr;
        T* obj = &chunks_[c][index & (chunk_size() - 1)];
        return obj->pool_in_use ? obj : nullptr;
    }

    void register_gc_hook(gc_hook hook, void* ctx) { hooks_.push_back({hook, ctx}); }
    // Runs one GC mode: the hooks, then the pool's own trim (all modes).
    void collect(gc_mode mode) noexcept;

    uint32_t in_use() const noexcept { return in_use_; }
    uint32_t capacity() const noexcept { return capacity_; }
    uint32_t max_count() const noexcept { return cfg_.max_count; }
    uint32_t chunk_size() const noexcept { return 1u << shift_; }
    std::size_t live_chunks() const noexcept;
    const pool_stats& stats() const noexcept { return stats_; }
    const char* name() const noexcept { return cfg_.name; }

  private:
    [[gnu::noinline]] T* alloc_slow() noexcept;
    bool grow() noexcept;
    void trim() noexcept;

    struct hook_entry {
        gc_hook fn;
        void* ctx;
    };
    pool_config cfg_{};
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
