// SPDX-License-Identifier: MIT
#include "device/comm.hpp"
#include "rma/queue.hpp"

#include <cstring>

#include "rma/sync.hpp"
#include "rma/target.hpp"
#include "rma/wire.hpp"

namespace ch4lite::rma {

namespace {

// Records for ourselves are applied in pieces of this size.
constexpr std::size_t self_limit = std::size_t{1} << 20;

void activate(win& w, int t) noexcept {
    target_q& q = w.tq[static_cast<std::size_t>(t)];
    if (!q.active) {
        q.active = true;
        w.active.push_back(t);
    }
}

// In a passive-target or PSCW epoch a message is not counted by any fence
// and may carry the lock request (sync.hpp, async_flags).
void set_header(win& w, out_msg* m, int t, uint32_t nrec) noexcept {
    const uint16_t flags = w.async ? async_flags(w, t) : 0;
    const batch_hdr h{w.comm->context_id, w.epoch, 0, flags, 0, w.rank(), nrec};
    std::memcpy(m->hdr, &h, sizeof h);
    m->hlen = sizeof h;
    m->counted = !w.async;
}

// A finished message to t: in t's queue until the closing fence, or, in an
// async epoch, sent now.
status enqueue(win& w, int t, out_msg* m) noexcept {
    if (w.async) {
        w.tsync[static_cast<std::size_t>(t)].sent = true;
        return post(m);
    }
    target_q& q = w.tq[static_cast<std::size_t>(t)];
    q.msgs.push_back(m);
    ++q.counted;
    return status::ok;
}

}  // namespace

void set_batch_limits(win& w) noexcept {
    for (int t = 0; t < w.nranks(); ++t)
        w.tq[static_cast<std::size_t>(t)].limit = t == w.rank() ? self_limit : msg_limit(w.lpid(t));
}

std::size_t batch_free(win& w, int t, std::size_t at_least) noexcept {
    activate(w, t);
    const std::size_t lim = batch_limit(w, t);
    target_q& q = w.tq[static_cast<std::size_t>(t)];
    if (q.cur.size() + at_least > lim && !q.cur.empty() && batch_cut(w, t) != status::ok) return 0;
    return lim > q.cur.size() ? lim - q.cur.size() : 0;
}

std::byte* batch_room(win& w, int t, std::size_t need) noexcept {
    if (std::byte* p = batch_room_open(w, t, need)) return p;
    activate(w, t);
    target_q& q = w.tq[static_cast<std::size_t>(t)];
    if (q.cur.size() + need > batch_limit(w, t) && !q.cur.empty() && batch_cut(w, t) != status::ok)
        return nullptr;
    std::byte* p = q.cur.grow(need);
    if (p) ++q.nrec;
    return p;
}

status batch_cut(win& w, int t) noexcept {
    target_q& q = w.tq[static_cast<std::size_t>(t)];
    if (q.cur.empty()) return status::ok;
    if (t == w.rank()) {
        // Ourselves: apply now, in order with everything queued before.
        const bool ok = apply_batch(w, t, q.cur.data(), q.cur.size(), q.nrec);
        q.cur.clear();
        q.nrec = 0;
        const status s = replies_flush(w, t);
        return ok ? s : status::intern;
    }
    out_msg* m = msg_alloc(&w, w.lpid(t), am_rma_batch);
    if (!m) return status::no_mem;
    m->own.swap(q.cur);  // q.cur inherits the message's spare capacity
    set_header(w, m, t, q.nrec);
    m->iov[0] = {m->own.data(), m->own.size()};
    m->niov = 1;
    q.nrec = 0;
    return enqueue(w, t, m);
}

status batch_append(win& w, int t, out_msg* m) noexcept {
    activate(w, t);
    const status s = batch_cut(w, t);  // keep the order of the records before it
    if (s != status::ok) {
        msg_free(m);
        return s;
    }
    set_header(w, m, t, 1);
    return enqueue(w, t, m);
}

status batch_send_now(win& w, int t, out_msg* m) noexcept {
    activate(w, t);
    set_header(w, m, t, 1);
    const status s = post(m);  // on failure m is gone, and the target expects nothing
    if (s == status::ok) ++w.tq[static_cast<std::size_t>(t)].counted;
    return s;
}

status self_flush(win& w) noexcept { return batch_cut(w, w.rank()); }

status async_send(win& w, int t, uint16_t extra) noexcept {
    if (t == w.rank()) return batch_cut(w, t);  // applied now; nothing to announce
    target_q& q = w.tq[static_cast<std::size_t>(t)];
    target_sync& ts = w.tsync[static_cast<std::size_t>(t)];
    out_msg* m = msg_alloc(&w, w.lpid(t), am_rma_batch);
    if (!m) return status::no_mem;
    const uint32_t nrec = q.nrec;
    if (!q.cur.empty()) {
        m->own.swap(q.cur);
        m->iov[0] = {m->own.data(), m->own.size()};
        m->niov = 1;
        q.nrec = 0;
    }
    set_header(w, m, t, nrec);
    batch_hdr h;
    std::memcpy(&h, m->hdr, sizeof h);
    h.flags |= static_cast<uint16_t>(extra | (nrec ? 0 : bf_bare));
    std::memcpy(m->hdr, &h, sizeof h);
    if (extra & bf_ack) ++ts.acks;
    const status s = enqueue(w, t, m);
    if (s != status::ok && (extra & bf_ack)) --ts.acks;
    return s;
}

}  // namespace ch4lite::rma
