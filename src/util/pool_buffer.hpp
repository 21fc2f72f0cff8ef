// SPDX-License-Identifier: MIT
// Pack buffers: fixed-size, cache-line-aligned byte buffers from an
// object_pool (CH4LITE_PACK_POOL_{MIN,CHUNK,MAX,GC}). Collectives stage
// noncontiguous data and reduction operands in them, so the small-message
// path never calls malloc; the datatype-on-the-wire path may pipeline
// through them (they are counted objects: several sends can share one).
//
// `scratch` is the RAII way to get temporary bytes: a few hundred bytes
// inside the object itself (reduction operands of small messages: no pool
// operation at all), a pack buffer when the request fits one, otherwise the
// heap; nullptr (-> MPI_ERR_NO_MEM) when neither can provide it.
#pragma once
#include <cstddef>

#include "util/pool.hpp"
#include "util/status.hpp"

namespace ch4lite::util {

struct pack_buffer : counted_object {
    static constexpr std::size_t bytes = 64 * 1024;
    alignas(64) std::byte data[bytes];
};

object_pool<pack_buffer>& pack_buffer_pool() noexcept;
// Sets the pool up from the environment (min 2, chunk 2, max 64, GC up to
// nonblocking by default).
status pack_buffers_init();
void pack_buffers_finalize() noexcept;

class scratch {
  public:
    static constexpr std::size_t inline_bytes = 256;

    scratch() = default;
    ~scratch() { reset(); }
    scratch(const scratch&) = delete;
    scratch& operator=(const scratch&) = delete;

    // At least n bytes, 64-byte aligned, valid until reset() or destruction;
    // replaces what this object held. nullptr when out of memory.
    std::byte* get(std::size_t n) noexcept;
    std::byte* data() const noexcept;
    void reset() noexcept;

  private:
    pack_buffer* pb_ = nullptr;
    std::byte* heap_ = nullptr;
    bool inline_used_ = false;
    alignas(64) std::byte inline_[inline_bytes];
};

}  // namespace ch4lite::util
