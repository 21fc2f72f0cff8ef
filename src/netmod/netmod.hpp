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
// Each member is its own concept so that a netmod missing one is told which
// (check_contract<T>() below, asserted for the active netmod).
namespace contract {
template <class T>
concept has_request_state = requires { typename T::request_state; } &&
                            std::default_initializable<typename T::request_state>;
template <class T>
concept has_caps = requires {
    { T::caps } -> std::convertible_to<const capabilities&>;
};
template <class T>
concept has_name = requires {
    { T::name } -> std::convertible_to<const char*>;
};
template <class T>
concept has_init = requires(T& nm, dev::bootstrap& bs) {
    { nm.init(bs) } -> std::same_as<status>;
};
template <class T>
concept has_finalize = requires(T& nm) {
    { nm.finalize() } -> std::same_as<status>;
};
template <class T>
concept has_progress = requires(T& nm) {
    { nm.progress() } -> std::same_as<int>;
};
template <class T>
concept has_am_send = requires(T& nm, int peer, uint8_t handler, const void* hdr, std::size_t hlen,
                               const iov* payload, int niov, typename T::request_state* st) {
    { nm.am_send(peer, handler, hdr, hlen, payload, niov, st) } -> std::same_as<status>;
};
template <class T>
concept has_provider = requires(const T& cnm) {
    { cnm.provider() } -> std::convertible_to<const char*>;
};
template <class T>
concept mandatory = has_request_state<T> && has_caps<T> && has_name<T> && has_init<T> &&
                    has_finalize<T> && has_progress<T> && has_am_send<T> && has_provider<T>;

// ---- native_tagged
template <class T>
concept has_isend = requires(T& nm, int peer, match m, const void* cbuf, std::size_t n,
                             unsigned flags, typename T::request_state* st) {
    { nm.isend(peer, m, cbuf, n, flags, st) } -> std::same_as<status>;
};
// peer = world rank of the source, or nm::any with m.rank == any
template <class T>
concept has_irecv = requires(T& nm, int peer, match m, void* buf, std::size_t n,
                             typename T::request_state* st) {
    { nm.irecv(peer, m, buf, n, st) } -> std::same_as<status>;
};
template <class T>
concept has_iprobe = requires(T& nm, int peer, match m, recv_info& info) {
    { nm.iprobe(peer, m, info) } -> std::same_as<bool>;
};
// A header-only tagged message that matches receives and probes like a
// message but reaches them as recv_info{rts = true, data} (the device's
// announcement of a large message, docs/ddt-wire.md).
template <class T>
concept has_isend_rts = requires(T& nm, int peer, match m, typename T::request_state* st) {
    { nm.isend_rts(peer, m, uint64_t{}, st) } -> std::same_as<status>;
};
// true if the receive was cancelled (nm_recv_done will not be called)
template <class T>
concept has_cancel_recv = requires(T& nm, typename T::request_state* st) {
    { nm.cancel_recv(st) } -> std::same_as<bool>;
};
// false when the native path exists but must not be used at run time
// (e.g. a provider with broken tagged semantics): the device then matches
// over active messages
template <class T>
concept has_tagged_usable = requires(const T& cnm) {
    { cnm.tagged_usable() } -> std::same_as<bool>;
};
template <class T>
concept tagged = has_isend<T> && has_irecv<T> && has_iprobe<T> && has_isend_rts<T> &&
                 has_cancel_recv<T> && has_tagged_usable<T>;

// ---- tagged_iov_limit > 0
// Segments in stream order, 1 <= n <= tagged_iov_max() (written through,
// though the iov type says const); the array itself may be reused when the
// call returns, the memory only at completion. Same results, nm_recv_done,
// truncation reporting and cancel_recv as irecv with the segments' total
// length.
template <class T>
concept has_irecvv = requires(T& nm, int peer, match m, const iov* v, int n,
                              typename T::request_state* st) {
    { nm.irecvv(peer, m, v, n, st) } -> std::same_as<status>;
};
template <class T>
concept has_tagged_iov_max = requires(const T& cnm) {
    { cnm.tagged_iov_max() } -> std::convertible_to<std::size_t>;
};

// ---- native_rma
// false when the provider cannot do RMA (or it is switched off)
template <class T>
concept has_rma_usable = requires(const T& cnm) {
    { cnm.rma_usable() } -> std::same_as<bool>;
};
// most bytes one put / get moves
template <class T>
concept has_rma_max = requires(const T& cnm) {
    { cnm.rma_max() } -> std::convertible_to<std::size_t>;
};
// n > 0 bytes at buf, remotely readable and writable until released
template <class T>
concept has_mr_register = requires(T& nm, void* buf, std::size_t n, mem_region& mr) {
    { nm.mr_register(buf, n, mr) } -> std::same_as<status>;
};
template <class T>
concept has_mr_release = requires(T& nm, mem_region& mr) {
    { nm.mr_release(mr) } -> std::same_as<void>;
};
// raddr = the peer region's addr + byte offset. in_progress (then
// nm_send_done), ok (done at once), again (no resources: retry after
// progress) or a failure.
template <class T>
concept has_put = requires(T& nm, int peer, const void* cbuf, std::size_t n, uint64_t raddr,
                           uint64_t key, typename T::request_state* st) {
    { nm.put(peer, cbuf, n, raddr, key, st) } -> std::same_as<status>;
};
template <class T>
concept has_get = requires(T& nm, int peer, void* buf, std::size_t n, uint64_t raddr,
                           uint64_t key, typename T::request_state* st) {
    { nm.get(peer, buf, n, raddr, key, st) } -> std::same_as<status>;
};
template <class T>
concept rma = has_rma_usable<T> && has_rma_max<T> && has_mr_register<T> && has_mr_release<T> &&
              has_put<T> && has_get<T>;
}  // namespace contract

