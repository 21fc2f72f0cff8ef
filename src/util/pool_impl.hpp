// SPDX-License-Identifier: MIT
// Out-of-line parts of object_pool (growth, garbage collection). Included by
// pool.hpp only; kept apart so the hot path reads in one screen.
#pragma once
#include <algorithm>
#include <bit>
#include <new>

namespace ch4lite::util {

template <class T>
status object_pool<T>::init(pool_config cfg) noexcept {
    destroy();
    if (cfg.max_count == 0) cfg.max_count = 1u << 20;
    if (cfg.chunk == 0) cfg.chunk = 64;
    cfg.chunk = std::bit_ceil(cfg.chunk);
    if (cfg.max_count > (1u << 20)) cfg.max_count = 1u << 20;  // handle index space
    if (cfg.min_count > cfg.max_count) cfg.min_count = cfg.max_count;
    if (cfg.chunk > cfg.max_count) cfg.chunk = std::bit_ceil(cfg.max_count);
    cfg.max_gc = std::clamp(cfg.max_gc, 0, 3);
    cfg_ = cfg;
    shift_ = static_cast<uint32_t>(std::countr_zero(cfg.chunk));
    // Room for every chunk up front: grow() then never reallocates these.
    const std::size_t max_chunks = (cfg.max_count + cfg.chunk - 1) / cfg.chunk;
    try {
        chunks_.reserve(max_chunks);
        chunk_usable_.reserve(max_chunks);
        chunk_free_.reserve(max_chunks);
    } catch (const std::bad_alloc&) {
        cfg_.max_count = 0;  // stays uninitialized
        return status::no_mem;
    }
    while (capacity_ < cfg_.min_count)
        if (!grow()) return status::no_mem;
    return status::ok;
}

template <class T>
void object_pool<T>::destroy() noexcept {
    while (!free_.empty()) free_.pop_front();
    chunks_.clear();
    chunk_usable_.clear();
    chunk_free_.clear();
    capacity_ = in_use_ = 0;
    cfg_.max_count = 0;  // an uninitialized pool allocates nothing
}

template <class T>
void object_pool<T>::unregister_gc_hook(gc_hook hook, void* ctx) noexcept {
    std::erase_if(hooks_, [&](const hook_entry& h) { return h.fn == hook && h.ctx == ctx; });
}

template <class T>
bool object_pool<T>::grow() noexcept {
    if (capacity_ >= cfg_.max_count) return false;
    // Reuse a released chunk slot before appending a new one.
    std::size_t c = 0;
    while (c < chunks_.size() && chunks_[c]) ++c;
    const uint32_t n = chunk_size();
    // The last chunk may be only partly used so that max_count is exact.
    const uint32_t usable = std::min(n, cfg_.max_count - capacity_);
    std::unique_ptr<T[]> mem(new (std::nothrow) T[n]);
    if (!mem) return false;
    if (c == chunks_.size()) {
        chunks_.push_back(nullptr);
        chunk_usable_.push_back(0);
        chunk_free_.push_back(0);
    }
    for (uint32_t i = 0; i < n; ++i) mem[i].pool_index = static_cast<uint32_t>(c) * n + i;
    for (uint32_t i = 0; i < usable; ++i) free_.push_back(&mem[i]);
    chunks_[c] = std::move(mem);
    chunk_usable_[c] = usable;
    capacity_ += usable;
    ++stats_.grows;
    return true;
}

template <class T>
T* object_pool<T>::alloc_slow() noexcept {
    if (capacity_ < cfg_.max_count && grow()) return static_cast<T*>(free_.pop_front());
    if (!collecting_) {
        collecting_ = true;  // hooks may allocate from this pool; no recursion
        for (int m = 0; m < cfg_.max_gc && free_.empty(); ++m) {
            collect(gc_modes[m]);
            // A hook may also have released memory that lets us grow again.
            if (free_.empty() && capacity_ < cfg_.max_count) grow();
            if (!free_.empty()) ++stats_.gc_rescues[m];
        }
        collecting_ = false;
    }
    T* obj = static_cast<T*>(free_.pop_front());
    if (!obj) ++stats_.failures;
    return obj;
}

template <class T>
void object_pool<T>::collect(gc_mode mode) noexcept {
    ++stats_.gc_runs[static_cast<int>(mode)];
    for (const hook_entry& h : hooks_) h.fn(mode, h.ctx);
    trim();
}

// Returns chunks whose objects are all free, as long as capacity stays >= min.
template <class T>
void object_pool<T>::trim() noexcept {
    std::fill(chunk_free_.begin(), chunk_free_.end(), 0);
    for (pool_object* o = free_.front(); o; o = free_.next(o)) ++chunk_free_[o->pool_index >> shift_];
    for (std::size_t c = chunks_.size(); c-- > 0;) {
        const uint32_t u = chunk_usable_[c];
        if (!chunks_[c] || chunk_free_[c] != u || capacity_ - u < cfg_.min_count) continue;
        for (uint32_t i = 0; i < u; ++i) free_.remove(&chunks_[c][i]);
        chunks_[c].reset();
        capacity_ -= u;
    }
}

template <class T>
std::size_t object_pool<T>::live_chunks() const noexcept {
    std::size_t k = 0;
    for (const auto& c : chunks_) k += c != nullptr;
    return k;
}

}  // namespace ch4lite::util
