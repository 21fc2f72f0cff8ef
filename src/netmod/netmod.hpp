// SPDX-License-Identifier: MIT
// THE netmod contract. This header is everything the device knows about a
// network module; docs/netmod-guide.md explains it with the stub as template.
//
// A netmod is a class satisfying `concept netmod`. CMake picks exactly one per
// libmpi build and generates active_netmod.hpp:
//     using active_netmod = ch4lite::nm::ofi::netmod;
// The device calls it directly (inline, no virtual, no function pointer).
//
// Mandatory services
//   init(bootstrap&)  open the fabric, publish our address, read everyone's
//   finalize()        close everything (RAII), after a final barrier
//   progress()        poll completions; deliver arrived AMs to dev::am_dispatch
//                     and completions to dev::nm_send_done / nm_recv_done;
//                     returns the number of events handled (0 = idle)
//   am_send(...)      one active message: header (<= caps.am_header_max) plus
//                     a payload IOV (total <= caps.am_payload_max, at most
//                     caps.iov_limit entries if caps.am_payload_iov, else 1)
//                     Returns ok (buffers reusable now), in_progress
//                     (dev::nm_send_done(state) follows), again (no resources:
//                     the device queues the message and retries after progress)
//                     or a failure.
// Ordering: AMs between one pair of processes are delivered in the order they
// were sent (caps.am_ordered must be true: the device's protocols need it).
//
// Optional services, declared in `caps` and checked by the concept:
//   native_tagged   isend / irecv / iprobe / cancel_recv with full MPI matching
//                   semantics (context id, source rank, tag, wildcards,
//                   non-overtaking, truncation, synchronous send);
//                   tagged_usable() may still decline them at run time
//   native_rma      put / get into memory the peer exposed (RMA issue):
//                   mr_register / mr_release make memory remotely accessible
//                   (a key and an address base the peer uses); put / get of
//                   n contiguous bytes at (key, base + offset) in the peer's
//                   memory complete through dev::nm_send_done once the bytes
//                   are in the target's memory (put) or in ours (get);
//                   rma_usable() may decline them at run time
//   tagged_iov_limit > 0 (requires native_tagged): irecvv, a tagged receive
//                   scattered into up to tagged_iov_max() <= tagged_iov_limit
//                   segments: the message is an ordinary tagged one (any
//                   isend matches it), its bytes placed in segment order
// The device uses `if constexpr (caps.native_tagged)`; otherwise it matches
// point-to-point messages on top of AMs itself (device/am_p2p.hpp).
#pragma once
#include <concepts>
#include <cstddef>
#include <cstdint>

#include "util/status.hpp"

namespace ch4lite::dev {
class bootstrap;  // device/bootstrap.hpp: PMI-backed key/value exchange
}