template <class T>
concept netmod = contract::mandatory<T> &&
                 (!T::caps.native_tagged || contract::tagged<T>) &&
                 (T::caps.tagged_iov_limit == 0 ||
                  (T::caps.native_tagged && contract::has_irecvv<T> &&
                   contract::has_tagged_iov_max<T>)) &&
                 (!T::caps.native_rma || contract::rma<T>);

// The same rules one by one, each failure naming the member that is missing
// (a bare `static_assert(netmod<T>)` only says that some requirement of a
// long conjunction failed). A capability declared in caps makes its members
// mandatory. Returns true when T satisfies the contract.
template <class T>
consteval bool check_contract() {
    using namespace contract;
    static_assert(has_request_state<T>,
                  "netmod contract: missing `struct request_state` (default-constructible)");
    static_assert(has_caps<T>, "netmod contract: missing `static constexpr capabilities caps`");
    static_assert(has_name<T>, "netmod contract: missing `static constexpr const char* name`");
    static_assert(has_init<T>, "netmod contract: missing `status init(dev::bootstrap&)`");
    static_assert(has_finalize<T>, "netmod contract: missing `status finalize()`");
    static_assert(has_progress<T>, "netmod contract: missing `int progress()`");
    static_assert(has_am_send<T>,
                  "netmod contract: missing `status am_send(int peer, uint8_t handler, const "
                  "void* hdr, size_t hlen, const iov* payload, int niov, request_state*)`");
    static_assert(has_provider<T>, "netmod contract: missing `const char* provider() const`");
    if constexpr (has_caps<T> && has_request_state<T>) {
        static_assert(T::caps.am_ordered,
                      "netmod contract: caps.am_ordered must be true (the device's protocols "
                      "need ordered active messages)");
        if constexpr (T::caps.native_tagged) {
            static_assert(has_isend<T>,
                          "caps.native_tagged declared but `status isend(int peer, match, const "
                          "void*, size_t, unsigned flags, request_state*)` is missing");
            static_assert(has_irecv<T>,
                          "caps.native_tagged declared but `status irecv(int peer, match, void*, "
                          "size_t, request_state*)` is missing");
            static_assert(has_iprobe<T>,
                          "caps.native_tagged declared but `bool iprobe(int peer, match, "
                          "recv_info&)` is missing");
            static_assert(has_isend_rts<T>,
                          "caps.native_tagged declared but `status isend_rts(int peer, match, "
                          "uint64_t data, request_state*)` is missing");
            static_assert(has_cancel_recv<T>,
                          "caps.native_tagged declared but `bool cancel_recv(request_state*)` "
                          "is missing");
            static_assert(has_tagged_usable<T>,
                          "caps.native_tagged declared but `bool tagged_usable() const` is "
                          "missing");
        }
        if constexpr (T::caps.tagged_iov_limit > 0) {
            static_assert(T::caps.native_tagged,
                          "caps.tagged_iov_limit > 0 needs caps.native_tagged");
            static_assert(has_irecvv<T>,
                          "caps.tagged_iov_limit > 0 declared but `status irecvv(int peer, "
                          "match, const iov*, int n, request_state*)` is missing");
            static_assert(has_tagged_iov_max<T>,
                          "caps.tagged_iov_limit > 0 declared but `size_t tagged_iov_max() "
                          "const` is missing");
        }
        if constexpr (T::caps.native_rma) {
            static_assert(has_rma_usable<T>,
                          "caps.native_rma declared but `bool rma_usable() const` is missing");
            static_assert(has_rma_max<T>,
                          "caps.native_rma declared but `size_t rma_max() const` is missing");
            static_assert(has_mr_register<T>,
                          "caps.native_rma declared but `status mr_register(void*, size_t, "
                          "mem_region&)` is missing");
            static_assert(has_mr_release<T>,
                          "caps.native_rma declared but `void mr_release(mem_region&)` is "
                          "missing");
            static_assert(has_put<T>,
                          "caps.native_rma declared but `status put(int peer, const void*, "
                          "size_t, uint64_t raddr, uint64_t key, request_state*)` is missing");
            static_assert(has_get<T>,
                          "caps.native_rma declared but `status get(int peer, void*, size_t, "
                          "uint64_t raddr, uint64_t key, request_state*)` is missing");
        }
    }
    return netmod<T>;
}

}  // namespace ch4lite::nm

