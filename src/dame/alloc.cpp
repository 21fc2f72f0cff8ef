// SPDX-License-Identifier: MIT
// The per-thread pools of alloc.hpp.
#include "dame/alloc.hpp"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>

namespace ch4lite::dame::detail {
namespace {

// Classes: 16, 32, ..., 128 bytes, then two per power of two (192, 256,
// 384, ..., 3072, 4096) for blocks of 129 bytes to a page: type objects
// (280 bytes), programs, short lists.
constexpr std::size_t n_small = 8;                 // the 16-byte classes
constexpr std::size_t n_classes = n_small + 10;    // up to 4096 bytes
constexpr std::size_t page = 4096;                 // blocks of page or more: the large-block cache
constexpr int big_slots = 64;
#if defined(__SANITIZE_ADDRESS__)
constexpr int pool_cap = 0;  // keep use-after-free detectable
constexpr std::size_t class_bytes_cap = 0;
constexpr std::size_t big_cap = 0;
#else
constexpr int pool_cap = 256;  // blocks kept per class and thread
constexpr std::size_t class_bytes_cap = 64 * 1024;  // and bytes (the classes above 256 bytes)
constexpr std::size_t big_cap = std::size_t{4} << 20;  // bytes of large blocks kept per thread
#endif

struct block {
    block* next;
};

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

// Trivially destructible, so that initial-exec TLS reaches it with one
// instruction (no __tls_get_addr, no guard; 184 bytes of static TLS, within
// what glibc reserves even for a dlopen()ed libmpi: abi.dlopen_static_tls). The blocks a thread
// holds go back to operator delete at its exit through `reaper`, which is
// touched only when the pool first asks operator new for a block.
struct pool {
    block* head[n_classes];
    uint16_t held[n_classes];
    bool reaped;
};
[[gnu::tls_model("initial-exec")]] constinit thread_local pool tls_pool{};

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

struct reaper {
    ~reaper() {
        for (block*& b : tls_pool.head)
            while (b) {
                block* n = b->next;
                ::operator delete(b);
                b = n;
            }
        for (uint16_t& h : tls_pool.held) h = 0;
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

// The block class of a request; n_classes: not pooled.
std::size_t class_of(std::size_t bytes) {
    if (bytes - 1 < 128) return (bytes + 15) / 16 - 1;
    if (bytes == 0 || bytes >= page) return n_classes;
    // b in [2^h, 2^(h+1)), h >= 7: the lower half of that range (up to
    // 1.5 * 2^h) or the upper one.
    const std::size_t b = bytes - 1;
    const int h = 63 - __builtin_clzll(b);
    return n_small + 2 * (h - 7) + ((b >> (h - 1)) & 1);
}
// The bytes of a block of class c (< n_classes).
std::size_t class_size(std::size_t c) {
    if (c < n_small) return (c + 1) * 16;
    const std::size_t k = c - n_small;
    return (std::size_t{3} + (k & 1)) << (6 + k / 2);
}
// Blocks of class c a thread keeps.
int class_cap(std::size_t c) {
    const std::size_t by_bytes = class_bytes_cap / class_size(c);
    return c < n_small || by_bytes > std::size_t{pool_cap} ? pool_cap : static_cast<int>(by_bytes);
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

void* pool_alloc(std::size_t bytes) {
    if (pool_off) return ::operator new(bytes);
    const std::size_t c = class_of(bytes);
    if (c >= n_classes) return bytes >= page ? big_alloc(bytes) : ::operator new(bytes);
    pool& p = tls_pool;
    if (block* b = p.head[c]) {
        p.head[c] = b->next;
        --p.held[c];
        return b;
    }
    if (!p.reaped) {
        static thread_local reaper r;
        (void)r;
        p.reaped = true;
    }
    return ::operator new(class_size(c));
}

void pool_free(void* ptr, std::size_t bytes) noexcept {
    if (pool_off) return ::operator delete(ptr);
    const std::size_t c = class_of(bytes);
    if (c >= n_classes) return bytes >= page ? big_free(ptr, bytes) : ::operator delete(ptr);
    pool& p = tls_pool;
    if (p.held[c] >= class_cap(c)) return ::operator delete(ptr);
    auto* b = static_cast<block*>(ptr);
    b->next = p.head[c];
    p.head[c] = b;
    ++p.held[c];
}

}  // namespace ch4lite::dame::detail
