// SPDX-License-Identifier: MIT
// The per-thread pools of alloc.hpp.
#include "dame/alloc.hpp"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>

namespace ch4lite::dame::detail {
namespace {

constexpr std::size_t page = pool_page;
constexpr int big_slots = 64;
// (Sanitizer builds never come here: alloc.hpp's functions are plain
// operator new/delete there.)
// Blocks kept per class and thread, and bytes (the classes above 256
// bytes): 64 types of a WRF struct alive at once are 640 type objects. With
// 256 blocks and 64 KiB (170 type objects) most of them went through
// glibc's malloc/free, whose fastbin consolidation the next program's node
// array triggers: 12-14 % slower per type (bench dame_commit, live64_us).
// At most about 3 MiB per thread, kept only after the thread had that
// much in use at once.
constexpr int pool_cap = 1024;
constexpr std::size_t class_bytes_cap = 256 * 1024;
constexpr std::size_t big_cap = std::size_t{4} << 20;  // bytes of large blocks kept per thread

// CH4LITE_DAME_POOL=0: no pools and no cache, every block from operator
// new and back to operator delete at once (memory checkers; dt_nomem, whose
// failing allocations a warm pool would never reach). Read before any
// other initializer of the library runs (the predefined types already
// allocate), and never changed after.
constinit bool pool_off = false;
[[gnu::constructor(101)]] void read_pool_env() {
    const char* e = std::getenv("CH4LITE_DAME_POOL");
    pool_off = e && (std::strcmp(e, "0") == 0 || std::strcmp(e, "off") == 0);
}

}  // namespace

[[gnu::tls_model("initial-exec")]] constinit thread_local pool_state tls_pool{};

namespace {

// The large blocks a thread keeps, oldest first, on the heap: the module's
// TLS stays small (a dlopen()ed libmpi takes its TLS block from glibc's
// static surplus, because of tls_pool above). Made at the thread's first
// large free; `tls_big_dead` once the thread's reaper has run: a type
// freed later by a destructor of that thread goes straight back to
// operator delete.
struct big_cache {
    struct entry {
        void* p;
        std::size_t bytes;
    };
    entry e[big_slots];
    int n = 0;
    std::size_t held = 0;
};
constinit thread_local big_cache* tls_big = nullptr;
constinit thread_local bool tls_big_dead = false;

void drop_oldest(big_cache& c) noexcept {
    ::operator delete(c.e[0].p);
    c.held -= c.e[0].bytes;
    for (int i = 1; i < c.n; ++i) c.e[i - 1] = c.e[i];
    --c.n;
}

// Returns a thread's blocks to operator delete at its exit; armed at the
// thread's first free.
struct reaper {
    ~reaper() {
        for (std::size_t c = 0; c < pool_classes; ++c) {
            tls_pool.room[c] = 0;  // frees from later destructors go to operator delete
            for (pool_block* b = tls_pool.head[c]; b;) {
                pool_block* n = b->next;
                ::operator delete(b);
                b = n;
            }
            tls_pool.head[c] = nullptr;
        }
    }
};

struct big_reaper {
    ~big_reaper() {
        if (big_cache* c = tls_big) {
            while (c->n) drop_oldest(*c);
            delete c;
            tls_big = nullptr;
        }
        tls_big_dead = true;
    }
};

// The bytes of a block of class c (< pool_classes).
std::size_t class_size(std::size_t c) {
    if (c < pool_small) return (c + 1) * 16;
    const std::size_t k = c - pool_small;
    return (std::size_t{3} + (k & 1)) << (6 + k / 2);
}
// Blocks of class c a thread keeps.
int class_cap(std::size_t c) {
    const std::size_t by_bytes = class_bytes_cap / class_size(c);
    return c < pool_small || by_bytes > std::size_t{pool_cap} ? pool_cap : static_cast<int>(by_bytes);
}

std::size_t whole_pages(std::size_t bytes) { return (bytes + page - 1) & ~(page - 1); }

void* big_alloc(std::size_t bytes) {
    const std::size_t b = whole_pages(bytes);
    if (!tls_big) return ::operator new(b);
    big_cache& c = *tls_big;
    for (int i = c.n - 1; i >= 0; --i)  // the most recently freed first
        if (c.e[i].bytes == b) {
            void* p = c.e[i].p;
            c.held -= b;
            for (int j = i + 1; j < c.n; ++j) c.e[j - 1] = c.e[j];
            --c.n;
            return p;
        }
    return ::operator new(b);
}

void big_free(void* p, std::size_t bytes) noexcept {
    const std::size_t b = whole_pages(bytes);
    if (b > big_cap || tls_big_dead) return ::operator delete(p);
    if (!tls_big) {
        tls_big = new (std::nothrow) big_cache();
        if (!tls_big) return ::operator delete(p);
        static thread_local big_reaper r;
        (void)r;
    }
    big_cache& c = *tls_big;
    while (c.n == big_slots || c.held + b > big_cap) drop_oldest(c);
    c.e[c.n++] = {p, b};
    c.held += b;
}

}  // namespace

bool pools_on() noexcept {
#if defined(CH4LITE_DAME_NO_POOL)
    return false;
#else
    return !pool_off;
#endif
}

// The list of the class was empty, or the request is not pooled.
void* pool_alloc_slow(std::size_t bytes) {
    const std::size_t c = pool_class(bytes);
    if (c < pool_classes && !pool_off) return ::operator new(class_size(c));
    return bytes >= page && !pool_off ? big_alloc(bytes) : ::operator new(bytes);
}

// The class is full, the thread's first free, or the request is not pooled.
void pool_free_slow(void* ptr, std::size_t bytes) noexcept {
    const std::size_t c = pool_class(bytes);
    if (c >= pool_classes) return bytes >= page && !pool_off ? big_free(ptr, bytes) : ::operator delete(ptr);
    pool_state& p = tls_pool;
    if (p.started || pool_off) return ::operator delete(ptr);
    p.started = true;
    static thread_local reaper r;
    (void)r;
    for (std::size_t k = 0; k < pool_classes; ++k) p.room[k] = static_cast<uint16_t>(class_cap(k));
    pool_free(ptr, bytes);
}

}  // namespace ch4lite::dame::detail