// Upcalls: the only device entry points a netmod calls (defined in device/).
namespace ch4lite::dev {
// An active message arrived from world rank `src`. Pointers are valid only
// during the call; the device copies what it keeps.
void am_dispatch(int src, uint8_t handler, const void* hdr, std::size_t hlen,
                 const void* payload, std::size_t plen) noexcept;
// A netmod that learns of an active message before its payload is in local
// memory (a rendezvous, as UCX's) asks where the payload belongs. Non-null:
// the netmod receives the plen bytes there and then calls
// am_payload_landed() with the same header; the device answers so only for
// messages whose effect does not depend on their order among the others (a
// rendezvous chunk of a matched receive). nullptr: the netmod brings the
// payload into memory of its own and calls am_dispatch, keeping the
// message in its place in the order of the source's messages.
void* am_payload_dest(int src, uint8_t handler, const void* hdr, std::size_t hlen,
                      std::size_t plen) noexcept;
void am_payload_landed(int src, uint8_t handler, const void* hdr, std::size_t hlen,
                       std::size_t plen, status result) noexcept;
// A send (am_send, isend or put/get) that returned in_progress completed;
// `st` is the request_state passed to the call. A failed completion reports
// a status other than ok.
template <class State>
void nm_send_done(State* st, status result) noexcept;
// A native receive completed (or failed).
template <class State>
void nm_recv_done(State* st, const nm::recv_info& info, status result) noexcept;
}  // namespace ch4lite::dev
