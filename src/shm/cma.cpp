// SPDX-License-Identifier: MIT
#include "shm/cma.hpp"

#include <sys/prctl.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>

namespace ch4lite::shm::cma {

namespace {
// One contiguous move between `local` and address `remote` of process pid,
// resumed after interruptions and partial moves.
status move(pid_t pid, bool write, std::byte* local, uint64_t remote, std::size_t n) noexcept {
    std::size_t done = 0;
    while (done < n) {
        iovec l{local + done, n - done};
        iovec r{reinterpret_cast<void*>(remote + done), n - done};
        const ssize_t got = write ? ::process_vm_writev(pid, &l, 1, &r, 1, 0)
                                  : ::process_vm_readv(pid, &l, 1, &r, 1, 0);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) return status::io;
        done += static_cast<std::size_t>(got);
    }
    return status::ok;
}
}  // namespace

status read(pid_t pid, void* dst, uint64_t src, std::size_t n) noexcept {
    return move(pid, false, static_cast<std::byte*>(dst), src, n);
}

status write(pid_t pid, uint64_t dst, const void* src, std::size_t n) noexcept {
    return move(pid, true, static_cast<std::byte*>(const_cast<void*>(src)), dst, n);
}

status readv(pid_t pid, const nm::iov* dst, int niov, uint64_t src, std::size_t n) noexcept {
    static_assert(sizeof(nm::iov) == sizeof(iovec));
    const auto* local = reinterpret_cast<const iovec*>(dst);
    iovec remote{reinterpret_cast<void*>(src), n};
    const ssize_t got = ::process_vm_readv(pid, local, static_cast<unsigned long>(niov), &remote, 1, 0);
    if (got == static_cast<ssize_t>(n)) return status::ok;
    // Interrupted or short (rare): finish segment by segment.
    std::size_t done = got > 0 ? static_cast<std::size_t>(got) : 0, at = 0;
    for (int k = 0; k < niov; ++k) {
        const std::size_t len = dst[k].len;
        if (done < at + len) {
            const std::size_t skip = done > at ? done - at : 0;
            const status s = read(pid, static_cast<std::byte*>(const_cast<void*>(dst[k].base)) + skip,
                                  src + at + skip, len - skip);
            if (s != status::ok) return s;
        }
        at += len;
    }
    return status::ok;
}

unsigned long tracer_for_scope(int scope) noexcept {
    // Only Yama scope 1 ("restricted") needs a declared tracer; with scope 0
    // same-uid access is already allowed, with 2/3 nothing we do helps.
    if (scope != 1) return 0;
    // Not PR_SET_PTRACER_ANY (any process of our uid could attach): the
    // launcher that started us -- our parent: mpiexec, Hydra's proxy,
    // slurmstepd, prted -- whose descendants Yama then lets attach, which are
    // the job's ranks on this node (and the launcher's other children). A
    // peer that does not descend from it fails the CMA probe and uses the
    // pipelined copy (docs/shm-segment.md, "Segment security").
    const pid_t launcher = ::getppid();
    return launcher > 1 ? static_cast<unsigned long>(launcher) : 0;
}

void allow_peers() noexcept {
    FILE* f = std::fopen("/proc/sys/kernel/yama/ptrace_scope", "r");
    if (!f) return;
    int scope = -1;
    if (std::fscanf(f, "%d", &scope) != 1) scope = -1;
    std::fclose(f);
    if (const unsigned long tracer = tracer_for_scope(scope))
        (void)::prctl(PR_SET_PTRACER, tracer, 0, 0, 0);
}

bool probe(pid_t pid, uint64_t addr, uint64_t expect) noexcept {
    uint64_t v = 0;
    return read(pid, &v, addr, sizeof v) == status::ok && v == expect;
}

}  // namespace ch4lite::shm::cma
