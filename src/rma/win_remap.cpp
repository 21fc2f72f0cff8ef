// SPDX-License-Identifier: MIT
// Win_create memory that node peers access directly (docs/rma.md,
// "Remapped Win_create memory").
//
// A Win_create window exposes the user's memory, which node peers could
// only reach through the kernel (cross-memory attach, 10-13 GB/s per core
// here) or by message. A single-threaded process can move the pages that
// hold its window onto a memfd: it copies them into the memfd and
// mremap()s that mapping over them, so the addresses and the contents stay
// the same and only the backing changes. Node peers take the memfd with
// pidfd_getfd (the same permission as cross-memory attach) and map it, and
// access the window like a Win_allocate one: plain loads and stores.
// Win_free moves the pages back onto private anonymous memory the same way.
//
// The copies cost (here 1.4 ms for 1 MiB, create and free), so it happens
// once the window earned it: an origin counts what it moves to each node
// peer by CMA or message; past remap_threshold() it sets `want` in the
// target's slot before its arrival in a closing fence. The target acts in
// that fence, once everybody arrived and before it publishes the next
// epoch: nobody touches its memory in between, as node peers wait for that
// publication before CMA or direct access in a fence in which somebody
// asked (the asker's arrival carries sync_sender, which keeps win::ready
// off everywhere). It publishes the fd in its slot; each node peer that
// asked maps it in the next fence that sees it (others go on by CMA or
// message, which reach the same pages).
//
// Only in a process with one thread (nothing else can store into the pages
// between the copy and the remap; the first and last page may hold other
// data), only private anonymous read-write memory (heap or anonymous
// mappings: no file, shared, stack or named mapping, nothing locked), at
// most CH4LITE_RMA_REMAP_MAX bytes, and not when off-node peers may reach
// the memory by native RMA (a provider may have pinned the old pages);
// CH4LITE_RMA_REMAP=0 turns it off.
// Not while a shm sender may still write into our memory (a split single
// copy of a large receive in progress): then in a later fence. Anything
// that fails leaves the memory as it was: peers then use cross-memory
// attach or messages.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>

#include "device/comm.hpp"
#include "device/device.hpp"
#include "rma/rma.hpp"
#include "rma/sync.hpp"
#include "rma/win_internal.hpp"
#include "rma/wire.hpp"
#include "util/env.hpp"
#include "util/log.hpp"

