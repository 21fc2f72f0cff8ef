// SPDX-License-Identifier: MIT
// The UCX netmod, stage B: stage A (ucx_am.hpp) plus the optional services
// (docs/netmod-ucx.md):
//   native tagged  ucp_tag_send_nbx / ucp_tag_send_sync_nbx (MPI_Ssend) /
//                  ucp_tag_recv_nbx / ucp_tag_probe_nb / ucp_request_cancel,
//                  with the 64-bit match bits of netmod/tagbits.hpp; UCX
//                  matches and runs its own rendezvous for large messages
//   native RMA     ucp_mem_map + ucp_rkey_pack for exposed memory, the
//                  packed key fetched by the origin on first use (netmod
//                  AMs) and unpacked once per (peer, key); ucp_put_nbx
//                  completed by ucp_ep_flush_nbx (the bytes are in the
//                  target's memory), ucp_get_nbx
// Hot paths (isend, irecv) are inline here.
#pragma once
#include <map>
#include <unordered_map>
#include <utility>

#include "netmod/tagbits.hpp"
#include "netmod/ucx/ucx_am.hpp"

namespace ch4lite::nm::ucx {

namespace tagbits = nm::tagbits;

inline constexpr uint32_t no_limit = UINT32_MAX;  // request_state::limit of a receive without bounce

class full_netmod : public am_netmod {
  public:
    static constexpr capabilities caps{
        .native_tagged = true,
        .native_rma = true,  // at run time: rma_usable()
        .am_payload_iov = am_netmod::caps.am_payload_iov,
        .am_ordered = true,
        .iov_limit = am_netmod::caps.iov_limit,
        .inject_size = am_netmod::caps.inject_size,
        .am_header_max = am_netmod::caps.am_header_max,
        .am_payload_max = am_netmod::caps.am_payload_max,
        .tagged_iov_limit = 0,  // no irecvv: typed receives are bounced
    };

    full_netmod();
    ~full_netmod();
    status init(dev::bootstrap& bs);
    status finalize();

    // ---- native tagged ------------------------------------------------------
    status isend(int peer, match m, const void* buf, std::size_t n, unsigned flags,
                 request_state* st) {
        const uint64_t tag = tagbits::make(m.context, m.rank, m.tag);
        ucp_request_param_t p;
        p.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA;
        p.cb.send = on_sent;
        p.user_data = st;
        if (__builtin_expect(gate_[static_cast<std::size_t>(peer)] != 0, 0)) return status::again;
        st->kind = op_kind::tsend;
        // MPI_Ssend: UCX's synchronous send completes once the receiver
        // matched (so it never holds the gate); an eager one once UCX sent it.
        if (flags & send_sync)
            return started(ucp_tag_send_sync_nbx(eps_[peer], buf, n, tag, &p), st, -1);
        return started(ucp_tag_send_nbx(eps_[peer], buf, n, tag, &p), st,
                       n < tag_rndv_min_[static_cast<std::size_t>(peer)] ? peer : -1);
    }
    status irecv(int peer, match m, void* buf, std::size_t n, request_state* st) {
        (void)peer;  // the source rank is in the match bits
        ucp_request_param_t p;
        // A message that is here already completes inside the call (the
        // callback runs there: NO_IMM_CMPL); on_recv then queues the
        // result for the next progress(), so the device hears of every
        // receive from progress.
        p.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA |
                         UCP_OP_ATTR_FLAG_NO_IMM_CMPL;
        p.cb.recv = on_recv;
        p.user_data = st;
        st->kind = op_kind::trecv;
        st->cancel = 0;
        st->req = nullptr;
        st->limit = no_limit;
        st->u.rx.ubuf = buf;
        void* dst = buf;
        std::size_t len = n;
        if (__builtin_expect(n < sizeof(uint64_t), 0)) {
            // Fewer than 8 bytes: into the bounce, which an RTS (8 bytes of
            // value) fits; copied out at completion.
            st->limit = static_cast<uint32_t>(n);
            dst = &st->u.rx.bounce;
            len = sizeof(uint64_t);
        }
        in_post_ = true;
        const ucs_status_ptr_t r =
            ucp_tag_recv_nbx(worker_, dst, len, recv_tag(m), recv_mask(m), &p);
        in_post_ = false;
        if (UCS_PTR_IS_ERR(r)) return map(UCS_PTR_STATUS(r));
        if (st->cancel != 3) st->req = r;  // else completed (and freed) already
        return status::in_progress;
    }
    bool iprobe(int peer, match m, recv_info& info);
    status isend_rts(int peer, match m, uint64_t data, request_state* st);
    bool cancel_recv(request_state* st);
    // CH4LITE_UCX_TAGGED=0 declines the native path at run time.
    bool tagged_usable() const { return tagged_ok_; }

