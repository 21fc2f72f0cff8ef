// SPDX-License-Identifier: MIT
// Cross-memory attach: the receiver of a large message copies it straight
// from the sender's buffer with process_vm_readv (one copy, no segment).
// It needs ptrace-level permission on the sender (same uid; under Yama
// ptrace_scope 1 the sender must name a tracer), so init probes it for
// every local peer and the receiver falls back to the pipelined copy when
// it does not work (docs/shm-protocols.md, "Large messages").
#pragma once
#include <sys/types.h>

#include <cstddef>
#include <cstdint>

#include "netmod/netmod.hpp"
#include "util/status.hpp"

namespace ch4lite::shm::cma {

// Copies n bytes at address `src` of process `pid` into dst. ok, or io when
// the kernel refuses (nothing is known about dst's content then).
status read(pid_t pid, void* dst, uint64_t src, std::size_t n) noexcept;
// The same into a list of local segments (struct iovec layout; niov <= IOV_MAX)
// covering n bytes in all.
status readv(pid_t pid, const nm::iov* dst, int niov, uint64_t src, std::size_t n) noexcept;

// Copies n bytes from src into address `dst` of process `pid`.
status write(pid_t pid, uint64_t dst, const void* src, std::size_t n) noexcept;

// Lets local peers read our memory when Yama restricts ptrace to
// descendants: declares our launcher (parent) as tracer, which admits its
// descendants -- the node's ranks -- and nobody else; a no-op elsewhere.
void allow_peers() noexcept;
// The tracer allow_peers() declares under Yama ptrace_scope `scope`: our
// parent (the launcher) for scope 1, 0 (none) otherwise; never
// PR_SET_PTRACER_ANY.
unsigned long tracer_for_scope(int scope) noexcept;

// Reads 8 bytes at `addr` in `pid` and compares them with `expect`.
bool probe(pid_t pid, uint64_t addr, uint64_t expect) noexcept;

}  // namespace ch4lite::shm::cma
