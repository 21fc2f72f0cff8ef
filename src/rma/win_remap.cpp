// SPDX-License-Identifier: MIT
// Win_create memory that node peers access directly (docs/rma.md,
// "Remapped Win_create memory").
//
// A Win_create window exposes the user's memory, which node peers could
// only reach through the kernel (cross-memory attach, 10-13 GB/s per core
// here) or by message. At creation, a single-threaded process moves the
// pages that hold its window onto a memfd: it copies them into the memfd
// and mremap()s that mapping over them, so the addresses and the contents
// stay the same and only the backing changes. Node peers take the memfd
// with pidfd_getfd (the same permission as cross-memory attach) and map it,
// and access the window like a Win_allocate one: plain loads and stores.
// Win_free moves the pages back onto private anonymous memory the same way.
//
// Only in a process with one thread (nothing else can store into the pages
// between the copy and the remap; the first and last page may hold other
// data), only private anonymous read-write memory (heap or anonymous
// mappings: no file, shared, stack or named mapping, nothing locked), at
// most CH4LITE_RMA_REMAP_MAX bytes; CH4LITE_RMA_REMAP=0 turns it off.
// Anything that fails leaves the memory as it was: peers then use
// cross-memory attach or messages.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>

#include "device/comm.hpp"
#include "device/device.hpp"
#include "rma/win_internal.hpp"
#include "util/env.hpp"
#include "util/log.hpp"

namespace ch4lite::rma {

namespace {

constexpr uint64_t page = 4096;

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

// Replaces the pages [at, + len) by a mapping `to` of the same length
// holding a copy of them (mremap moves `to` there in one step).
bool move_onto(std::byte* at, void* to, uint64_t len) noexcept {
    std::memcpy(to, at, len);
    void* r = ::mremap(to, len, len, MREMAP_MAYMOVE | MREMAP_FIXED, at);
    if (r == MAP_FAILED) {
        ::munmap(to, len);
        return false;
    }
    return true;
}

// Pages [lo, hi) back onto private anonymous memory.
void move_back(std::byte* lo, std::byte* hi) noexcept {
    if (hi <= lo) return;
    const auto len = static_cast<uint64_t>(hi - lo);
    void* priv = ::mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (priv == MAP_FAILED || !move_onto(lo, priv, len))
        util::warn("rma: window memory at %p (%llu bytes) stays on its memfd: %s", static_cast<void*>(lo),
                   static_cast<unsigned long long>(len), std::strerror(errno));
}

}  // namespace

void remap_own(win* w, peer_info& mine) noexcept {
    if (!remap_on() || !w->my_slot || w->node_peers.empty() || w->size == 0 || !w->base) return;
    const auto b = reinterpret_cast<uint64_t>(w->base);
    const uint64_t lo = b & ~(page - 1);
    if (b + w->size < b || b + w->size > UINT64_MAX - page) return;
    const uint64_t hi = (b + w->size + page - 1) & ~(page - 1);
    const uint64_t len = hi - lo;
    if (len > remap_max() || !alone(true) || !private_anon(lo, hi)) return;
    const int fd = static_cast<int>(::syscall(SYS_memfd_create, "ch4lite-win", MFD_CLOEXEC));
    if (fd < 0) return;
    void* shared = MAP_FAILED;
    if (::ftruncate(fd, static_cast<off_t>(len)) == 0)
        shared = ::mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    auto* at = reinterpret_cast<std::byte*>(lo);
    if (shared == MAP_FAILED || !move_onto(at, shared, len)) {
        util::verbose("rma: window memory not remapped: %s", std::strerror(errno));
        ::close(fd);
        return;
    }
    w->remap_fd = fd;
    w->remap_lo = at;
    w->remap_len = len;
    mine.memfd = fd;
    ++dev::g_dev.stats.rma_remapped;
}

void map_remapped_peers(win* w) noexcept {
    if (!remap_on()) return;
    for (int r : w->node_peers) {
        const auto i = static_cast<std::size_t>(r);
        const peer_info& p = w->peers[i];
        if (p.memfd < 0 || p.pid <= 0 || w->direct_base[i] || !dev::g_dev.shm.cma_ok(w->lpid(r))) continue;
        const uint64_t lo = p.base & ~(page - 1);
        const uint64_t len = ((p.base + p.size + page - 1) & ~(page - 1)) - lo;
        const int pidfd = static_cast<int>(::syscall(SYS_pidfd_open, p.pid, 0));
        if (pidfd < 0) continue;
        const int fd = static_cast<int>(::syscall(SYS_pidfd_getfd, pidfd, p.memfd, 0));
        ::close(pidfd);
        if (fd < 0) {
            util::verbose("rma: cannot take rank %d's window memfd: %s", r, std::strerror(errno));
            continue;
        }
        void* v = ::mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        ::close(fd);
        if (v == MAP_FAILED) continue;
        w->views[i] = static_cast<std::byte*>(v);
        w->direct_base[i] = static_cast<std::byte*>(v) + (p.base - lo);
    }
}

void unmap_remapped(win* w) noexcept {
    for (std::size_t i = 0; i < w->views.size(); ++i) {
        if (!w->views[i]) continue;
        const peer_info& p = w->peers[i];
        const uint64_t lo = p.base & ~(page - 1);
        ::munmap(w->views[i], ((p.base + p.size + page - 1) & ~(page - 1)) - lo);
        w->views[i] = nullptr;
        w->direct_base[i] = nullptr;
    }
    if (w->remap_fd < 0) return;
    // The first and last page may hold data of others; another thread may
    // store there by now, and its store could be lost between our copy and
    // the remap. Then only the window's whole pages go back; those two
    // stay on the memfd (splitting the mapping, so that a later mremap
    // that grows it fails instead of reaching beyond the memfd's end).
    std::byte* lo = w->remap_lo;
    std::byte* hi = w->remap_lo + w->remap_len;
    if (!alone(false)) {
        const auto b = reinterpret_cast<uint64_t>(w->base);
        lo = reinterpret_cast<std::byte*>((b + page - 1) & ~(page - 1));
        hi = reinterpret_cast<std::byte*>((b + w->size) & ~(page - 1));
    }
    move_back(lo, hi);
    ::close(w->remap_fd);
    w->remap_fd = -1;
}

}  // namespace ch4lite::rma