namespace ch4lite::nm {

// One segment of a scatter/gather list (layout-compatible with struct iovec).
struct iov {
    const void* base;
    std::size_t len;
};

struct capabilities {
    bool native_tagged;       // isend/irecv/iprobe/cancel_recv implemented
    bool native_rma;          // put/get implemented
    bool am_payload_iov;      // am_send takes up to iov_limit payload segments
    bool am_ordered;          // AMs of one pair arrive in send order (required)
    std::size_t iov_limit;    // max payload segments per am_send / isend
    std::size_t inject_size;  // sends up to this size complete at once
    std::size_t am_header_max;
    std::size_t am_payload_max;
    // Most segments irecvv takes (0 = not implemented); the run-time limit
    // of the provider, tagged_iov_max(), may be lower (even 1).
    std::size_t tagged_iov_limit = 0;
};

// Memory a peer may put into / get from (native_rma): the key and the
// value its puts and gets add the byte offset to (the address, or 0 for a
// provider that addresses by offset); `handle` is the netmod's.
struct mem_region {
    uint64_t key = 0;
    uint64_t addr = 0;
    void* handle = nullptr;
};

// Matching information of a native tagged message (device view: a context id
// identifies the communicator, ranks are communicator ranks).
struct match {
    uint32_t context;  // communicator context id (< 2^16)
    int rank;          // sender's rank in the communicator, or -1 = any
    int tag;           // >= 0, or -1 = any
};
inline constexpr int any = -1;

// What a completed native receive (or a successful probe) reports.
struct recv_info {
    int rank;
    int tag;
    std::size_t bytes;  // bytes of the message (may exceed the buffer)
    bool truncated;
    bool rts = false;   // a header-only announcement sent with isend_rts()
    uint64_t data = 0;  // its 64-bit value
};

enum send_flags : unsigned {
    send_default = 0,
    send_sync = 1u << 0,  // MPI_Ssend: complete only once the receiver matched
};

// The contract. T::request_state lives inside every device request (sized at
// compile time, STYLE.md #4); the netmod keeps its per-operation state there.
template <class T>
concept netmod =
    requires(T& nm, const T& cnm, dev::bootstrap& bs, int peer, uint8_t handler,
             const void* hdr, std::size_t hlen, const iov* payload, int niov,
             typename T::request_state* st) {
        typename T::request_state;
        requires std::default_initializable<typename T::request_state>;
        { T::caps } -> std::convertible_to<const capabilities&>;
        { T::name } -> std::convertible_to<const char*>;
        { nm.init(bs) } -> std::same_as<status>;
        { nm.finalize() } -> std::same_as<status>;
        { nm.progress() } -> std::same_as<int>;
        { nm.am_send(peer, handler, hdr, hlen, payload, niov, st) } -> std::same_as<status>;
        { cnm.provider() } -> std::convertible_to<const char*>;
    } &&
    (!T::caps.native_tagged ||
     requires(T& nm, int peer, match m, const void* cbuf, void* buf, std::size_t n,
              unsigned flags, typename T::request_state* st, recv_info& info) {
         { nm.isend(peer, m, cbuf, n, flags, st) } -> std::same_as<status>;
         // peer = world rank of the source, or nm::any with m.rank == any
         { nm.irecv(peer, m, buf, n, st) } -> std::same_as<status>;
         { nm.iprobe(peer, m, info) } -> std::same_as<bool>;
         // A header-only tagged message that matches receives and probes
         // like a message but reaches them as recv_info{rts = true, data}
         // (the device's announcement of a large message, docs/ddt-wire.md).
         { nm.isend_rts(peer, m, uint64_t{}, st) } -> std::same_as<status>;
         // true if the receive was cancelled (nm_recv_done will not be called)
         { nm.cancel_recv(st) } -> std::same_as<bool>;
         // false when the native path exists but must not be used at run time
         // (e.g. a provider with broken tagged semantics): the device then
         // matches over active messages
         { nm.tagged_usable() } -> std::same_as<bool>;
     }) &&
    (T::caps.tagged_iov_limit == 0 ||
     (T::caps.native_tagged &&
      requires(T& nm, const T& cnm, int peer, match m, const iov* v, int n,
               typename T::request_state* st) {
          // Segments in stream order, 1 <= n <= tagged_iov_max() (written
          // through, though the iov type says const); the array itself may
          // be reused when the call returns, the memory only at completion.
          // Same results, nm_recv_done, truncation reporting and cancel_recv
          // as irecv with the segments' total length.
          { nm.irecvv(peer, m, v, n, st) } -> std::same_as<status>;
          { cnm.tagged_iov_max() } -> std::convertible_to<std::size_t>;
      })) &&
    (!T::caps.native_rma ||
     requires(T& nm, const T& cnm, int peer, const void* cbuf, void* buf, std::size_t n,
              uint64_t raddr, uint64_t key, mem_region& mr, typename T::request_state* st) {
         // false when the provider cannot do RMA (or it is switched off)
         { cnm.rma_usable() } -> std::same_as<bool>;
         // most bytes one put / get moves
         { cnm.rma_max() } -> std::convertible_to<std::size_t>;
         // n > 0 bytes at buf, remotely readable and writable until released
         { nm.mr_register(buf, n, mr) } -> std::same_as<status>;
         { nm.mr_release(mr) } -> std::same_as<void>;
         // raddr = the peer region's addr + byte offset. in_progress (then
         // nm_send_done), ok (done at once), again (no resources: retry
         // after progress) or a failure.
         { nm.put(peer, cbuf, n, raddr, key, st) } -> std::same_as<status>;
         { nm.get(peer, buf, n, raddr, key, st) } -> std::same_as<status>;
     });

}  // namespace ch4lite::nm

// Upcalls: the only device entry points a netmod calls (defined in device/).
namespace ch4lite::dev {
// An active message arrived from world rank `src`. Pointers are valid only
// during the call; the device copies what it keeps.
void am_dispatch(int src, uint8_t handler, const void* hdr, std::size_t hlen,
                 const void* payload, std::size_t plen) noexcept;
// A send (am_send, isend or put/get) that returned in_progress completed;
// `st` is the request_state passed to the call. A failed completion reports
// a status other than ok.
template <class State>
void nm_send_done(State* st, status result) noexcept;
// A native receive completed (or failed).
template <class State>
void nm_recv_done(State* st, const nm::recv_info& info, status result) noexcept;
}  // namespace ch4lite::dev
