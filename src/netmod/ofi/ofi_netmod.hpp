// SPDX-License-Identifier: MIT
// The libfabric netmod (docs/netmod-ofi.md). One RDM endpoint, one tagged
// completion queue, an AV table indexed by world rank.
//   - active messages: untagged fi_send/fi_sendv into multi-receive buffers
//     (mandatory service)
//   - native tagged send/receive: fi_tsend/fi_trecv with the match bits of
//     netmod/tagbits.hpp, scatter receives with fi_trecvv (optional services; off
//     when CH4LITE_FORCE_AM)
//   - native RMA: fi_writemsg (delivery complete) / fi_readmsg into memory
//     registered with fi_mr_reg (optional service; off when the provider
//     lacks FI_RMA or CH4LITE_OFI_RMA=0)
// Hot paths (isend, irecv, am_send, progress) are inline here.
#pragma once
#include <rdma/fabric.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>
#include <rdma/fi_tagged.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "netmod/netmod.hpp"
#include "netmod/tagbits.hpp"

#ifndef CH4LITE_FORCE_AM
#define CH4LITE_FORCE_AM 0
#endif

namespace ch4lite::nm::ofi {

namespace tagbits = nm::tagbits;

// Kinds of completion contexts; every context starts with an op_ctx.
enum class op_kind : uint8_t {
    tsend,        // tagged send
    tsend_sync,   // tagged synchronous send (local completion + ack)
    trecv,        // tagged receive
    am_send,      // active message send
    am_buffer,    // multi-receive buffer
    probe,        // FI_PEEK probe
    rma,          // fi_write / fi_read
};

struct op_ctx {
    fi_context2 ctx;  // must stay first: libfabric hands back &ctx
    op_kind kind;
};

// Wire header in front of every active message.
struct am_wire {
    uint8_t handler;   // 0 = netmod-internal (sync ack), else the device's id
    uint8_t hlen;      // device header bytes that follow
    uint16_t reserved;
    int32_t src;       // sender's world rank
};
inline constexpr uint8_t internal_sync_ack = 0;
inline constexpr uint32_t no_limit = UINT32_MAX;  // request_state::limit of an unpadded receive

class netmod {
  public:
    struct request_state : op_ctx {
        uint8_t pending = 0;     // sync send: completions still expected
        uint8_t cancel = 0;      // 1: cancel requested, 2: cancelled
        uint8_t hlen = 0;
        uint32_t cookie = 0;     // sync send: index in the ack table
        uint32_t limit = no_limit;  // receive: the user's bytes if padded (see pad_to_), else no_limit
        alignas(8) std::byte hdr[sizeof(am_wire) + 40];  // AM headers live here until sent
    };

    static constexpr const char* name = "ofi";
    static constexpr capabilities caps{
        .native_tagged = !CH4LITE_FORCE_AM,
        .native_rma = true,  // at run time: rma_usable()
        .am_payload_iov = true,
        .am_ordered = true,  // we require FI_ORDER_SAS
        .iov_limit = 3,      // provider limit 4 minus the header segment
        .inject_size = 64,   // lower bound over supported providers; see inject_
        .am_header_max = 40,
        .am_payload_max = 64 * 1024,
        // irecvv (fi_trecvv); at run time min(this, provider rx iov_limit)
        .tagged_iov_limit = CH4LITE_FORCE_AM ? 0 : 4,
    };

    netmod();
    ~netmod();
    status init(dev::bootstrap& bs);
    status finalize();
    const char* provider() const { return provider_.c_str(); }

    // ---- progress -----------------------------------------------------------
    int progress() {
        // Not nested (a pool's garbage collection may poll from inside a
        // completion handler): completions read later would be handled
        // before the rest of this batch, active messages out of order.
        if (__builtin_expect(polling_, 0)) return 0;
        if (__builtin_expect(!repost_.empty(), 0)) retry_reposts();
        fi_cq_tagged_entry e[16];
        const ssize_t n = fi_cq_read(cq_, e, 16);
        if (n > 0) {
            polling_ = true;
            for (ssize_t i = 0; i < n; ++i) on_completion(e[i]);
            polling_ = false;
            return static_cast<int>(n);
        }
        if (n == -FI_EAGAIN) return 0;
        return on_cq_error(n);
    }

