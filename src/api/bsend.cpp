// SPDX-License-Identifier: MIT
// Buffered mode: the attached buffers and the buffered send (api/bsend.hpp).
#include "api/bsend.hpp"

#include <cstdlib>
#include <cstring>
#include <new>
#include <utility>

#include "api/errors.hpp"
#include "api/p2p_common.hpp"
#include "dame/dame.hpp"
#include "device/p2p.hpp"
#include "device/progress.hpp"

namespace ch4lite::api {

// Owned by the send request of a buffered message: gives the block back
// when the request is freed (request_free_now deletes its ext).
struct bsend_hold final : dev::request_ext {
    bsend_hold(bsend_buffer* b, std::byte* p) noexcept : buf(b), block(p) {}
    ~bsend_hold() override { buf->send_done(block); }
    bsend_buffer* buf;
    std::byte* block;
};

std::size_t bsend_buffer::used() const noexcept {
    std::size_t n = 0;
    for (const block& b : blocks_) n += b.len;
    return n;
}

std::byte* bsend_buffer::alloc(std::size_t n) noexcept {
    if (automatic_) return static_cast<std::byte*>(std::malloc(n ? n : 1));
    const std::size_t need = n == 0 ? align : (n + align - 1) & ~(align - 1);
    if (need < n) return nullptr;  // overflow
    std::size_t prev_end = 0;
    std::size_t i = 0;
    for (; i < blocks_.size(); ++i) {
        if (blocks_[i].off - prev_end >= need) break;
        prev_end = blocks_[i].off + blocks_[i].len;
    }
    if (i == blocks_.size() && (prev_end > size_ || size_ - prev_end < need)) return nullptr;
    try {
        blocks_.insert(blocks_.begin() + static_cast<std::ptrdiff_t>(i), block{prev_end, need});
    } catch (const std::bad_alloc&) {
        return nullptr;
    }
    return base_ + prev_end;
}

void bsend_buffer::release(std::byte* p) noexcept {
    if (automatic_) {
        std::free(p);
        return;
    }
    const std::size_t off = static_cast<std::size_t>(p - base_);
    std::size_t lo = 0, hi = blocks_.size();
    while (lo < hi) {  // blocks_ is sorted by offset
        const std::size_t mid = (lo + hi) / 2;
        if (blocks_[mid].off < off)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < blocks_.size() && blocks_[lo].off == off)
        blocks_.erase(blocks_.begin() + static_cast<std::ptrdiff_t>(lo));
}

bool bsend_buffer::attach_to(dev::request* r, std::byte* p) noexcept {
    auto* h = new (std::nothrow) bsend_hold(this, p);
    if (!h) return false;
    r->ext = h;
    ++pending_;
    return true;
}

void bsend_buffer::send_done(std::byte* p) noexcept {
    release(p);
    if (--pending_ == 0 && !flush_waiters_.empty()) {
        std::vector<dev::request*> w;
        w.swap(flush_waiters_);
        for (dev::request* r : w) dev::request_complete(r);
    }
}

void bsend_buffer::add_flush_waiter(dev::request* r) noexcept {
    if (pending_ == 0) {
        r->cc = 0;
        return;
    }
    try {
        flush_waiters_.push_back(r);
    } catch (const std::bad_alloc&) {  // wait here instead
        dev::progress_until([this] { return pending_ == 0; });
        r->cc = 0;
    }
}

int bsend_checked(const char* func, dev::comm& c, MPI_Comm comm, const void* buf, int64_t count,
                  const dt_info& d, std::size_t bytes, const void* start, int dest, int tag,
                  MPI_Request* request) noexcept {
    if (dest != MPI_PROC_NULL) {
        bsend_buffer* b = bsend_buffer_for(comm);
        if (!b)
            CH4_FAIL_IN(func, comm, MPI_ERR_BUFFER,
                        "no buffer is attached for buffered sends (MPI_Buffer_attach or "
                        "MPI_Comm_attach_buffer)");
        const bool contig = d.contig || bytes == 0;
        // The shm ring may take a small message at once: no copy. With an
        // attached buffer only after the space check (a program that runs
        // here must not fail elsewhere for lack of buffer).
        std::byte* p = nullptr;
        if (!b->automatic()) {
            p = b->alloc(bytes);
            if (!p) {
                dev::progress();  // sends done meanwhile give their blocks back
                p = b->alloc(bytes);
            }
            if (!p)
                CH4_FAIL_IN(func, comm, MPI_ERR_BUFFER,
                            "the attached buffer (%zu bytes; %zu in use by %zu pending buffered "
                            "sends) has no free block for this %zu-byte message: attach a larger "
                            "one (each message needs its packed size + MPI_BSEND_OVERHEAD)",
                            b->size(), b->used(), b->pending(), bytes);
        }
        if (contig && dev::send_direct(c.ctx_p2p(), start, bytes, c, dest, tag)) {
            if (p) b->release(p);
        } else {
            if (!p) p = b->alloc(bytes);  // automatic
            if (!p) CH4_FAIL_IN(func, comm, MPI_ERR_NO_MEM, "cannot allocate %zu bytes", bytes);
            if (bytes) {
                if (contig)
                    std::memcpy(p, start, bytes);
                else
                    dame::pack(*d.t, buf, count, p);
            }
            dev::request* r = nullptr;
            const status s = dev::isend(p, bytes, c, dest, tag, false, r);
            if (s != status::ok) {
                b->release(p);
                CH4_FAIL_IN(func, comm, class_of(s), "cannot start the send to rank %d: %s", dest,
                            to_string(s));
            }
            if (!b->attach_to(r, p)) {  // no memory to hand the block over: finish here
                dev::wait(r);
                b->release(p);
            }
            dev::request_release(r);  // the block comes back when the send is done
        }
    }
    if (request) {
        dev::request* r = null_request(dev::req_kind::send);
        if (!r) CH4_FAIL_IN(func, comm, MPI_ERR_NO_MEM, "request pool exhausted");
        r->src_rank = MPI_ANY_SOURCE;
        *request = reinterpret_cast<MPI_Request>(dev::request_handle(r));
    }
    return MPI_SUCCESS;
}

}  // namespace ch4lite::api
