// SPDX-License-Identifier: MIT
// Memory for commit: IR nodes, kid lists, displacement lists and the lists
// a type and its program keep.
//
// Commit builds and rewrites many small nodes (a struct of 4-D subarrays
// makes about 70, and normalization replaces most of them), and glibc's
// malloc/free took half of a commit's instructions. Blocks of up to 128
// bytes therefore come from a per-thread free list (16-byte classes), and
// so do blocks of 129 bytes to a page (two classes per power of two, at
// most 256 KiB per class): type objects (256 bytes; a struct of three
// subarrays is 10 of them, more than glibc's per-thread cache keeps of one
// size, and an application may keep tens of such structs), programs and
// short lists.
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
#include <cstdint>
#include <cstring>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

namespace ch4lite::dame {

// Sanitizer builds pool nothing: every block stays visible to the checkers
// (use after free, leaks), and no inline code reaches the thread's lists
// (GCC's UBSan check of that initial-exec TLS access, inlined into another
// translation unit, reports a null pointer during static initialization).
#if defined(__SANITIZE_ADDRESS__) || defined(CH4LITE_SANITIZED)
#define CH4LITE_DAME_NO_POOL 1
#endif

namespace detail {
// Classes: 16, 32, ..., 128 bytes, then two per power of two (192, 256,
// 384, ..., 3072, 4096) for blocks of 129 bytes to a page.
constexpr std::size_t pool_small = 8;                 // the 16-byte classes
constexpr std::size_t pool_classes = pool_small + 10;  // up to pool_page bytes
constexpr std::size_t pool_page = 4096;  // blocks of this or more: the large-block cache

// The class of a request; pool_classes: not pooled (0 bytes, a page or more).
constexpr std::size_t pool_class(std::size_t bytes) noexcept {
    if (bytes - 1 < 128) return (bytes + 15) / 16 - 1;
    if (bytes == 0 || bytes >= pool_page) return pool_classes;
    // b in [2^h, 2^(h+1)), h >= 7: the lower half of that range (up to
    // 1.5 * 2^h) or the upper one.
    const std::size_t b = bytes - 1;
    const int h = 63 - __builtin_clzll(b);
    return pool_small + 2 * static_cast<std::size_t>(h - 7) + ((b >> (h - 1)) & 1);
}

struct pool_block {
    pool_block* next;
};
// A thread's free lists. Trivially destructible and constant-initialized,
// so that initial-exec TLS reaches it with one instruction (no
// __tls_get_addr, no guard, no wrapper; 184 bytes of static TLS, within
// what glibc reserves even for a dlopen()ed libmpi: abi.dlopen_static_tls).
// room[c]: blocks class c may still take; 0 until the thread's first free
// fills it in (alloc.cpp), and 0 again once the thread's lists went back
// to operator delete at its exit, or with the pools off.
struct pool_state {
    pool_block* head[pool_classes];
    uint16_t room[pool_classes];
    bool started;  // room filled in; the reaper armed
};
[[gnu::tls_model("initial-exec")]] extern constinit thread_local pool_state tls_pool;

// Whether freed blocks are kept at all: false in sanitizer builds and with
// CH4LITE_DAME_POOL=0 (tests of the pools' reuse skip their checks then).
bool pools_on() noexcept;

void* pool_alloc_slow(std::size_t bytes);
void pool_free_slow(void* p, std::size_t bytes) noexcept;

#if defined(CH4LITE_DAME_NO_POOL)
inline void* pool_alloc(std::size_t bytes) { return ::operator new(bytes); }
inline void pool_free(void* ptr, std::size_t) noexcept { ::operator delete(ptr); }
#else
// Inline: commit allocates and frees a block per IR node and per list.
inline void* pool_alloc(std::size_t bytes) {
    const std::size_t c = pool_class(bytes);
    if (c < pool_classes) {
        pool_state& p = tls_pool;
        if (pool_block* b = p.head[c]) {
            p.head[c] = b->next;
            ++p.room[c];
            return b;
        }
    }
    return pool_alloc_slow(bytes);
}
inline void pool_free(void* ptr, std::size_t bytes) noexcept {
    const std::size_t c = pool_class(bytes);
    if (c < pool_classes) {
        pool_state& p = tls_pool;
        if (p.room[c] > 0) {
            auto* b = static_cast<pool_block*>(ptr);
            b->next = p.head[c];
            p.head[c] = b;
            --p.room[c];
            return;
        }
    }
    pool_free_slow(ptr, bytes);
}
#endif
// operator new(bytes, std::nothrow) of the classes whose objects come from
// the pool (type, program).
inline void* pool_alloc_nothrow(std::size_t bytes) noexcept try {
    return pool_alloc(bytes);
} catch (const std::bad_alloc&) {
    return nullptr;
}
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

// A stack for the walks that replace recursion: the first N entries in
// place (a walk of a type or IR nested a few levels deep allocates nothing:
// commit's walks had cost a pool block each), the rest in a pool_vec (push
// may then throw std::bad_alloc). top() is invalidated by push().
template <class T, std::size_t N>
class small_stack {
  public:
    small_stack() noexcept {}  // the in-place entries stay raw: nothing to initialize
    small_stack(const small_stack&) = delete;
    small_stack& operator=(const small_stack&) = delete;
    ~small_stack() {
        if constexpr (!std::is_trivially_destructible_v<T>)
            for (std::size_t i = 0; i < n_ && i < N; ++i) at(i)->~T();
    }
    bool empty() const noexcept { return n_ == 0; }
    std::size_t size() const noexcept { return n_; }
    void push(T x) {
        if (n_ < N) ::new (static_cast<void*>(at(n_))) T(std::move(x));
        else more_.push_back(std::move(x));
        ++n_;
    }
    T& top() noexcept { return n_ <= N ? *at(n_ - 1) : more_.back(); }
    void pop() noexcept {
        if (n_ > N) more_.pop_back();
        else at(n_ - 1)->~T();
        --n_;
    }

  private:
    T* at(std::size_t i) noexcept { return std::launder(reinterpret_cast<T*>(in_) + i); }
    alignas(T) unsigned char in_[N * sizeof(T)];
    pool_vec<T> more_;
    std::size_t n_ = 0;
};

// dst becomes src[0..n) (T trivially copyable), at memcpy speed.
template <class T>
void copy_into(pool_vec<T>& dst, const T* src, std::size_t n) {
    dst.resize(n);
    if (n) std::memcpy(dst.data(), src, n * sizeof(T));
}

}  // namespace ch4lite::dame
