// SPDX-License-Identifier: MIT
// A table that hands out encoded handles (util/handle.hpp) for heap objects
// that are not pool objects: communicators, groups, datatypes, ops,
// errhandlers, windows. Lookup is one bounds check and one generation check.
#pragma once
#include <cstdint>
#include <new>
#include <vector>

#include "util/handle.hpp"

namespace ch4lite::util {

template <class T, handle_kind Kind>
class handle_table {
  public:
    // The encoded handle value, or 0 when the table is full (full() tells)
    // or cannot grow (out of memory).
    uintptr_t insert(T* obj) noexcept {
        uint32_t idx;
        if (free_head_ != npos) {
            idx = free_head_;
            free_head_ = slots_[idx].next_free;
        } else {
            if (full()) return 0;
            idx = static_cast<uint32_t>(slots_.size());
            try {
                slots_.push_back({});
            } catch (const std::bad_alloc&) {
                return 0;
            }
        }
        slot& s = slots_[idx];
        s.obj = obj;
        s.next_free = npos;
        return handle_encode(Kind, s.gen, idx);
    }
    // Every index is in use: insert() fails whatever memory there is.
    bool full() const noexcept { return free_head_ == npos && slots_.size() > handle_max_index; }
    T* lookup(uintptr_t h) const noexcept {
        if (handle_kind_of(h) != Kind || handle_is_builtin(h)) return nullptr;
        const uint32_t idx = handle_index_of(h);
        if (idx >= slots_.size()) return nullptr;
        const slot& s = slots_[idx];
        if (s.obj == nullptr || s.gen != handle_gen_of(h)) return nullptr;
        return s.obj;
    }
    // Releases the slot; the handle (and copies of it) become invalid.
    void erase(uintptr_t h) noexcept {
        const uint32_t idx = handle_index_of(h);
        if (idx >= slots_.size()) return;
        slot& s = slots_[idx];
        s.obj = nullptr;
        s.gen = (s.gen + 1) & handle_gen_mask;
        s.next_free = free_head_;
        free_head_ = idx;
    }
    std::size_t live() const noexcept {
        std::size_t n = 0;
        for (const slot& s : slots_) n += s.obj != nullptr;
        return n;
    }
    template <class F>
    void for_each(F&& f) const {
        for (const slot& s : slots_)
            if (s.obj) f(s.obj);
    }

  private:
    static constexpr uint32_t npos = ~0u;
    struct slot {
        T* obj = nullptr;
        uint32_t gen = 1;
        uint32_t next_free = npos;
    };
    std::vector<slot> slots_;
    uint32_t free_head_ = npos;
};

}  // namespace ch4lite::util
