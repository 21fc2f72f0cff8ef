// SPDX-License-Identifier: MIT
// Device requests. Every nonblocking operation (and every blocking one while
// it waits) is a request from the request pool (util/pool.hpp). The user's
// MPI_Request is the encoded (kind, generation, pool index) of the object, so
// a stale or garbage handle is detected, never dereferenced.
//
// Lifetime: a request is returned to the pool when it is complete (cc == 0)
// AND released by its owner (the user through Wait/Test/Request_free, or the
// device for internal requests). Completion and release may happen in either
// order.
#pragma once
#include <cstddef>
#include <cstdint>

#include "active_netmod.hpp"
#include "util/handle.hpp"
#include "util/ilist.hpp"
#include "util/pool.hpp"
#include "util/status.hpp"

namespace ch4lite::dame {
class type;
}

namespace ch4lite::dev {

class comm;

// persistent: a user's persistent request (api/persistent.hpp): its own
// handle, never handed to a transport; each activation (MPI_Start) is an
// ordinary request of one of the other kinds. generalized: MPI_Grequest_start.
enum class req_kind : uint8_t { send, recv, internal, coll, rma, generalized, persistent };

// Extra state of the rarer kinds of request (a persistent request's recipe,
// a generalized request's callbacks, a collective's schedule), owned by the
// request and deleted when it returns to the pool. Never on the
// point-to-point path: there `ext` stays nullptr.
struct request_ext {
    virtual ~request_ext() = default;
};

enum req_flags : uint16_t {
    rf_released = 1u << 0,   // owner gave it up; free at completion
    rf_sync = 1u << 1,       // synchronous send
    rf_rndv = 1u << 2,       // AM-path rendezvous in progress
    rf_native = 1u << 3,     // posted to the netmod's native matching
    rf_queued = 1u << 4,     // waiting in the deferred-operation queue
    rf_truncated = 1u << 5,  // receive buffer was too small
    rf_stage_heap = 1u << 6, // `stage` is heap memory (else a pooled pack buffer)
    rf_tdata = 1u << 7,      // receive: matched a native RTS, the data comes as one tagged message
    rf_cma_offer = 1u << 8,  // send: its RTS offered the single copy (shm cma_offers() counts it)
    rf_claim = 1u << 9,      // native receive claiming a matched-probe message (device/mprobe.hpp)
    rf_part = 1u << 10,      // partitioned receive: its data chunks are counted per partition (device/part.hpp)
    rf_cancel_asked = 1u << 11,  // send: CANCEL went to the receiver (am_cancel_send)
};

struct request : util::pool_object {
    // ---- completion
    int cc = 0;            // outstanding completions; 0 = complete
    req_kind kind = req_kind::internal;
    uint16_t flags = 0;
    status result = status::ok;  // first failure seen, reported by Wait/Test
    bool cancelled = false;

    // ---- what the status reports (receives)
    int src_rank = 0;       // communicator rank of the sender
    int tag = 0;
    std::size_t bytes = 0;  // bytes received / sent

    // ---- the operation
    comm* c = nullptr;
    void* buf = nullptr;
    std::size_t capacity = 0;  // receive: buffer bytes; send: message bytes
    int peer = -1;             // world rank of the peer (-1 = any source)
    int match_rank = 0;        // receive: wanted source rank (or MPI_ANY_SOURCE)
    int match_tag = 0;         // receive: wanted tag (or MPI_ANY_TAG)
    uint32_t context = 0;      // context id of the communicator traffic
    // Noncontiguous buffers (docs/ddt-wire.md): buf is the user's buffer as
    // passed to MPI, `dt` (retained until the request is freed) and `count`
    // describe it, capacity is its packed size. nullptr for contiguous data,
    // which keeps the byte path untouched.
    const dame::type* dt = nullptr;
    int64_t count = 0;
    std::byte* stage = nullptr;      // packed staging bytes (with dt): pack buffer or heap
    std::size_t count_stage = 0;     // bytes of a heap `stage`
    request* parent = nullptr;       // a child completes its parent (rendezvous chunks)