    // ---- active messages ----------------------------------------------------
    status am_send(int peer, uint8_t handler, const void* hdr, std::size_t hlen, const iov* payload,
                   int niov, request_state* st) {
        std::size_t plen = 0;
        for (int i = 0; i < niov; ++i) plen += payload[i].len;
        const am_wire w{handler, static_cast<uint8_t>(hlen), 0, rank_};
        const std::size_t total = sizeof w + hlen + plen;
        // (total <= max_inject always holds when total <= inject_; saying so
        // lets GCC see that the copies fit buf.)
        if (total <= inject_ && total <= max_inject) {  // copy out now: no completion, buffers free at once
            alignas(8) std::byte buf[max_inject];
            std::memcpy(buf, &w, sizeof w);
            if (hlen) std::memcpy(buf + sizeof w, hdr, hlen);  // hdr/base may be null when empty
            std::size_t off = sizeof w + hlen;
            for (int i = 0; i < niov; ++i) {
                if (payload[i].len) std::memcpy(buf + off, payload[i].base, payload[i].len);
                off += payload[i].len;
            }
            return map(fi_inject(ep_, buf, total, static_cast<fi_addr_t>(peer)), status::ok);
        }
        if (st == nullptr || hlen > caps.am_header_max || niov > static_cast<int>(caps.iov_limit))
            return status::invalid;
        st->kind = op_kind::am_send;
        std::memcpy(st->hdr, &w, sizeof w);
        if (hlen) std::memcpy(st->hdr + sizeof w, hdr, hlen);
        struct ::iovec v[4];
        v[0] = {st->hdr, sizeof w + hlen};
        for (int i = 0; i < niov; ++i) v[i + 1] = {const_cast<void*>(payload[i].base), payload[i].len};
        return map(fi_sendv(ep_, v, nullptr, static_cast<size_t>(niov) + 1,
                            static_cast<fi_addr_t>(peer), &st->ctx),
                   status::in_progress);
    }

    // ---- native tagged (used only when caps.native_tagged) ------------------
    status isend(int peer, match m, const void* buf, std::size_t n, unsigned flags,
                 request_state* st) {
        const uint64_t tag = tagbits::make(m.context, m.rank, m.tag);
        if (flags & send_sync) return isend_sync(peer, tag, buf, n, st);
        if (n <= inject_)
            return map(fi_tinject(ep_, buf, n, static_cast<fi_addr_t>(peer), tag), status::ok);
        st->kind = op_kind::tsend;
        return map(fi_tsend(ep_, buf, n, nullptr, static_cast<fi_addr_t>(peer), tag, &st->ctx),
                   status::in_progress);
    }
    status irecv(int peer, match m, void* buf, std::size_t n, request_state* st) {
        (void)peer;  // the source rank is in the match bits
        const uint64_t ignore = recv_ignore(m);
        const uint64_t tag = recv_tag(m);
        st->kind = op_kind::trecv;
        st->cancel = 0;
        st->limit = no_limit;
        if (__builtin_expect(n < pad_to_, 1)) {  // see pad_to_
            struct ::iovec fv[2] = {{buf, n}, {pad_.get(), pad_to_ - n}};
            st->limit = static_cast<uint32_t>(n);
            return map(fi_trecvv(ep_, fv, nullptr, 2, FI_ADDR_UNSPEC, tag, ignore, &st->ctx),
                       status::in_progress);
        }
        return map(fi_trecv(ep_, buf, n, nullptr, FI_ADDR_UNSPEC, tag, ignore, &st->ctx),
                   status::in_progress);
    }
    // Scatter receive (caps.tagged_iov_limit): one tagged receive into up to
    // tagged_iov_max() segments; the sender sends a plain tagged message.
    std::size_t tagged_iov_max() const { return pad_to_ ? tagged_iov_ - 1 : tagged_iov_; }
    status irecvv(int peer, match m, const iov* v, int n, request_state* st) {
        (void)peer;
        struct ::iovec fv[caps.tagged_iov_limit > 0 ? caps.tagged_iov_limit : 1];
        if (n < 1 || static_cast<std::size_t>(n) > tagged_iov_max()) return status::invalid;
        std::size_t total = 0;
        for (int i = 0; i < n; ++i) {
            fv[i] = {const_cast<void*>(v[i].base), v[i].len};
            total += v[i].len;
        }
        st->kind = op_kind::trecv;  // completions, truncation, cancel: as irecv
        st->cancel = 0;
        st->limit = no_limit;
        if (total < pad_to_) {
            fv[n++] = {pad_.get(), pad_to_ - total};
            st->limit = static_cast<uint32_t>(total);
        }
        return map(fi_trecvv(ep_, fv, nullptr, static_cast<size_t>(n), FI_ADDR_UNSPEC, recv_tag(m),
                             recv_ignore(m), &st->ctx),
                   status::in_progress);
    }
    bool iprobe(int peer, match m, recv_info& info);
    status isend_rts(int peer, match m, uint64_t data, request_state* st) {
        // 0 bytes never exceed the inject size: always done at once (ok).
        (void)st;
        const uint64_t tag = tagbits::make(m.context, m.rank, m.tag) | tagbits::rts;
        return map(fi_tinjectdata(ep_, nullptr, 0, data, static_cast<fi_addr_t>(peer), tag),
                   status::ok);
    }
    // Native tagged messaging is declined for providers whose tagged path
    // breaks MPI semantics (see ofi_init.cpp); CH4LITE_OFI_TAGGED=0|1 forces.
    bool tagged_usable() const { return tagged_ok_; }
    bool cancel_recv(request_state* st);

