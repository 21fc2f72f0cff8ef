// SPDX-License-Identifier: MIT
#include "util/pool_buffer.hpp"

#include <cstdlib>
#include <new>

namespace ch4lite::util {

namespace {
object_pool<pack_buffer> g_pack_pool;
}

object_pool<pack_buffer>& pack_buffer_pool() noexcept { return g_pack_pool; }

// Collection stops at aggressive non-blocking by default: waiting for a
// pack buffer is never worth it, the heap backs the pool up.
status pack_buffers_init() { return g_pack_pool.init(pool_config_from_env({"PACK", 2, 2, 64, 2})); }

void pack_buffers_finalize() noexcept { g_pack_pool.destroy(); }

std::byte* scratch::get(std::size_t n) noexcept {
    reset();
    if (n <= inline_bytes) {
        inline_used_ = true;
        return inline_;
    }
    if (n <= pack_buffer::bytes) {
        pb_ = g_pack_pool.alloc_counted(1, 0);
        if (pb_) return pb_->data;
        // The pool is at its maximum: the heap still works for a temporary.
    }
    const std::size_t rounded = (n + 63) & ~std::size_t{63};
    heap_ = static_cast<std::byte*>(std::aligned_alloc(64, rounded ? rounded : 64));
    if (!heap_) {
        // Give back idle pooled chunks (above their minimum) and try once more.
        g_pack_pool.collect(gc_mode::simple);
        heap_ = static_cast<std::byte*>(std::aligned_alloc(64, rounded ? rounded : 64));
    }
    return heap_;
}

std::byte* scratch::data() const noexcept {
    return pb_ ? pb_->data : inline_used_ ? const_cast<std::byte*>(inline_) : heap_;
}

void scratch::reset() noexcept {
    if (pb_) g_pack_pool.release(pb_);
    std::free(heap_);
    pb_ = nullptr;
    heap_ = nullptr;
    inline_used_ = false;
}

}  // namespace ch4lite::util
