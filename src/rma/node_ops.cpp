// SPDX-License-Identifier: MIT
// Accumulate-class operations on a node peer's memory without the peer
// (docs/rma-passive.md, "Operations"): through our mapping of it or by
// cross-memory attach, under its accumulate lock (node_slot::lock, the lock
// the peer takes to apply accumulates that arrive as messages), so they
// stay atomic per element against every other origin, on the node or not.
//
// Any target type: per chunk the target pieces are gathered into a packed
// buffer (the stream a record would carry), combined with the origin's
// packed data by the reduction kernel, and scattered back; the old values
// go to the result buffer first.
#include <sys/uio.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "dame/dame.hpp"
#include "device/op.hpp"
#include "rma/origin.hpp"
#include "rma/sync.hpp"
#include "rma/win_internal.hpp"
#include "shm/cma.hpp"
#include "util/pool_buffer.hpp"

namespace ch4lite::rma {

namespace {

constexpr uint64_t chunk_bytes = uint64_t{64} << 10;
constexpr int max_pieces = 64;

// Moves target-stream bytes [off, off + n) of ts between buf (packed) and
// t's memory (write: into it). False when the kernel refuses a CMA copy.
bool move(win& w, const target_spec& ts, uint64_t off, uint64_t n, std::byte* buf,
          bool write) noexcept {
    const auto t = static_cast<std::size_t>(ts.rank);
    std::byte* direct = w.direct_base[t];
    const pid_t pid = w.peers[t].pid;
    auto* base = direct ? static_cast<void*>(direct + ts.disp)
                        : reinterpret_cast<void*>(w.peers[t].base + ts.disp);
    const cma_pass pass(w, ts.rank, !direct);
    if (ts.t->contiguous()) {
        std::byte* at = static_cast<std::byte*>(base) + ts.t->true_lb() + off;
        if (direct) {
            if (write)
                std::memcpy(at, buf, n);
            else
                std::memcpy(buf, at, n);
            return true;
        }
        const auto addr = static_cast<uint64_t>(reinterpret_cast<uintptr_t>(at));
        return (write ? shm::cma::write(pid, addr, buf, n) : shm::cma::read(pid, buf, addr, n)) ==
               status::ok;
    }
    dame::iov_seg segs[max_pieces];
    iovec remote[max_pieces];
    while (n) {
        const dame::iov_result r = dame::to_iov(*ts.t, base, ts.count, static_cast<int64_t>(off), segs,
                                                max_pieces, static_cast<int64_t>(n));
        if (r.bytes <= 0) return false;
        if (direct) {
            std::byte* p = buf;
            for (int64_t k = 0; k < r.segs; ++k) {
                if (write)
                    std::memcpy(segs[k].base, p, segs[k].len);
                else
                    std::memcpy(p, segs[k].base, segs[k].len);
                p += segs[k].len;
            }
        } else {
            for (int64_t k = 0; k < r.segs; ++k) remote[k] = {segs[k].base, segs[k].len};
            uint64_t done = 0;
            const auto len = static_cast<uint64_t>(r.bytes);
            while (done < len) {  // a partial copy continues where it stopped
                iovec local{buf + done, len - done};
                uint64_t skip = done;
                int first = 0;
                while (skip >= remote[first].iov_len) skip -= remote[first++].iov_len;
                iovec rem[max_pieces];
                const int nr = static_cast<int>(r.segs) - first;
                std::copy(remote + first, remote + r.segs, rem);
                rem[0].iov_base = static_cast<std::byte*>(rem[0].iov_base) + skip;
                rem[0].iov_len -= skip;
                const ssize_t got = write ? ::process_vm_writev(pid, &local, 1, rem, static_cast<unsigned long>(nr), 0)
                                          : ::process_vm_readv(pid, &local, 1, rem, static_cast<unsigned long>(nr), 0);
                if (got < 0 && errno == EINTR) continue;
                if (got <= 0) return false;
                done += static_cast<uint64_t>(got);
            }
        }
        buf += r.bytes;
        off += static_cast<uint64_t>(r.bytes);
        n -= static_cast<uint64_t>(r.bytes);
    }
    return true;
}

}  // namespace

status node_acc(win& w, const buf_spec* o, const buf_spec* r, const target_spec& ts,
                dev::op_id opv) noexcept {
    const uint64_t total = static_cast<uint64_t>(ts.count) * static_cast<uint64_t>(ts.t->size());
    if (total == 0) return status::ok;
    const dame::basic_kind k = ts.t->basic();
    const uint64_t es = dev::packed_size(k);
    const uint64_t chunk = std::max(chunk_bytes / es * es, es);
    const bool apply = o && opv != dev::op_id::no_op;
    util::scratch tmp, otmp;
    std::byte* b = tmp.get(static_cast<std::size_t>(std::min(chunk, total)));
    std::byte* ob = apply && !o->t->contiguous() ? otmp.get(static_cast<std::size_t>(std::min(chunk, total)))
                                                 : nullptr;
    if (!b || (apply && !o->t->contiguous() && !ob)) return status::no_mem;
    node_slot* slot = w.slot_of[static_cast<std::size_t>(ts.rank)];
    for (uint64_t off = 0; off < total; off += chunk) {
        const uint64_t n = std::min(chunk, total - off);
        slot_lock lock(slot);
        if (!move(w, ts, off, n, b, false)) {
            w.cma_ok[static_cast<std::size_t>(ts.rank)] = 0;
            return off == 0 ? status::again : status::io;
        }
        if (r) {
            if (r->t->contiguous())
                std::memcpy(static_cast<std::byte*>(const_cast<void*>(r->buf)) + r->t->true_lb() + off, b, n);
            else
                dame::unpack_range(*r->t, const_cast<void*>(r->buf), r->count, static_cast<int64_t>(off),
                                   static_cast<int64_t>(n), b);
        }
        if (!apply) continue;
        const std::byte* in;
        if (o->t->contiguous()) {
            in = static_cast<const std::byte*>(o->buf) + o->t->true_lb() + off;
        } else {
            pack_origin(*o, off, n, ob);
            in = ob;
        }
        dev::op_apply(opv, k, in, b, n / es);
        if (!move(w, ts, off, n, b, true)) {
            w.cma_ok[static_cast<std::size_t>(ts.rank)] = 0;
            return status::io;  // a chunk torn half-written cannot be repaired
        }
    }
    return status::ok;
}

status node_cas(win& w, const void* origin, const void* compare, void* result,
                const dame::type* t, int rank, uint64_t disp) noexcept {
    const auto n = static_cast<uint64_t>(t->size());
    const target_spec ts{rank, disp, 1, t, true};
    std::byte cur[16];
    if (n > sizeof cur) return status::again;
    slot_lock lock(w.slot_of[static_cast<std::size_t>(rank)]);
    if (!move(w, ts, 0, n, cur, false)) {
        w.cma_ok[static_cast<std::size_t>(rank)] = 0;
        return status::again;
    }
    std::memcpy(static_cast<std::byte*>(result) + t->true_lb(), cur, n);
    if (std::memcmp(cur, static_cast<const std::byte*>(compare) + t->true_lb(), n) != 0) return status::ok;
    if (!move(w, ts, 0, n, const_cast<std::byte*>(static_cast<const std::byte*>(origin) + t->true_lb()), true)) {
        w.cma_ok[static_cast<std::size_t>(rank)] = 0;
        return status::io;
    }
    return status::ok;
}

}  // namespace ch4lite::rma
