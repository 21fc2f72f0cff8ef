// SPDX-License-Identifier: MIT
// The UCX netmod, stage A: the mandatory services only (docs/netmod-ucx.md,
// docs/netmod-guide.md walks through it). One UCP worker, one endpoint per
// world rank, and one UCP active-message id that carries the device's
// active messages:
//   UCP AM header  = am_wire (handler, device header length, sender) + the
//                    device header (<= caps.am_header_max bytes)
//   UCP AM payload = the device payload
// Small payloads go eager (UCP_AM_SEND_FLAG_EAGER); from am_rndv_min_ bytes
// UCX's own AM rendezvous (UCP_AM_SEND_FLAG_RNDV) moves them, and the
// receiver asks the device where they belong (dev::am_payload_dest): a
// rendezvous chunk lands straight in the user's buffer through
// ucp_am_recv_data_nbx. Everything else the device matches itself on top
// of these messages (device/am_p2p.hpp). Stage B (ucx_full.hpp) adds
// native tagged messaging and RMA on the same worker.
#pragma once
#include <ucp/api/ucp.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "netmod/netmod.hpp"

#ifndef CH4LITE_FORCE_AM
#define CH4LITE_FORCE_AM 0
#endif

namespace ch4lite::nm::ucx {

// UCP active-message ids.
inline constexpr unsigned am_id_device = 0;    // the device's active messages
inline constexpr unsigned am_id_internal = 1;  // the netmod's own (stage B)

// In front of the device's header in every UCP AM header.
struct am_wire {
    uint8_t handler;   // the device's handler id
    uint8_t hlen;      // device header bytes that follow
    uint16_t reserved;
    int32_t src;       // sender's world rank
};

enum class op_kind : uint8_t { idle, am_send, tsend, trecv, rma };

// Per-operation state inside every device request.
struct request_state {
    void* req = nullptr;  // the UCP request while it is in flight
    op_kind kind = op_kind::idle;
    uint8_t cancel = 0;   // tagged receive: 1 cancel requested, 2 cancelled,
                          // 3 completed inside irecv (reported by progress)
    uint16_t imm_status = 0;  // then: -ucs_status_t
    uint32_t limit = 0;   // tagged receive through `bounce`: the user's bytes (< 8);
                          // a send: 1 + the peer whose send gate it holds (0: none)
    union {
        // active message: wire + device header, alive until UCP sent it
        alignas(8) std::byte hdr[sizeof(am_wire) + 40];
        // tagged receive of fewer than 8 bytes: the user's buffer, and the
        // 8 bytes UCP receives into (room for an RTS's value, stage B)
        struct {
            void* ubuf;
            uint64_t bounce;
            uint64_t tag;   // a receive that UCX completed inside irecv:
            uint64_t len;   // what it got, reported from the next progress()
            request_state* next;  // (their list: full_netmod::done_head_)
        } rx;
    } u = {};
};

class am_netmod {
  public:
    using request_state = ucx::request_state;

    static constexpr const char* name = "ucx";
    static constexpr capabilities caps{
        .native_tagged = false,
        .native_rma = false,
        .am_payload_iov = false,  // one payload segment: noncontiguous data is packed
        .am_ordered = true,       // one AM lane per endpoint; see docs/netmod-ucx.md
        .iov_limit = 1,
        .inject_size = 64,        // untracked control messages: sent now or `again`
        .am_header_max = 40,
        .am_payload_max = 1024 * 1024,
        .tagged_iov_limit = 0,
    };

    am_netmod();
    ~am_netmod();
    am_netmod(const am_netmod&) = delete;
    am_netmod& operator=(const am_netmod&) = delete;

    status init(dev::bootstrap& bs) { return open(bs, UCP_FEATURE_AM, "ucx-am"); }
    status finalize();
    // "ucx 1.13.1 tcp/lo" (the transports of the lanes to a peer), "" until init.
    const char* provider() const { return provider_.c_str(); }

    int progress() {
        // UCP callbacks may not call ucp_worker_progress; a device handler
        // that drives progress from inside one gets 0 events instead.
        if (__builtin_expect(in_callback_, 0)) return 0;
        return static_cast<int>(ucp_worker_progress(worker_));
    }

    status am_send(int peer, uint8_t handler, const void* hdr, std::size_t hlen,
                   const iov* payload, int niov, request_state* st) {
        const void* data = niov ? payload[0].base : nullptr;
        const std::size_t len = niov ? payload[0].len : 0;
        if (hlen > caps.am_header_max || niov > 1) return status::invalid;
        const am_wire w{handler, static_cast<uint8_t>(hlen), 0, rank_};
        ucp_request_param_t p;
        if (st == nullptr) {
            // Untracked (a control message): UCP sends it at once or we
            // answer `again` and the device retries it with a request.
            alignas(8) std::byte h[sizeof w + caps.am_header_max];
            std::memcpy(h, &w, sizeof w);
            if (hlen) std::memcpy(h + sizeof w, hdr, hlen);
            if (__builtin_expect(gate_[static_cast<std::size_t>(peer)] != 0, 0))
                return status::again;
            p.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS | UCP_OP_ATTR_FLAG_FORCE_IMM_CMPL;
            p.flags = UCP_AM_SEND_FLAG_EAGER;
            return done_now(ucp_am_send_nbx(eps_[peer], am_id_device, h, sizeof w + hlen, data,
                                            len, &p));
        }
        if (__builtin_expect(gate_[static_cast<std::size_t>(peer)] != 0, 0)) return status::again;
        st->kind = op_kind::am_send;
        std::memcpy(st->u.hdr, &w, sizeof w);
        if (hlen) std::memcpy(st->u.hdr + sizeof w, hdr, hlen);
        p.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA |
                         UCP_OP_ATTR_FIELD_FLAGS;
        p.cb.send = on_sent;
        p.user_data = st;
        const bool eager = len < am_rndv_min_;
        p.flags = eager ? UCP_AM_SEND_FLAG_EAGER : UCP_AM_SEND_FLAG_RNDV;
        return started(ucp_am_send_nbx(eps_[peer], am_id_device, st->u.hdr, sizeof w + hlen, data,
                                       len, &p),
                       st, eager ? peer : -1);
    }

