// SPDX-License-Identifier: MIT
// Native netmod RMA for large contiguous puts and gets (native.hpp).
#include "rma/native.hpp"

#include <algorithm>
#include <new>

#include "dame/dame.hpp"
#include "device/comm.hpp"
#include "device/device.hpp"
#include "rma/win_internal.hpp"
#include "util/env.hpp"
#include "util/log.hpp"

namespace ch4lite::rma {

namespace {

uint64_t g_issued = 0;

// The netmod's calls, compiled only when it declares them.
template <class NM>
bool usable(const NM& nm) noexcept {
    if constexpr (NM::caps.native_rma)
        return nm.rma_usable();
    else
        return false;
}
template <class NM>
std::size_t max_bytes(const NM& nm) noexcept {
    if constexpr (NM::caps.native_rma)
        return nm.rma_max();
    else
        return 0;
}
template <class NM>
status reg(NM& nm, void* base, std::size_t n, nm::mem_region& mr) noexcept {
    if constexpr (NM::caps.native_rma)
        return nm.mr_register(base, n, mr);
    else
        return status::unsupported;
}
template <class NM>
void unreg(NM& nm, nm::mem_region& mr) noexcept {
    if constexpr (NM::caps.native_rma) nm.mr_release(mr);
}
template <class NM>
status issue(NM& nm, int peer, const native_op& n, uint64_t key,
             typename NM::request_state* st) noexcept {
    if constexpr (NM::caps.native_rma)
        return n.write ? nm.put(peer, n.local, n.len, n.raddr, key, st)
                       : nm.get(peer, n.local, n.len, n.raddr, key, st);
    else
        return status::unsupported;
}

// CH4LITE_RMA_NATIVE (on): use the netmod's RMA where it declares it.
bool enabled() noexcept {
    static const bool v = util::env_bool("CH4LITE_RMA_NATIVE", true);
    return v;
}

void finish(win& w, native_op& n, status s) noexcept {
    n.state = 2;
    --w.nat_left;
    if (s != status::ok && w.error == status::ok) {
        w.error = s;
        w.error_text = "a native " + std::string(n.write ? "put" : "get") + " to rank " +
                       std::to_string(n.target) + " failed";
    }
    target_q& q = w.tq[static_cast<std::size_t>(n.target)];
    if (--q.native == 0) {
        const status f = post_bare(w, n.target, true, q.counted);
        if (f != status::ok && w.error == status::ok) {
            w.error = f;
            w.error_text = "cannot send the fence's final to rank " + std::to_string(n.target);
        }
    }
}

}  // namespace

uint64_t native_min() noexcept {
    static const uint64_t v =
        static_cast<uint64_t>(std::max<int64_t>(util::env_int("CH4LITE_RMA_NATIVE_MIN", 65536), 1));
    return v;
}

void native_register(win* w, peer_info& mine) noexcept {
    mine.rkey = mine.raddr = 0;
    mine.native = 0;
    auto& nm = dev::g_dev.nm;
    if (!enabled() || !usable(nm) || !w->base || w->size == 0) return;
    if (reg(nm, w->base, static_cast<std::size_t>(w->size), w->mr) != status::ok) return;
    mine.rkey = w->mr.key;
    mine.raddr = w->mr.addr;
    mine.native = 1;
}

void native_release(win* w) noexcept {
    if (w->mr.handle) unreg(dev::g_dev.nm, w->mr);
}

bool native_record(win& w, const buf_spec& o, const target_spec& ts, uint64_t total,
                   bool write, bool any_size) noexcept {
    const auto t = static_cast<std::size_t>(ts.rank);
    const peer_info& p = w.peers[t];
    if (!p.native || (total < native_min() && !any_size) || total == 0 || w.slot_of[t] || !o.t->contiguous() ||
        !ts.t->contiguous() || dev::g_dev.shm.local(w.lpid(ts.rank)))
        return false;
    const std::size_t piece = max_bytes(dev::g_dev.nm);
    if (piece == 0) return false;
    auto* local = static_cast<std::byte*>(const_cast<void*>(o.buf)) + o.t->true_lb();
    const uint64_t raddr = p.raddr + ts.disp + static_cast<uint64_t>(ts.t->true_lb());
    try {  // out of memory: the message path takes the operation (and reports it)
        w.nat.reserve(w.nat.size() + (total + piece - 1) / piece);
    } catch (const std::bad_alloc&) {
        return false;
    }
    target_q& q = w.tq[t];
    for (uint64_t off = 0; off < total; off += piece) {
        native_op n{};
        n.target = ts.rank;
        n.write = write;
        n.local = local + off;
        n.len = std::min<uint64_t>(piece, total - off);
        n.raddr = raddr + off;
        w.nat.push_back(n);
        ++q.native;
        ++w.nat_left;
    }
    if (!q.active) {
        q.active = true;
        w.active.push_back(ts.rank);
    }
    return true;
}

bool native_step(win& w) noexcept {
    auto& nm = dev::g_dev.nm;
    bool stalled = false;  // the netmod said `again`: issue nothing more this round
    for (native_op& n : w.nat) {
        if (n.state == 0) {
            const auto t = static_cast<std::size_t>(n.target);
            if (stalled || w.entered[t] != w.epoch) continue;
            dev::request* r = dev::request_alloc(dev::req_kind::rma, 1);
            if (!r) {
                stalled = true;
                continue;
            }
            r->nm = {};
            const status s = issue(nm, w.lpid(n.target), n, w.peers[t].rkey, &r->nm);
            if (s == status::in_progress) {
                ++g_issued;
                n.req = r;
                n.state = 1;
                continue;
            }
            r->cc = 0;
            dev::request_free_now(r);
            if (s == status::again) {
                stalled = true;
                continue;
            }
            ++g_issued;
            finish(w, n, s);
        } else if (n.state == 1 && n.req->cc == 0) {
            const status s = n.req->result;
            dev::request_release(n.req);
            n.req = nullptr;
            finish(w, n, s);
        }
    }
    return w.nat_left == 0;
}

bool native_step_async(win& w) noexcept {
    auto& nm = dev::g_dev.nm;
    for (native_op& n : w.nat) {
        const auto t = static_cast<std::size_t>(n.target);
        if (n.state == 0) {
            if (!w.tsync[t].granted) continue;  // our lock on it is not held yet
            dev::request* r = dev::request_alloc(dev::req_kind::rma, 1);
            if (!r) break;
            r->nm = {};
            const status s = issue(nm, w.lpid(n.target), n, w.peers[t].rkey, &r->nm);
            if (s == status::in_progress) {
                ++g_issued;
                n.req = r;
                n.state = 1;
                continue;
            }
            r->cc = 0;
            dev::request_free_now(r);
            if (s == status::again) break;
            ++g_issued;
            n.state = 2;
            --w.nat_left;
            --w.tq[t].native;
            if (s != status::ok && w.error == status::ok) w.error = s;
        } else if (n.state == 1 && n.req->cc == 0) {
            const status s = n.req->result;
            dev::request_release(n.req);
            n.req = nullptr;
            n.state = 2;
            --w.nat_left;
            --w.tq[t].native;
            if (s != status::ok && w.error == status::ok) {
                w.error = s;
                w.error_text = "a native " + std::string(n.write ? "put" : "get") + " to rank " +
                               std::to_string(n.target) + " failed";
            }
        }
    }
    if (w.nat_left == 0) w.nat.clear();
    return w.nat_left == 0;
}

uint64_t native_ops_issued() noexcept { return g_issued; }

}  // namespace ch4lite::rma