    int progress() {
        int n = 0;
        if (__builtin_expect(done_head_ != nullptr, 0)) n = report_done_now();
        return n + am_netmod::progress();
    }

    // ---- native RMA ---------------------------------------------------------
    bool rma_usable() const { return rma_ok_; }
    std::size_t rma_max() const { return std::size_t{1} << 30; }
    status mr_register(void* buf, std::size_t n, mem_region& mr);
    void mr_release(mem_region& mr);
    status put(int peer, const void* buf, std::size_t n, uint64_t raddr, uint64_t key,
               request_state* st);
    status get(int peer, void* buf, std::size_t n, uint64_t raddr, uint64_t key,
               request_state* st);

  private:
    // UCX compares the bits set in the mask; sync and rts are never compared.
    static uint64_t recv_mask(match m) { return ~tagbits::ignore_of(m.rank, m.tag); }
    static uint64_t recv_tag(match m) { return tagbits::want_of(m.context, m.rank, m.tag); }
    static void on_recv(void* req, ucs_status_t s, const ucp_tag_recv_info_t* info, void* user);
    // A receive's result: to the device (and RTS bookkeeping).
    void recv_done(request_state* st, ucs_status_t s, uint64_t tag, std::size_t length);
    int report_done_now();
    static ucs_status_t on_internal(void* arg, const void* header, std::size_t header_length,
                                    void* data, std::size_t length,
                                    const ucp_am_recv_param_t* param);
    // One netmod message (RTS note, rkey request or reply) to `peer`.
    status send_internal(int peer, const void* msg, std::size_t len, const void* payload,
                         std::size_t plen);
    // The value of an RTS with match bits `tag`, from its note; false while
    // the note has not arrived.
    bool rts_value(uint64_t tag, uint64_t& data) const;
    void rts_received(uint64_t tag);
    ucp_rkey_h rkey_of(int peer, uint64_t key, status& s);
    void on_rkey_request(int src, uint64_t key);
    void on_rkey_reply(int src, uint64_t key, const void* packed, std::size_t len);

    // The process's netmod (tagged receive callbacks carry only the state).
    static full_netmod* instance_;
    bool in_post_ = false;  // inside ucp_tag_recv_nbx (irecv)
    // Receives UCX completed inside irecv, in order (linked through
    // u.rx.next: a UCX callback must not allocate, it cannot fail).
    request_state* done_head_ = nullptr;
    request_state* done_tail_ = nullptr;
    bool tagged_ok_ = true;
    bool rma_ok_ = true;

    // Notes of RTS messages (isend_rts sends one beside the tagged message):
    // probes read the value there, since UCX's probe reports only the tag
    // and the length. Kept in arrival order; the first note with a tag
    // belongs to the first RTS with that tag (both are ordered per source).
    struct rts_note {
        uint64_t tag;
        uint64_t data;
    };
    std::deque<rts_note> notes_;
    // RTS received before their note arrived: the note is dropped on arrival.
    std::unordered_map<uint64_t, uint32_t> note_drops_;

    // Memory exposed for RMA, by key.
    struct region {
        ucp_mem_h memh = nullptr;
        void* packed = nullptr;  // ucp_rkey_pack's buffer
        std::size_t packed_len = 0;
    };
    std::unordered_map<uint64_t, region> regions_;
    uint64_t next_key_ = 1;
    // Peers' keys: unpacked once, on first use.
    struct remote_key {
        ucp_rkey_h rkey = nullptr;
        uint8_t state = 0;  // 0 requested, 1 ready, 2 refused by the owner
    };
    std::map<std::pair<int, uint64_t>, remote_key> rkeys_;
};

}  // namespace ch4lite::nm::ucx
