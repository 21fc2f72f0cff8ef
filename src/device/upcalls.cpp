// SPDX-License-Identifier: MIT
// The netmod -> device upcalls (netmod/netmod.hpp): completions of netmod
// operations and arrived active messages.
#include <algorithm>
#include <cstddef>

#include "device/am.hpp"
#include "device/am_p2p.hpp"
#include "device/device.hpp"
#include "device/mprobe.hpp"
#include "device/part.hpp"
#include "device/request.hpp"
#include "device/typed.hpp"
#include "rma/rma.hpp"
#include "util/log.hpp"

namespace ch4lite::dev {

namespace {
using nm_state = active_netmod::request_state;

// The request that embeds a netmod state (container_of).
template <class H>
bool load(H& h, const void* hdr, std::size_t hlen, int src, uint8_t handler) noexcept {
    if (hlen < sizeof h) {
        util::warn("dropping active message %u from rank %d: header of %zu bytes, expected %zu",
                   handler, src, hlen, sizeof h);
        return false;
    }
    __builtin_memcpy(&h, hdr, sizeof h);
    return true;
}

request* owner_of(nm_state* st) noexcept {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Winvalid-offsetof"
    constexpr std::size_t off = offsetof(request, nm);
#pragma GCC diagnostic pop
    return reinterpret_cast<request*>(reinterpret_cast<std::byte*>(st) - off);
}
}  // namespace

template <>
void nm_send_done<nm_state>(nm_state* st, status result) noexcept {
    request* r = owner_of(st);
    request* p = r->parent;
    // A rendezvous chunk (internal child of a send or receive in
    // rendezvous); other children (the send of an MPI_Isendrecv, whose
    // parent is the receive) just complete their parent.
    if (p && r->kind == req_kind::internal && (p->flags & rf_rndv)) {
        rndv_chunk_done(r, result);
        return;
    }
    if (result != status::ok) request_fail(r, result);
    request_complete(r);
}

template <>
void nm_recv_done<nm_state>(nm_state* st, const nm::recv_info& info, status result) noexcept {
    request* r = owner_of(st);
    if (__builtin_expect(r->flags & (rf_tdata | rf_claim), 0)) {
        if (r->flags & rf_claim) {  // a matched probe's claim (device/mprobe.hpp)
            claim_done(r, info, result);
            return;
        }
        // The data after an RTS: status already set.
        if (r->parent) {  // one tagged chunk of it
            native_tchunk_done(r, result, info.truncated ? 0 : info.bytes);  // 0: never a chunk's size
            return;
        }
        if (result != status::ok) request_fail(r, info.truncated ? status::io : result);
        request_complete(r);
        return;
    }
    if (__builtin_expect(info.rts, 0) && result == status::ok) {
        native_on_rts(r, info.rank, info.tag, info.data);  // a large message: chunks follow
        return;
    }
    r->src_rank = info.rank;
    r->tag = info.tag;
    r->bytes = std::min(info.bytes, r->capacity);
    if (info.truncated) {
        r->flags |= rf_truncated;
        request_fail(r, status::truncated);
    } else if (result != status::ok) {
        request_fail(r, result);
    }
    // Typed: unpack the bounce buffer. A typed receive without one was
    // posted as an IOV (irecvv): the bytes are already in place.
    if (__builtin_expect(r->dt != nullptr, 0) && r->stage) {
        void* b;
        std::size_t len;
        native_recv_buffer(r, b, len);
        r->bytes = std::min(r->bytes, len);
        deliver_bytes(r, 0, r->stage, r->bytes);
        stage_free(r);
    }
    request_complete(r);
}

void* am_payload_dest(int src, uint8_t handler, const void* hdr, std::size_t hlen,
                      std::size_t plen) noexcept {
    // Only rendezvous chunks: they name their receive and offset, so their
    // order among the other messages does not matter.
    data_hdr h;
    if (handler != am_data || hlen < sizeof h) return nullptr;
    __builtin_memcpy(&h, hdr, sizeof h);
    (void)src;
    return am_data_dest(h, plen);
}

void am_payload_landed(int src, uint8_t handler, const void* hdr, std::size_t hlen,
                       std::size_t plen, status result) noexcept {
    data_hdr h;
    if (!load(h, hdr, hlen, src, handler)) return;
    am_data_landed(h, plen, result);
}

void am_dispatch(int src, uint8_t handler, const void* hdr, std::size_t hlen,
                 const void* payload, std::size_t plen) noexcept {
    // Headers arrive in netmod buffers without alignment guarantees: copy,
    // after checking the length (a short header is dropped, never over-read).
    switch (handler) {
        case am_eager: {
            eager_hdr h;
            if (!load(h, hdr, hlen, src, handler)) return;
            am_on_eager(src, h, payload, plen);
            return;
        }
        case am_rts: {
            // A longer header offers the sender's buffer for a single copy.
            rts_cma_hdr h{};
            if (hlen >= sizeof h) {
                __builtin_memcpy(&h, hdr, sizeof h);
            } else if (!load(h.rts, hdr, hlen, src, handler)) {
                return;
            }
            am_on_rts(src, h.rts, h.addr);
            return;
        }
        case am_cts: {
            cts_hdr h;
            if (!load(h, hdr, hlen, src, handler)) return;
            am_on_cts(h);
            return;
        }
        case am_data: {
            data_hdr h;
            if (!load(h, hdr, hlen, src, handler)) return;
            am_on_data(h, payload, plen);
            return;
        }
        case am_tcts: {
            cts_hdr h;
            if (!load(h, hdr, hlen, src, handler)) return;
            am_on_tcts(h);
            return;
        }
        case am_split: {
            split_hdr h;
            if (!load(h, hdr, hlen, src, handler)) return;
            am_on_split(src, h);
            return;
        }
        case am_split_done: {
            split_hdr h;
            if (!load(h, hdr, hlen, src, handler)) return;
            am_on_split_done(src, h);
            return;
        }
        case am_sync_ack: {
            sync_ack_hdr h;
            if (!load(h, hdr, hlen, src, handler)) return;
            am_on_sync_ack(h);
            return;
        }
        case am_cancel: {
            cancel_hdr h;
            if (!load(h, hdr, hlen, src, handler)) return;
            am_on_cancel(src, h);
            return;
        }
        case am_cancel_ack: {
            cancel_hdr h;
            if (!load(h, hdr, hlen, src, handler)) return;
            am_on_cancel_ack(h);
            return;
        }
        default:
            if (handler >= am_rma_first && handler <= am_rma_last) {
                rma::am_dispatch(src, handler, hdr, hlen, payload, plen);
                return;
            }
            if (handler >= am_part_first && handler <= am_part_last) {
                part_am_dispatch(src, handler, hdr, hlen);
                return;
            }
            util::warn("dropping active message with unknown handler %u from rank %d (%zu "
                       "header bytes)", handler, src, hlen);
            return;
    }
}

}  // namespace ch4lite::dev
