// SPDX-License-Identifier: MIT
// Stage B, native RMA: exposed memory (ucp_mem_map, ucp_rkey_pack), peers'
// keys fetched on first use, put (+ flush: remote completion) and get.
// (Not compiled into the active-message-only build: ucx_netmod.hpp.)
#include "netmod/ucx/ucx_full.hpp"

#if !CH4LITE_FORCE_AM

#include <new>

#include "netmod/ucx/ucx_internal.hpp"
#include "util/log.hpp"

namespace ch4lite::nm::ucx {

status full_netmod::mr_register(void* buf, std::size_t n, mem_region& mr) {
    if (!rma_ok_ || n == 0) return status::unsupported;
    ucp_mem_map_params_t mp{};
    mp.field_mask = UCP_MEM_MAP_PARAM_FIELD_ADDRESS | UCP_MEM_MAP_PARAM_FIELD_LENGTH;
    mp.address = buf;
    mp.length = n;
    region r;
    ucs_status_t s = ucp_mem_map(context_, &mp, &r.memh);
    if (s != UCS_OK) {
        util::verbose("ucx: cannot map %zu bytes for RMA: %s", n, ucs_status_string(s));
        return status::io;
    }
    s = ucp_rkey_pack(context_, r.memh, &r.packed, &r.packed_len);
    if (s != UCS_OK) {
        ucp_mem_unmap(context_, r.memh);
        util::verbose("ucx: cannot pack a remote key: %s", ucs_status_string(s));
        return status::io;
    }
    // Keys are never reused: a peer's cached key of a released region
    // cannot reach a new one.
    const uint64_t key = next_key_++;
    region* kept;
    try {
        kept = &regions_.emplace(key, r).first->second;
    } catch (const std::bad_alloc&) {  // the callers are noexcept: MPI_ERR_NO_MEM
        ucp_rkey_buffer_release(r.packed);
        ucp_mem_unmap(context_, r.memh);
        return status::no_mem;
    }
    mr.key = key;
    mr.addr = reinterpret_cast<uint64_t>(buf);
    mr.handle = kept;
    return status::ok;
}

void full_netmod::mr_release(mem_region& mr) {
    if (auto it = regions_.find(mr.key); mr.handle && it != regions_.end()) {
        ucp_rkey_buffer_release(it->second.packed);
        ucp_mem_unmap(context_, it->second.memh);
        regions_.erase(it);
    }
    mr = mem_region{};
}

// The unpacked key of (peer, key), or nullptr with s = again while it is
// being fetched (the caller retries after progress) or a failure.
ucp_rkey_h full_netmod::rkey_of(int peer, uint64_t key, status& s) {
    decltype(rkeys_.try_emplace({peer, key})) got;
    try {
        got = rkeys_.try_emplace({peer, key});
    } catch (const std::bad_alloc&) {
        s = status::no_mem;
        return nullptr;
    }
    auto [it, added] = got;
    remote_key& rk = it->second;
    if (rk.state == 1) return rk.rkey;
    if (rk.state == 2) {
        s = status::invalid;  // the owner has no such memory (released)
        return nullptr;
    }
    if (added) {
        const internal_msg m{internal_msg::rkey_request, 1, 0, rank_, key, 0};
        s = send_internal(peer, &m, sizeof m, nullptr, 0);
        if (s != status::ok) {
            rkeys_.erase(it);
            return nullptr;
        }
    }
    s = status::again;
    return nullptr;
}

void full_netmod::on_rkey_request(int src, uint64_t key) {
    const auto it = regions_.find(key);
    const bool ok = it != regions_.end();
    const internal_msg m{internal_msg::rkey_reply, static_cast<uint8_t>(ok), 0, rank_, key, 0};
    if (send_internal(src, &m, sizeof m, ok ? it->second.packed : nullptr,
                      ok ? it->second.packed_len : 0) != status::ok)
        util::fatal("ucx: cannot answer rank %d's request for a remote key", src);
}

void full_netmod::on_rkey_reply(int src, uint64_t key, const void* packed, std::size_t len) {
    const auto it = rkeys_.find({src, key});
    if (it == rkeys_.end() || it->second.state != 0) return;
    remote_key& rk = it->second;
    if (!packed || len == 0 ||
        ucp_ep_rkey_unpack(eps_[static_cast<std::size_t>(src)], packed, &rk.rkey) != UCS_OK) {
        rk.state = 2;
        rk.rkey = nullptr;
        return;
    }
    rk.state = 1;
}

status full_netmod::put(int peer, const void* buf, std::size_t n, uint64_t raddr, uint64_t key,
                        request_state* st) {
    status s = status::ok;
    ucp_rkey_h rkey = rkey_of(peer, key, s);
    if (!rkey) return s;
    ucp_request_param_t p;
    p.op_attr_mask = 0;
    const ucs_status_ptr_t r = ucp_put_nbx(eps_[peer], buf, n, raddr, rkey, &p);
    if (UCS_PTR_IS_ERR(r)) return map(UCS_PTR_STATUS(r));
    if (r) ucp_request_free(r);  // released by UCX once done; the flush tracks it
    // Local completion of a put only frees our buffer; the flush completes
    // once the bytes are in the target's memory (the fence relies on it).
    p.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA;
    p.cb.send = on_sent;
    p.user_data = st;
    st->kind = op_kind::rma;
    return started(ucp_ep_flush_nbx(eps_[peer], &p), st, -1);
}

status full_netmod::get(int peer, void* buf, std::size_t n, uint64_t raddr, uint64_t key,
                        request_state* st) {
    status s = status::ok;
    ucp_rkey_h rkey = rkey_of(peer, key, s);
    if (!rkey) return s;
    ucp_request_param_t p;
    p.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA;
    p.cb.send = on_sent;
    p.user_data = st;
    st->kind = op_kind::rma;
    return started(ucp_get_nbx(eps_[peer], buf, n, raddr, rkey, &p), st, -1);
}

}  // namespace ch4lite::nm::ucx

#endif  // !CH4LITE_FORCE_AM
