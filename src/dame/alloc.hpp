// SPDX-License-Identifier: MIT
// Memory for commit: IR nodes, kid lists, displacement lists and the lists
// a type and its program keep.
//
// Commit builds and rewrites many small nodes (a struct of 4-D subarrays
// makes about 70, and normalization replaces most of them), and glibc's
// malloc/free took half of a commit's instructions. Blocks of up to 128
// bytes therefore come from a per-thread free list (16-byte classes), and
// so do blocks of 129 bytes to a page (two classes per power of two, at
// most 64 KiB per class): type objects (280 bytes; a struct of three
// subarrays is 16 of them, more than glibc's per-thread cache keeps of one
// size), programs and short lists.
//
// Index types hold their displacements several times over while they are
// built and committed (the type, the IR, Träff's path, the program's 32-bit
// list): LAMMPS_full/195968 allocates about 700 KiB in blocks of 12-24 KiB.
// Freed, they leave the top of glibc's heap above its trim threshold (128
// KiB until the process frees a block it had mmap()ed), the heap shrinks,
// and the next type faults every page in again: 72 page faults per
// construct + commit, 60 % of its time. Blocks of 4 KiB or more therefore
// are rounded to whole pages and a thread keeps the last ones it freed
// (at most big_slots blocks, big_cap bytes), handing one out again for a
// request of the same rounded size.
#pragma once
#include <cstddef>
#include <cstring>
#include <new>
#include <utility>
#include <vector>

namespace ch4lite::dame {

namespace detail {
void* pool_alloc(std::size_t bytes);
void pool_free(void* p, std::size_t bytes) noexcept;
}  // namespace detail

template <class T>
struct pool_allocator {
    using value_type = T;
    pool_allocator() = default;
    template <class U>
    pool_allocator(const pool_allocator<U>&) noexcept {}
    T* allocate(std::size_t n) { return static_cast<T*>(detail::pool_alloc(n * sizeof(T))); }
    void deallocate(T* p, std::size_t n) noexcept { detail::pool_free(p, n * sizeof(T)); }
    // Elements a list grows by without a value are default-initialized, that
    // is, integers are not zeroed: such a list is filled right after
    // (copy_into). A vector with any other allocator constructs element by
    // element (its copies are not memcpy), so copies go through copy_into.
    template <class U>
    void construct(U* p) noexcept(noexcept(U())) {
        ::new (static_cast<void*>(p)) U;
    }
    template <class U, class... A>
    void construct(U* p, A&&... a) {
        ::new (static_cast<void*>(p)) U(std::forward<A>(a)...);
    }
    template <class U>
    bool operator==(const pool_allocator<U>&) const noexcept { return true; }
};

template <class T>
using pool_vec = std::vector<T, pool_allocator<T>>;

// dst becomes src[0..n) (T trivially copyable), at memcpy speed.
template <class T>
void copy_into(pool_vec<T>& dst, const T* src, std::size_t n) {
    dst.resize(n);
    if (n) std::memcpy(dst.data(), src, n * sizeof(T));
}

}  // namespace ch4lite::dame