namespace ch4lite::rma {

namespace {

constexpr uint64_t page = 4096;

// The whole pages holding [base, + size): first page and length.
struct span {
    uint64_t lo, len;
};
span pages_of(uint64_t base, uint64_t size) noexcept {
    const uint64_t lo = base & ~(page - 1);
    return {lo, ((base + size + page - 1) & ~(page - 1)) - lo};
}

bool remap_on() noexcept {
    static const bool v = util::env_bool("CH4LITE_RMA_REMAP", true);
    return v;
}

uint64_t remap_max() noexcept {
    static const uint64_t v = static_cast<uint64_t>(
        std::max<int64_t>(util::env_int("CH4LITE_RMA_REMAP_MAX", int64_t{1} << 30), 0));
    return v;
}

// The whole of a /proc file (small: status, maps).
bool slurp(const char* path, std::string& out) noexcept {
    const int fd = ::open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return false;
    bool ok = true;
    try {
        out.clear();
        char buf[4096];
        for (;;) {
            const ssize_t n = ::read(fd, buf, sizeof buf);
            if (n < 0 && errno == EINTR) continue;
            if (n < 0) ok = false;
            if (n <= 0) break;
            out.append(buf, static_cast<std::size_t>(n));
        }
    } catch (const std::bad_alloc&) {
        ok = false;
    }
    ::close(fd);
    return ok;
}

// The value of a "Key:\t<number>" line of /proc/self/status, or -1.
long status_field(const std::string& s, const char* key) noexcept {
    const std::size_t k = s.find(key);
    if (k == std::string::npos) return -1;
    return std::strtol(s.c_str() + k + std::strlen(key), nullptr, 10);
}

// This process has one thread (and, with `unlocked`, no locked memory).
bool alone(bool unlocked) noexcept {
    std::string s;
    if (!slurp("/proc/self/status", s)) return false;
    return status_field(s, "\nThreads:") == 1 && (!unlocked || status_field(s, "\nVmLck:") == 0);
}

// [lo, hi) lies in private anonymous read-write mappings without a name
// other than [heap], with no gap.
bool private_anon(uint64_t lo, uint64_t hi) noexcept {
    std::string maps;
    if (!slurp("/proc/self/maps", maps)) return false;
    uint64_t cur = lo;
    char* p = maps.data();
    while (*p && cur < hi) {
        char* nl = std::strchr(p, '\n');
        if (nl) *nl = '\0';
        // start-end perms offset major:minor inode [name]
        unsigned long start = 0, end = 0, inode = 0;
        unsigned long long offset = 0;
        unsigned major = 0, minor = 0;
        char perms[8] = {};
        int name_at = 0;
        const int got = std::sscanf(p, "%lx-%lx %7s %llx %x:%x %lu %n", &start, &end, perms, &offset, &major,
                                    &minor, &inode, &name_at);
        if (got < 7) return false;
        const char* name = p + name_at;
        p = nl ? nl + 1 : p + std::strlen(p);
        if (end <= cur) continue;
        if (start > cur) return false;  // a hole
        if (std::strcmp(perms, "rw-p") != 0 || inode != 0 || (name[0] && std::strcmp(name, "[heap]") != 0))
            return false;
        cur = end;
    }
    return cur >= hi;
}

// Copies whole pages, which may hold data beside the window: other heap
// blocks, and under AddressSanitizer its red zones, which it must not see
// as an overflow (nor may its memcpy interceptor).
#if defined(__SANITIZE_ADDRESS__)
[[gnu::no_sanitize_address]] void copy_pages(void* to, const void* from, uint64_t len) noexcept {
    auto* d = static_cast<volatile uint64_t*>(to);
    const auto* s = static_cast<const volatile uint64_t*>(from);
    for (uint64_t i = 0; i < len / 8; ++i) d[i] = s[i];
}
#else
void copy_pages(void* to, const void* from, uint64_t len) noexcept { std::memcpy(to, from, len); }
#endif

// Copies the pages of [from, + len) that hold data into `to` (fresh, so
// zero): pages never touched (/proc/self/pagemap: neither present nor
// swapped) are zeros already, and copying them would only commit memory.
// Without pagemap, all of them.
void copy_touched(std::byte* to, const std::byte* from, uint64_t len) noexcept {
    const int pm = ::open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
    const uint64_t pages = len / page, first = reinterpret_cast<uint64_t>(from) / page;
    uint64_t i = 0, run = 0;  // pages [run, i) are to be copied
    if (pm >= 0) {
        uint64_t e[512];
        while (i < pages) {
            const uint64_t k = std::min<uint64_t>(512, pages - i);
            const ssize_t got = ::pread(pm, e, k * 8, static_cast<off_t>((first + i) * 8));
            if (got != static_cast<ssize_t>(k * 8)) break;  // the rest is copied below
            for (uint64_t j = 0; j < k; ++j, ++i) {
                if (e[j] >> 62) continue;  // present or swapped: keep the run going
                if (run < i) copy_pages(to + run * page, from + run * page, (i - run) * page);
                run = i + 1;
            }
        }
        ::close(pm);
    }
    if (run < pages) copy_pages(to + run * page, from + run * page, (pages - run) * page);
}

// Copies the pages of the memfd mapping [from, + len) (file offset `off`)
// that hold data (SEEK_DATA: peers may have written pages we never
// touched) into `to`; all of them when the file system cannot tell.
void copy_data(std::byte* to, const std::byte* from, uint64_t len, int fd, uint64_t off) noexcept {
    uint64_t pos = 0;
    while (pos < len) {
        const off_t d = ::lseek(fd, static_cast<off_t>(off + pos), SEEK_DATA);
        if (d < 0 && errno == ENXIO) return;  // no data after pos
        if (d < 0) break;
        const off_t h = ::lseek(fd, d, SEEK_HOLE);
        if (h < 0) break;
        const uint64_t a = static_cast<uint64_t>(d) - off;
        if (a >= len) return;
        const uint64_t z = std::min<uint64_t>(static_cast<uint64_t>(h) - off, len);
        copy_pages(to + a, from + a, z - a);
        pos = z;
    }
    copy_pages(to + pos, from + pos, len - pos);
}

// Puts the mapping `to` (len bytes, holding the copy) in the place of the
// pages [at, + len), in one step.
bool swap_in(std::byte* at, void* to, uint64_t len) noexcept {
    if (::mremap(to, len, len, MREMAP_MAYMOVE | MREMAP_FIXED, at) != MAP_FAILED) return true;
    ::munmap(to, len);
    return false;
}

// Our pages [lo, hi) (memfd offset `off`) back onto private anonymous memory.
void move_back(std::byte* lo, std::byte* hi, int fd, uint64_t off) noexcept {
    if (hi <= lo) return;
    const auto len = static_cast<uint64_t>(hi - lo);
    void* priv = ::mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (priv != MAP_FAILED) copy_data(static_cast<std::byte*>(priv), lo, len, fd, off);
    if (priv == MAP_FAILED || !swap_in(lo, priv, len))
        util::warn("rma: window memory at %p (%llu bytes) stays on its memfd: %s", static_cast<void*>(lo),
                   static_cast<unsigned long long>(len), std::strerror(errno));
}

// Moves our window's pages onto a memfd; false when we may not or cannot
// (the memory stays as it was).
bool remap_self(win& w) noexcept {
    // Off-node peers may put into our registered memory through the
    // netmod (native RMA); a provider that pins registered pages would
    // keep writing into the old ones. The netmod contract does not say
    // whether it pins (tcp;ofi_rxm does not), so such windows stay.
    if (w.size == 0 || !w.base || (w.mr.handle && !w.all_node)) return false;
    const auto b = reinterpret_cast<uint64_t>(w.base);
    if (b + w.size < b || b + w.size > UINT64_MAX - page) return false;
    const auto [lo, len] = pages_of(b, w.size);
    // Another Win_create window of ours on these pages: its node peers'
    // accesses are neither counted in our slot nor ordered by our fence,
    // and one could land in the old pages after our copy.
    bool shared_pages = false;
    detail::g_wins.for_each([&](const win* o) {
        if (o == &w || o->fl != flavor::create || o->size == 0 || !o->base) return;
        const span os = pages_of(reinterpret_cast<uint64_t>(o->base), o->size);
        shared_pages = shared_pages || (os.lo < lo + len && lo < os.lo + os.len);
    });
    if (shared_pages) {
        util::verbose("rma: window memory not remapped: another window of this process shares its pages");
        return false;
    }
    if (len > remap_max() || !alone(true) || !private_anon(lo, lo + len)) {
        util::verbose("rma: window memory not remapped: larger than CH4LITE_RMA_REMAP_MAX, other threads, "
                      "locked memory or not private anonymous memory");
        return false;
    }
    const int fd = static_cast<int>(::syscall(SYS_memfd_create, "ch4lite-win", MFD_CLOEXEC));
    if (fd < 0) return false;
    void* shared = MAP_FAILED;
    if (::ftruncate(fd, static_cast<off_t>(len)) == 0)
        shared = ::mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    auto* at = reinterpret_cast<std::byte*>(lo);
    if (shared != MAP_FAILED) copy_touched(static_cast<std::byte*>(shared), at, len);
    if (shared == MAP_FAILED || !swap_in(at, shared, len)) {
        util::verbose("rma: window memory not remapped: %s", std::strerror(errno));
        ::close(fd);
        return false;
    }
    w.remap_fd = fd;
    ++dev::g_dev.stats.rma_remapped;
    return true;
}

// Maps node peer t's remapped memory (its fd `memfd`): direct access from now on.
void map_peer(win& w, int t, int memfd) noexcept {
    const auto i = static_cast<std::size_t>(t);
    w.view_tried[i] = 1;
    const peer_info& p = w.peers[i];
    const auto [lo, len] = pages_of(p.base, p.size);
    const int pidfd = static_cast<int>(::syscall(SYS_pidfd_open, p.pid, 0));
    if (pidfd < 0) return;
    const int fd = static_cast<int>(::syscall(SYS_pidfd_getfd, pidfd, memfd, 0));
    ::close(pidfd);
    if (fd < 0) {
        util::verbose("rma: cannot take rank %d's window memfd: %s", t, std::strerror(errno));
        return;
    }
    void* v = ::mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    ::close(fd);
    if (v == MAP_FAILED) return;
    w.views[i] = static_cast<std::byte*>(v);
    w.direct_base[i] = static_cast<std::byte*>(v) + (p.base - lo);
}

// Credit (bytes) after which we ask node peer t to remap: what the remap
// costs t (a fixed part and, per page, creating and later undoing the
// copy), in bytes of transfers that direct access would save
// (docs/rma.md, "Remapped Win_create memory"), scaled by
// CH4LITE_RMA_REMAP_AFTER percent (0: at once).
uint64_t remap_threshold(const win& w, int t) noexcept {
    static const uint64_t pct =
        static_cast<uint64_t>(std::clamp<int64_t>(util::env_int("CH4LITE_RMA_REMAP_AFTER", 100), 0, 1000000));
    const uint64_t bytes = std::min<uint64_t>(w.peers[static_cast<std::size_t>(t)].size, uint64_t{1} << 40);
    return ((uint64_t{3} << 20) + 22 * bytes) / 100 * pct;
}

std::atomic_ref<uint32_t> want_of(node_slot* s) noexcept { return std::atomic_ref<uint32_t>(s->want); }
std::atomic_ref<int32_t> memfd_of(node_slot* s) noexcept { return std::atomic_ref<int32_t>(s->memfd1); }

}  // namespace

bool remap_request(win& w, int t) noexcept {
    const auto i = static_cast<std::size_t>(t);
    if (!remap_on() || w.view_tried[i] || w.remap_credit[i] < remap_threshold(w, t)) return false;
    node_slot* s = w.slot_of[i];
    if (memfd_of(s).load(std::memory_order_relaxed) != 0 || !dev::g_dev.shm.cma_ok(w.lpid(t))) return false;
    uint32_t seen = 0;
    return want_of(s).compare_exchange_strong(seen, w.epoch + 1, std::memory_order_relaxed) ||
           seen == w.epoch + 1;
}

void remap_fence(win& w) noexcept {
    const uint32_t tag = w.epoch + 1;
    // A sender that writes half of a large message into our memory (shm
    // split single copy) could write into the old pages after our copy:
    // not in this fence, the askers ask again in the next.
    if (want_of(w.my_slot).load(std::memory_order_acquire) == tag) {
        if (memfd_of(w.my_slot).load(std::memory_order_relaxed) == 0 && dev::g_dev.splits_pending == 0)
            memfd_of(w.my_slot).store(remap_self(w) ? w.remap_fd + 1 : -1, std::memory_order_release);
        uint32_t expect = tag;
        (void)want_of(w.my_slot).compare_exchange_strong(expect, 0, std::memory_order_release,
                                                          std::memory_order_relaxed);
    }
    // Only the peers we asked (or would ask): reading a slot costs a cache
    // line its owner writes in every fence.
    for (int t : w.node_peers) {
        const auto i = static_cast<std::size_t>(t);
        if (w.view_tried[i] || w.remap_credit[i] < remap_threshold(w, t)) continue;
        const int32_t m = memfd_of(w.slot_of[i]).load(std::memory_order_acquire);
        if (m > 0) map_peer(w, t, m - 1);
        else if (m < 0) w.view_tried[i] = 1;
    }
}

namespace {

std::atomic_ref<uint32_t> hold_of(node_slot* s) noexcept { return std::atomic_ref<uint32_t>(s->hold); }
std::atomic_ref<uint32_t> inflight_of(node_slot* s) noexcept { return std::atomic_ref<uint32_t>(s->inflight); }

void relax() noexcept {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

}  // namespace

// Dekker with remap_now: either the holder sees our count and waits for
// it, or we see its hold and step back until it is done (a bounded copy
// that waits for nobody else).
void cma_enter(node_slot* s) noexcept {
    for (;;) {
        inflight_of(s).fetch_add(1, std::memory_order_seq_cst);
        if (hold_of(s).load(std::memory_order_seq_cst) == 0) return;
        inflight_of(s).fetch_sub(1, std::memory_order_seq_cst);
        while (hold_of(s).load(std::memory_order_acquire) != 0) relax();
    }
}

void remap_now(win& w) noexcept {
    node_slot* me = w.my_slot;
    if (w.fl != flavor::create || !me || !remap_on() || memfd_of(me).load(std::memory_order_relaxed) != 0)
        return;
    // A shm sender writing half of a large message into our memory is not
    // counted: not now; the asker asks again after as much traffic.
    if (dev::g_dev.splits_pending != 0) return;
    hold_of(me).store(1, std::memory_order_seq_cst);
    while (inflight_of(me).load(std::memory_order_seq_cst) != 0) relax();
    memfd_of(me).store(remap_self(w) ? w.remap_fd + 1 : -1, std::memory_order_release);
    hold_of(me).store(0, std::memory_order_release);
}

void remap_step(win& w, int t) noexcept {
    const auto i = static_cast<std::size_t>(t);
    if (t == w.rank() || w.fl != flavor::create || !w.cma_ok[i] || w.direct_base[i] || w.view_tried[i] ||
        !remap_on())
        return;
    const int32_t m = memfd_of(w.slot_of[i]).load(std::memory_order_acquire);
    if (m > 0) {
        map_peer(w, t, m - 1);
        return;
    }
    if (m < 0) {
        w.view_tried[i] = 1;
        return;
    }
    if (w.remap_credit[i] < remap_threshold(w, t)) return;
    w.remap_credit[i] = 0;  // asked again only after as much traffic
    (void)send_ctl(w, t, ctl_remap, 0);
}

void unmap_remapped(win* w) noexcept {
    for (std::size_t i = 0; i < w->views.size(); ++i) {
        if (!w->views[i]) continue;
        ::munmap(w->views[i], pages_of(w->peers[i].base, w->peers[i].size).len);
        w->views[i] = nullptr;
        w->direct_base[i] = nullptr;
    }
    if (w->remap_fd < 0) return;
    // The first and last page may hold data of others; another thread may
    // store there by now, and its store could be lost between our copy and
    // the remap. Then only the window's whole pages go back; those two
    // stay on the memfd (splitting the mapping, so that a later mremap
    // that grows it fails instead of reaching beyond the memfd's end).
    const auto b = reinterpret_cast<uint64_t>(w->base);
    const span all = pages_of(b, w->size);
    uint64_t lo = all.lo, hi = all.lo + all.len;
    if (!alone(false)) {
        lo = (b + page - 1) & ~(page - 1);
        hi = (b + w->size) & ~(page - 1);
    }
    move_back(reinterpret_cast<std::byte*>(lo), reinterpret_cast<std::byte*>(hi), w->remap_fd, lo - all.lo);
    ::close(w->remap_fd);
    w->remap_fd = -1;
}

}  // namespace ch4lite::rma
