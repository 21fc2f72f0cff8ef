// SPDX-License-Identifier: MIT
// Lazily posted receives (the AM path's persistent receives, api's
// p2p_persistent.cpp). MPI_Start of a persistent receive arms one instead of
// posting a request: nothing can tell the difference until some other
// receive or probe on the same context would be matched against it, and
// every such entry point (irecv_on, irecv_typed, recv_direct, iprobe,
// improbe) first posts the armed receives of its context, in arming order,
// so matching order is exactly as if they had been posted at MPI_Start.
// Messages that arrive meanwhile wait in the unexpected queue, where the
// receive finds them when it is posted. An MPI_Wait on an armed receive that
// is the only receive of its context waits on the rings itself
// (recv_direct), as MPI_Recv does: no request, no queue, no dispatch.
#pragma once
#include <cstddef>
#include <cstdint>

#include "device/request.hpp"
#include "util/ilist.hpp"

namespace ch4lite::dev {

class comm;

struct lazy_recv {
    util::ilist_node link;
    void* buf = nullptr;
    std::size_t bytes = 0;
    comm* c = nullptr;
    int rank = 0;                // source (or MPI_ANY_SOURCE)
    int tag = 0;                 // (or MPI_ANY_TAG)
    uint32_t ctx = 0;
    bool armed = false;          // in the list, not posted
    request* posted = nullptr;   // after posting: the request that stands for it
    status error = status::ok;   // posting failed (no memory)
};

extern uint32_t g_lazy_recvs;  // armed receives (read inline by every hook)
extern util::ilist<lazy_recv, &lazy_recv::link> g_lazy_armed;  // in arming order

inline void lazy_arm(lazy_recv& l) noexcept {
    l.armed = true;
    l.posted = nullptr;
    l.error = status::ok;
    g_lazy_armed.push_back(&l);
    ++g_lazy_recvs;
}
// Takes l out of the list without posting it (MPI_Wait takes over).
inline void lazy_disarm(lazy_recv& l) noexcept {
    if (!l.armed) return;
    g_lazy_armed.remove(&l);
    l.armed = false;
    --g_lazy_recvs;
}
// l is the only armed receive of its context.
inline bool lazy_only(const lazy_recv& l) noexcept {
    if (g_lazy_recvs == 1) return true;  // (l is armed)
    for (lazy_recv* x = g_lazy_armed.front(); x; x = g_lazy_armed.next(x))
        if (x != &l && x->ctx == l.ctx) return false;
    return true;
}
// Posts every armed receive of ctx, in arming order (cold).
void lazy_post_ctx(uint32_t ctx) noexcept;
// Posts l now (disarmed first if armed), without the hook: its result is in
// l.posted or l.error.
void lazy_post_now(lazy_recv& l) noexcept;

// The hook of the matching entry points.
[[gnu::always_inline]] inline void lazy_flush(uint32_t ctx) noexcept {
    if (__builtin_expect(g_lazy_recvs != 0, 0)) lazy_post_ctx(ctx);
}

}  // namespace ch4lite::dev