    // ---- AM-path protocol state
    util::ilist_node qlink;     // posted-receive queue or deferred queue
    uint32_t remote_id = 0;     // peer's request id (rendezvous, sync ack)
    // Rendezvous data as tagged chunks of this many bytes (typed.hpp); 0: as
    // AM chunks. Set when the data starts (start_chunks / the tagged CTS).
    uint32_t rndv_chunk = 0;
    std::size_t offset = 0;     // rendezvous: next byte to send
    std::size_t inflight = 0;   // rendezvous: chunks not yet completed
    uint8_t deferred_op = 0;    // what to retry when queued (device/deferred.hpp)
    uint8_t ctrl_handler = 0;   // deferred control message: handler and header
    uint8_t ctrl_len = 0;
    alignas(8) std::byte ctrl_hdr[40];  // largest: rts_cma_hdr

    // ---- rarer kinds: owned extra state (nullptr on every transfer request;
    // request_free_now deletes it, so request_alloc need not reset it)
    request_ext* ext = nullptr;

    // ---- netmod per-operation state (sized at compile time, STYLE.md #4)
    active_netmod::request_state nm;
};

// The request pool and the id <-> object mapping used on the wire and in handles.
extern util::object_pool<request> g_request_pool;
inline util::object_pool<request>& request_pool() noexcept { return g_request_pool; }

inline uint32_t request_id(const request* r) noexcept {
    return r->pool_index | (static_cast<uint32_t>(r->pool_gen) << util::handle_index_bits);
}
inline request* request_from_id(uint32_t id) noexcept {
    request* r = request_pool().at(id & util::handle_max_index);
    return (r && r->pool_gen == (id >> util::handle_index_bits)) ? r : nullptr;
}
inline uintptr_t request_handle(const request* r) noexcept {
    return util::handle_encode(util::handle_kind::request, r->pool_gen, r->pool_index);
}
inline request* request_from_handle(uintptr_t h) noexcept {
    if (util::handle_kind_of(h) != util::handle_kind::request || util::handle_is_builtin(h))
        return nullptr;
    request* r = request_pool().at(util::handle_index_of(h));
    return (r && r->pool_gen == util::handle_gen_of(h)) ? r : nullptr;
}

// Allocates and resets a request with `cc` outstanding completions.
// nullptr when the pool is at its maximum (caller reports MPI_ERR_NO_MEM).
inline request* request_alloc(req_kind kind, int cc) noexcept {
    request* r = request_pool().alloc();
    if (!r) return nullptr;
    r->cc = cc;
    r->kind = kind;
    r->flags = 0;
    r->result = status::ok;
    r->cancelled = false;
    r->src_rank = 0;
    r->tag = 0;
    r->bytes = 0;
    r->c = nullptr;
    r->dt = nullptr;
    r->parent = nullptr;
    r->offset = 0;
    r->inflight = 0;
    // r->nm is reset where an operation is handed to the netmod (p2p.hpp,
    // am_send_to): on-node operations never touch it, and clearing it here
    // cost ~40 instructions on every shm message.
    return r;
}

void request_free_now(request* r) noexcept;
// Drops what a noncontiguous operation holds (type reference, staging).
void request_drop_typed(request* r) noexcept;

// One completion event of `r`. When the last one arrives the request is
// complete; if its owner already released it, it goes back to the pool.
inline void request_complete(request* r) noexcept {
    if (--r->cc == 0) {
        if (r->parent) {
            request* p = r->parent;
            if (r->result != status::ok && p->result == status::ok) p->result = r->result;
            request_free_now(r);
            request_complete(p);
            return;
        }
        if (r->flags & rf_released) request_free_now(r);
    }
}
inline void request_fail(request* r, status s) noexcept {
    if (r->result == status::ok) r->result = s;
}

// The owner is done with `r` (after seeing it complete, or Request_free).
inline void request_release(request* r) noexcept {
    if (r->cc == 0)
        request_free_now(r);
    else
        r->flags |= rf_released;
}

}  // namespace ch4lite::dev