    // ---- native RMA (used only when rma_usable()) ---------------------------
    bool rma_usable() const { return rma_ok_; }
    std::size_t rma_max() const { return rma_max_; }
    status mr_register(void* buf, std::size_t n, mem_region& mr);
    void mr_release(mem_region& mr);
    // A put completes once the bytes are in the target's memory
    // (FI_DELIVERY_COMPLETE): the RMA layer's fence relies on it.
    status put(int peer, const void* buf, std::size_t n, uint64_t raddr, uint64_t key,
               request_state* st) {
        struct ::iovec v{const_cast<void*>(buf), n};
        fi_rma_iov r{raddr, n, key};
        fi_msg_rma msg{&v, nullptr, 1, static_cast<fi_addr_t>(peer), &r, 1, &st->ctx, 0};
        st->kind = op_kind::rma;
        return map(fi_writemsg(ep_, &msg, FI_COMPLETION | FI_DELIVERY_COMPLETE), status::in_progress);
    }
    status get(int peer, void* buf, std::size_t n, uint64_t raddr, uint64_t key, request_state* st) {
        struct ::iovec v{buf, n};
        fi_rma_iov r{raddr, n, key};
        fi_msg_rma msg{&v, nullptr, 1, static_cast<fi_addr_t>(peer), &r, 1, &st->ctx, 0};
        st->kind = op_kind::rma;
        return map(fi_readmsg(ep_, &msg, FI_COMPLETION), status::in_progress);
    }

  private:
    static constexpr std::size_t max_inject = 4096;

    static uint64_t recv_ignore(match m) {
        uint64_t ignore = tagbits::sync | tagbits::rts;
        if (m.rank == any) ignore |= tagbits::rank_mask;
        if (m.tag == any) ignore |= tagbits::tag_mask;
        return ignore;
    }
    static uint64_t recv_tag(match m) {
        return tagbits::make(m.context, m.rank == any ? 0 : m.rank, m.tag == any ? 0 : m.tag);
    }
    static status map(ssize_t rc, status on_success) {
        if (__builtin_expect(rc == 0, 1)) return on_success;
        if (rc == -FI_EAGAIN) return status::again;
        return rc == -FI_ENOMEM ? status::no_mem : status::io;  // provider's malloc failed
    }
    status isend_sync(int peer, uint64_t tag, const void* buf, std::size_t n, request_state* st);
    void on_completion(const fi_cq_tagged_entry& e);
    int on_cq_error(ssize_t rc);
    void on_am_buffer(const fi_cq_tagged_entry& e);
    void send_sync_ack(int peer, uint32_t cookie);
    status post_am_buffer(std::size_t i);
    void retry_reposts();
    void close_all();

    struct am_buffer : op_ctx {
        std::unique_ptr<std::byte[]> mem;
        std::size_t size = 0;
    };

    fi_info* info_ = nullptr;
    fid_fabric* fabric_ = nullptr;
    fid_domain* domain_ = nullptr;
    fid_av* av_ = nullptr;
    fid_cq* cq_ = nullptr;
    fid_ep* ep_ = nullptr;
    int rank_ = 0;
    int size_ = 1;
    std::size_t inject_ = 0;  // provider's inject size, capped at max_inject
    bool multi_recv_ = false; // AM buffers are multi-receive (else one message each)
    bool polling_ = false;    // inside progress(): handling a batch of completions
    bool tagged_ok_ = false;  // native tagged path usable with this provider
    std::size_t tagged_iov_ = 0;  // segments irecvv takes (provider's rx iov_limit)
    bool rma_ok_ = false;     // the provider does FI_RMA and CH4LITE_OFI_RMA allows it
    std::size_t rma_max_ = 0; // largest single put / get
    uint64_t next_key_ = 1;   // requested keys when the provider does not pick them
    // libfabric 1.17's rxm crashes or leaves a stale message behind when it
    // truncates a message it sends by segmentation (SAR, up to
    // FI_OFI_RXM_SAR_LIMIT). So with rxm, a tagged receive of fewer than
    // pad_to_ bytes gets one more segment, into the scratch buffer pad_,
    // that fills it up to pad_to_: rxm never truncates a SAR message, and
    // the netmod reports truncation itself when a completion is longer than
    // the user's part (request_state::limit). pad_to_ == 0: no padding.
    std::size_t pad_to_ = 0;
    std::unique_ptr<std::byte[]> pad_;
    std::string provider_;
    std::vector<am_buffer> am_bufs_;
    std::vector<std::size_t> repost_;  // AM buffers the provider could not take back yet
    std::vector<request_state*> sync_table_;  // outstanding sync sends by cookie
    std::vector<uint32_t> sync_free_;
    // Probe in flight (FI_PEEK completes through the CQ).
    struct probe_ctx : op_ctx {
        int state = 0;  // 0 pending, 1 found, 2 not found
        recv_info info{};
    };
    probe_ctx probe_{};
};

}  // namespace ch4lite::nm::ofi
