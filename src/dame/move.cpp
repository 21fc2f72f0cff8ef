// SPDX-License-Identifier: MIT
// Entry points of the engine (dame.hpp) over the interpreter (interp.hpp).
#include <sys/uio.h>

#include <algorithm>
#include <cstddef>

#include "dame/dame.hpp"
#include "dame/interp.hpp"
#include "dame/stream.hpp"
#include "util/stream_copy.hpp"

// Segments are handed to libfabric / readv as struct iovec without copying.
static_assert(sizeof(ch4lite::dame::iov_seg) == sizeof(struct iovec));
static_assert(offsetof(ch4lite::dame::iov_seg, base) == offsetof(struct iovec, iov_base));
static_assert(offsetof(ch4lite::dame::iov_seg, len) == offsetof(struct iovec, iov_len));

namespace ch4lite::dame {
namespace {

char* mut(const void* p) { return const_cast<char*>(static_cast<const char*>(p)); }

// A streaming move (stream.hpp): every block through copy_nt, one fence.
template <dir D>
struct nt_copier {
    static constexpr bool fast = false;
    char* packed;
    bool full(const program&, const node&, char*) noexcept { return true; }
    bool piece(char* addr, int64_t len) noexcept {
        if constexpr (D == dir::pack) copy_nt(packed, addr, len);
        else copy_nt(addr, packed, len);
        packed += len;
        return true;
    }
};

// Streams the whole move if it is large enough and its blocks long enough;
// false: move it the normal way.
template <dir D>
[[gnu::noinline]] bool stream_whole(const type& t, char* buf, int64_t count, char* out,
                                    int64_t bytes) noexcept {
    if (bytes < stream_min()) return false;
    if (t.contiguous()) {
        char* typed = buf + t.true_lb();
        if constexpr (D == dir::pack) copy_nt(out, typed, bytes);
        else copy_nt(typed, out, bytes);
    } else {
        const program& p = *t.prog();
        if (bytes / p.segments(count) < stream_min_block) return false;
        nt_copier<D> op{out};
        walk(p, p.top(count), buf, 0, bytes, op);
    }
    util::stream_fence();
    count_stream_move();
    return true;
}

template <dir D>
void whole(const type& t, const void* buf, int64_t count, const void* packed) noexcept {
    if (count <= 0 || t.size() == 0) return;
    char* out = mut(packed);
    if (const int64_t bytes = count * t.size(); bytes >= stream_floor) [[unlikely]]
        if (stream_whole<D>(t, mut(buf), count, out, bytes)) return;
    if (t.contiguous()) {  // one block (extent == size): one copy, no interpreter
        char* typed = mut(buf) + t.true_lb();
        if constexpr (D == dir::pack) (void)copy_one(out, typed, count * t.size());
        else (void)copy_one(typed, out, count * t.size());
        return;
    }
    const program& p = *t.prog();
    if (count == 1) {  // the common case: no virtual top node
        run_full<D>(p, p.root(), mut(buf), out);
        return;
    }
    const node top = p.top(count);
    run_full<D>(p, top, mut(buf), out);
}

template <dir D>
int64_t ranged(const type& t, const void* buf, int64_t count, int64_t offset, int64_t len,
               const void* packed) noexcept {
    const int64_t total = count > 0 ? count * t.size() : 0;
    if (offset < 0 || offset >= total || len <= 0) return 0;
    const int64_t hi = offset + std::min(len, total - offset);
    if (offset == 0 && hi == total) {  // the whole stream (an eager message): the kernels, no seek
        whole<D>(t, buf, count, packed);
        return total;
    }
    const program& p = *t.prog();
    const node top = p.top(count);
    copier<D> op{mut(packed)};
    walk(p, top, mut(buf), offset, hi, op);
    return hi - offset;
}

struct iov_op {
    static constexpr bool fast = false;
    iov_seg* out;
    int64_t max;
    int64_t n = 0;
    int64_t bytes = 0;
    bool full(const program&, const node&, char*) noexcept { return true; }
    bool piece(char* a, int64_t len) noexcept {
        if (n > 0 && static_cast<char*>(out[n - 1].base) + out[n - 1].len == a) {
            out[n - 1].len += static_cast<size_t>(len);
        } else {
            if (n == max) return false;
            out[n++] = {a, static_cast<size_t>(len)};
        }
        bytes += len;
        return true;
    }
};

}  // namespace

void pack(const type& t, const void* buf, int64_t count, void* packed) noexcept {
    whole<dir::pack>(t, buf, count, packed);
}
void unpack(const type& t, void* buf, int64_t count, const void* packed) noexcept {
    whole<dir::unpack>(t, buf, count, packed);
}
int64_t pack_range(const type& t, const void* buf, int64_t count, int64_t offset, int64_t len,
                   void* packed) noexcept {
    return ranged<dir::pack>(t, buf, count, offset, len, packed);
}
int64_t unpack_range(const type& t, void* buf, int64_t count, int64_t offset, int64_t len,
                     const void* packed) noexcept {
    return ranged<dir::unpack>(t, buf, count, offset, len, packed);
}

int64_t pack_next(move_state& s, const type& t, const void* buf, int64_t count, void* out,
                  int64_t max_bytes) noexcept {
    if (s.total == 0) s.total = count > 0 ? count * t.size() : 0;
    const int64_t n = pack_range(t, buf, count, s.offset, max_bytes, out);
    s.offset += n;
    return n;
}
int64_t unpack_next(move_state& s, const type& t, void* buf, int64_t count, const void* in,
                    int64_t bytes) noexcept {
    if (s.total == 0) s.total = count > 0 ? count * t.size() : 0;
    const int64_t n = unpack_range(t, buf, count, s.offset, bytes, in);
    s.offset += n;
    return n;
}

iov_result to_iov(const type& t, const void* buf, int64_t count, int64_t offset, iov_seg* out,
                  int64_t max_segs, int64_t max_bytes) noexcept {
    const int64_t total = count > 0 ? count * t.size() : 0;
    if (offset < 0 || offset >= total || max_segs <= 0 || max_bytes <= 0) return {0, 0};
    const int64_t hi = offset + std::min(max_bytes, total - offset);
    const program& p = *t.prog();
    const node top = p.top(count);
    iov_op op{out, max_segs};
    walk(p, top, mut(buf), offset, hi, op);
    return {op.n, op.bytes};
}

int64_t iov_count(const type& t, int64_t count) noexcept {
    return t.size() == 0 ? 0 : t.prog()->segments(count);
}

int64_t copy(const type& st, const void* sbuf, int64_t scount, const type& dt, void* dbuf,
             int64_t dcount) noexcept {
    const int64_t n = std::min(scount * st.size(), dcount * dt.size());
    if (n <= 0) return 0;
    if (st.contiguous()) {
        unpack_range(dt, dbuf, dcount, 0, n, static_cast<const char*>(sbuf) + st.true_lb());
    } else if (dt.contiguous()) {
        pack_range(st, sbuf, scount, 0, n, static_cast<char*>(dbuf) + dt.true_lb());
    } else {
        alignas(64) char chunk[16384];
        for (int64_t off = 0; off < n; off += sizeof chunk) {
            const int64_t len = std::min<int64_t>(sizeof chunk, n - off);
            pack_range(st, sbuf, scount, off, len, chunk);
            unpack_range(dt, dbuf, dcount, off, len, chunk);
        }
    }
    return n;
}

}  // namespace ch4lite::dame