  protected:
    // Opens UCP with `features`, publishes the worker address under the
    // netmod identity (netmod/exchange.hpp), connects to every rank.
    status open(dev::bootstrap& bs, uint64_t features, const char* identity);

    // A UCP send returned r: done at once (ok), or in flight (the callback
    // follows: in_progress), or failed. gate_peer >= 0: a send that
    // completes without the receiver's help (eager); in flight, UCX has
    // queued it (see gate_), so it closes the peer's gate until it is sent.
    status started(ucs_status_ptr_t r, request_state* st, int gate_peer) {
        if (__builtin_expect(r == nullptr, 1)) return status::ok;
        if (UCS_PTR_IS_ERR(r)) return map(UCS_PTR_STATUS(r));
        st->req = r;
        if (gate_peer >= 0 && gate_on_) {
            ++gate_[static_cast<std::size_t>(gate_peer)];
            st->limit = static_cast<uint32_t>(gate_peer) + 1;
        }
        return status::in_progress;
    }
    // The same for an untracked send, which must not stay in flight.
    static status done_now(ucs_status_ptr_t r) {
        if (__builtin_expect(r == nullptr, 1)) return status::ok;
        if (UCS_PTR_IS_ERR(r)) return map(UCS_PTR_STATUS(r));
        ucp_request_free(r);  // cannot happen with FORCE_IMM_CMPL; never leak it
        return status::ok;
    }
    static status map(ucs_status_t s) {
        switch (s) {
            case UCS_OK: return status::ok;
            case UCS_ERR_NO_RESOURCE: return status::again;
            case UCS_ERR_NO_MEMORY: return status::no_mem;
            case UCS_ERR_MESSAGE_TRUNCATED: return status::truncated;
            default: return status::io;
        }
    }
    static void on_sent(void* req, ucs_status_t s, void* user);

    // Marks a stretch of code that runs inside a UCP callback.
    struct callback_scope {
        explicit callback_scope(am_netmod& nm) : nm_(nm), was_(nm.in_callback_) {
            nm.in_callback_ = true;
        }
        ~callback_scope() { nm_.in_callback_ = was_; }
        am_netmod& nm_;
        bool was_;
    };

    ucp_context_h context_ = nullptr;
    ucp_worker_h worker_ = nullptr;
    std::vector<ucp_ep_h> eps_;  // by world rank (ours included: UCP's self transport)
    dev::bootstrap* bs_ = nullptr;
    int rank_ = 0;
    int size_ = 1;
    bool in_callback_ = false;
    std::size_t am_rndv_min_ = 64 * 1024;  // CH4LITE_UCX_AM_RNDV_MIN
    std::string provider_;
    // Send gates, per peer: eager sends UCX queued instead of sending
    // (returned in flight) and has not sent yet. UCX 1.13's shared-memory
    // transports let a later send overtake such a queued one when the
    // receive FIFO frees up before the queue is dispatched (docs/
    // netmod-ucx.md, "Send order"); so while a peer's gate is closed, sends
    // to it answer `again` and the device queues them, in order.
    std::vector<uint32_t> gate_;
    bool gate_on_ = true;  // CH4LITE_UCX_SEND_GATE (0: off, to show the reordering)
    // Per peer: tagged sends from this size are UCX rendezvous (they need
    // the receiver to complete, so they never hold the gate).
    std::vector<std::size_t> tag_rndv_min_;
    // The process's netmod: send callbacks carry only the state.
    static am_netmod* self_;

  private:
    // An active message whose dispatch waits: its payload is still coming
    // through UCP's rendezvous (and the device had no place for it), or an
    // earlier message from its source waits. Messages of one source are
    // dispatched in arrival order (caps.am_ordered).
    struct arrival {
        am_netmod* nm;
        int src;
        uint8_t handler;
        uint8_t hlen;
        bool ready = false;
        alignas(8) std::byte hdr[40];
        std::byte* data = nullptr;           // the payload once here
        std::size_t len = 0;
        void* ucp_data = nullptr;            // UCP's persistent buffer, released after dispatch
        std::unique_ptr<std::byte[]> own;    // or ours (a rendezvous payload)
    };
    // A rendezvous payload the device placed (am_payload_dest).
    struct landing {
        am_netmod* nm;
        int src;
        uint8_t handler;
        uint8_t hlen;
        alignas(8) std::byte hdr[40];
        std::size_t len;
    };

    static ucs_status_t on_am(void* arg, const void* header, std::size_t header_length, void* data,
                              std::size_t length, const ucp_am_recv_param_t* param);
    ucs_status_t hold(const am_wire& w, const std::byte* dh, void* data, std::size_t len,
                      bool persistent);
    ucs_status_t on_rndv(const am_wire& w, const std::byte* dh, void* desc, std::size_t len);
    static void on_held_payload(void* req, ucs_status_t s, std::size_t len, void* user);
    static void on_landed(void* req, ucs_status_t s, std::size_t len, void* user);
    void drain_held();
    void close_endpoints();

    std::deque<std::unique_ptr<arrival>> held_;  // in arrival order, all sources
    std::vector<uint32_t> held_count_;           // per source: entries in held_
};

}  // namespace ch4lite::nm::ucx
