// SPDX-License-Identifier: MIT
// Opening UCP: context, worker, the active-message handler, address
// exchange through the bootstrap, one endpoint per rank; and closing it.
#include <uct/api/uct.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "device/bootstrap.hpp"
#include "netmod/exchange.hpp"
#include "netmod/ucx/ucx_am.hpp"
#include "util/api_lock.hpp"
#include "util/env.hpp"
#include "util/log.hpp"

namespace ch4lite::nm::ucx {

namespace {

// "tl/device" of every transport resource UCT has on this machine, for
// messages about a UCX_TLS / UCX_NET_DEVICES that names none of them.
std::string available_transports() {
    std::string out;
    uct_component_h* comps = nullptr;
    unsigned ncomps = 0;
    if (uct_query_components(&comps, &ncomps) != UCS_OK) return "(UCT cannot list them)";
    for (unsigned c = 0; c < ncomps; ++c) {
        uct_component_attr_t ca{};
        ca.field_mask = UCT_COMPONENT_ATTR_FIELD_MD_RESOURCE_COUNT;
        if (uct_component_query(comps[c], &ca) != UCS_OK || ca.md_resource_count == 0) continue;
        std::vector<uct_md_resource_desc_t> mds(ca.md_resource_count);
        ca.field_mask = UCT_COMPONENT_ATTR_FIELD_MD_RESOURCES;
        ca.md_resources = mds.data();
        if (uct_component_query(comps[c], &ca) != UCS_OK) continue;
        for (const auto& md : mds) {
            uct_md_config_t* cfg = nullptr;
            if (uct_md_config_read(comps[c], nullptr, nullptr, &cfg) != UCS_OK) continue;
            uct_md_h h = nullptr;
            const ucs_status_t s = uct_md_open(comps[c], md.md_name, cfg, &h);
            uct_config_release(cfg);
            if (s != UCS_OK) continue;
            uct_tl_resource_desc_t* tls = nullptr;
            unsigned ntl = 0;
            if (uct_md_query_tl_resources(h, &tls, &ntl) == UCS_OK) {
                for (unsigned i = 0; i < ntl; ++i) {
                    if (!out.empty()) out.append(", ");
                    out.append(tls[i].tl_name).append("/").append(tls[i].dev_name);
                }
                uct_release_tl_resource_list(tls);
            }
            uct_md_close(h);
        }
    }
    uct_release_component_list(comps);
    return out.empty() ? "none" : out;
}

// The user's transport choice, for messages.
std::string tls_choice() {
    std::string s("UCX_TLS=");
    s.append(util::env_str("UCX_TLS", "(unset: all)"));
    if (const char* d = std::getenv("UCX_NET_DEVICES")) s.append(" UCX_NET_DEVICES=").append(d);
    return s;
}

// The transports of the endpoint's lanes, from ucp_ep_print_info's
// "lane[i]:  n:tl/dev.k md[..] ..." lines: "posix/memory+cma/memory".
std::string lane_transports(const std::string& all) {
    std::string out;
    for (std::size_t at = all.find("lane["); at != std::string::npos; at = all.find("lane[", at + 1)) {
        const std::size_t colon = all.find(':', at);             // "lane[0]:"
        if (colon == std::string::npos) break;
        const std::size_t tl = all.find(':', colon + 1);         // "  0:tcp/lo.0"
        const std::size_t eol = all.find('\n', at);
        if (tl == std::string::npos || tl > eol) continue;
        std::size_t end = all.find_first_of(". \n", tl + 1);
        const std::string name = all.substr(tl + 1, end - tl - 1);
        if (out.find(name) == std::string::npos) out.append(out.empty() ? "" : "+").append(name);
    }
    return out.empty() ? "?" : out;
}

// The size from which an endpoint's `what` protocol ("tag_send:") is a
// rendezvous, from ucp_ep_print_info's "0..<egr/short>..8185..<egr/bcopy>..
// 8192..<rndv>..(inf)": 8192; SIZE_MAX without one; 0 if unreadable (then
// no send of that kind counts as eager: never wrongly held back).
std::size_t rndv_threshold(const std::string& info, const char* what) {
    const std::size_t at = info.find(what);
    if (at == std::string::npos) return 0;
    const std::size_t eol = info.find('\n', at);
    const std::string line = info.substr(at, eol == std::string::npos ? std::string::npos : eol - at);
    const std::size_t r = line.find("..<rndv>");
    if (r == std::string::npos) return line.find("(inf)") != std::string::npos ? SIZE_MAX : 0;
    std::size_t b = r;
    while (b > 0 && line[b - 1] >= '0' && line[b - 1] <= '9') --b;
    return b < r ? std::strtoull(line.c_str() + b, nullptr, 10) : 0;
}

std::string ep_info(ucp_ep_h ep) {
    char* text = nullptr;
    std::size_t n = 0;
    FILE* f = open_memstream(&text, &n);
    if (!f) return {};
    ucp_ep_print_info(ep, f);
    std::fclose(f);
    std::string out(text, n);
    std::free(text);
    return out;
}

}  // namespace

am_netmod::am_netmod() = default;
// finalize() releases UCP. The destructor does not: it may run at exit
// after an abort, when UCX's own state may be gone already.
am_netmod::~am_netmod() = default;

status am_netmod::open(dev::bootstrap& bs, uint64_t features, const char* identity) {
    bs_ = &bs;
    rank_ = bs.rank();
    size_ = bs.size();
    held_count_.assign(static_cast<std::size_t>(size_), 0);
    gate_.assign(static_cast<std::size_t>(size_), 0);
    gate_on_ = util::env_bool("CH4LITE_UCX_SEND_GATE", true);
    self_ = this;
    am_rndv_min_ = static_cast<std::size_t>(std::max<int64_t>(
        0, util::env_int("CH4LITE_UCX_AM_RNDV_MIN", static_cast<int64_t>(am_rndv_min_))));
    // Network rule: a job on one node uses loopback only (UCX's shared
    // memory transports are not network devices and stay available).
    if (bs.num_nodes() == 1) setenv("UCX_NET_DEVICES", "lo", 0);

    ucp_config_t* cfg = nullptr;
    ucs_status_t s = ucp_config_read(nullptr, nullptr, &cfg);
    if (s != UCS_OK) {
        util::warn("ucx: cannot read the UCX configuration (UCX_* variables): %s",
                   ucs_status_string(s));
        return status::unsupported;
    }
    ucp_params_t params{};
    params.field_mask = UCP_PARAM_FIELD_FEATURES | UCP_PARAM_FIELD_ESTIMATED_NUM_EPS;
    params.features = features;
    params.estimated_num_eps = static_cast<std::size_t>(size_);
    s = ucp_init(&params, cfg, &context_);
    ucp_config_release(cfg);
    if (s != UCS_OK) {
        context_ = nullptr;
        util::warn("ucx: cannot open UCX with %s: %s; transports on this machine: %s",
                   tls_choice().c_str(), ucs_status_string(s), available_transports().c_str());
        return status::unsupported;
    }
    ucp_worker_params_t wp{};
    wp.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE;
    // The device is entered by one thread at a time; under
    // MPI_THREAD_MULTIPLE that thread changes (util/api_lock.hpp).
    wp.thread_mode = util::g_thread_multiple ? UCS_THREAD_MODE_SERIALIZED : UCS_THREAD_MODE_SINGLE;
    if ((s = ucp_worker_create(context_, &wp, &worker_)) != UCS_OK) {
        worker_ = nullptr;
        util::warn("ucx: cannot create a UCP worker: %s", ucs_status_string(s));
        return status::io;
    }
    ucp_worker_attr_t wa{};
    wa.field_mask = UCP_WORKER_ATTR_FIELD_MAX_AM_HEADER;
    if (ucp_worker_query(worker_, &wa) != UCS_OK ||
        wa.max_am_header < sizeof(am_wire) + caps.am_header_max) {
        util::warn("ucx: UCP active-message headers are limited to %zu bytes, ch4lite needs %zu",
                   wa.max_am_header, sizeof(am_wire) + caps.am_header_max);
        return status::unsupported;
    }
    ucp_am_handler_param_t hp{};
    hp.field_mask = UCP_AM_HANDLER_PARAM_FIELD_ID | UCP_AM_HANDLER_PARAM_FIELD_CB |
                    UCP_AM_HANDLER_PARAM_FIELD_ARG | UCP_AM_HANDLER_PARAM_FIELD_FLAGS;
    hp.id = am_id_device;
    hp.flags = UCP_AM_FLAG_WHOLE_MSG;
    hp.cb = on_am;
    hp.arg = this;
    if ((s = ucp_worker_set_am_recv_handler(worker_, &hp)) != UCS_OK) {
        util::warn("ucx: cannot set the active-message handler: %s", ucs_status_string(s));
        return status::io;
    }

    // Address exchange (the key every netmod shares: ranks of different
    // builds stop here), then an endpoint to every rank.
    ucp_address_t* addr = nullptr;
    std::size_t alen = 0;
    if ((s = ucp_worker_get_address(worker_, &addr, &alen)) != UCS_OK) {
        util::warn("ucx: cannot get the worker address: %s", ucs_status_string(s));
        return status::io;
    }
    std::vector<std::vector<std::byte>> addrs;
    std::string why;
    const status x = exchange_addresses(bs, identity, addr, alen, addrs, why);
    ucp_worker_release_address(worker_, addr);
    if (x != status::ok) {
        util::warn("ucx: %s", why.c_str());
        return x;
    }
    eps_.assign(static_cast<std::size_t>(size_), nullptr);
    for (int r = 0; r < size_; ++r) {
        ucp_ep_params_t ep{};
        ep.field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS | UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE;
        ep.address = reinterpret_cast<const ucp_address_t*>(addrs[static_cast<std::size_t>(r)].data());
        ep.err_mode = UCP_ERR_HANDLING_MODE_NONE;
        if ((s = ucp_ep_create(worker_, &ep, &eps_[static_cast<std::size_t>(r)])) != UCS_OK) {
            eps_[static_cast<std::size_t>(r)] = nullptr;
            util::warn("ucx: cannot reach rank %d with %s: %s; transports on this machine: %s", r,
                       tls_choice().c_str(), ucs_status_string(s), available_transports().c_str());
            return status::unsupported;
        }
    }
    tag_rndv_min_.assign(static_cast<std::size_t>(size_), 0);
    for (int r = 0; r < size_; ++r) {
        const std::string info = ep_info(eps_[static_cast<std::size_t>(r)]);
        tag_rndv_min_[static_cast<std::size_t>(r)] = rndv_threshold(info, "tag_send:");
        if (r == (rank_ + 1) % size_) {
            provider_.assign("ucx ").append(ucp_get_version_string()).append(" ");
            provider_.append(lane_transports(info));
        }
    }
    util::verbose("ucx: %s, %zu-byte worker address, AM rendezvous from %zu bytes, tagged "
                  "rendezvous (UCX's) from %zu bytes",
                  provider_.c_str(), alen, am_rndv_min_,
                  tag_rndv_min_[static_cast<std::size_t>((rank_ + 1) % size_)]);
    return status::ok;
}

void am_netmod::close_endpoints() {
    // Flush and close every endpoint; bounded, a peer that is gone must not
    // hang finalize (then the endpoints are released without flushing).
    std::vector<void*> pending;
    for (ucp_ep_h& ep : eps_) {
        if (!ep) continue;
        ucp_request_param_t p{};
        p.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS;
        p.flags = 0;  // flush
        const ucs_status_ptr_t r = ucp_ep_close_nbx(ep, &p);
        if (UCS_PTR_IS_PTR(r)) pending.push_back(r);
        ep = nullptr;
    }
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    for (void* r : pending) {
        while (ucp_request_check_status(r) == UCS_INPROGRESS &&
               std::chrono::steady_clock::now() < until)
            ucp_worker_progress(worker_);
        ucp_request_free(r);
    }
}

status am_netmod::finalize() {
    if (!worker_) return status::ok;
    // Everything sent has been received (the device's barrier came first),
    // but UCP may still hold completions and acknowledgments: let them
    // through, then close the endpoints once every rank is here, so that
    // every rank progresses while the others' flushes need it to answer.
    // (Closing first and then waiting in the launcher's barrier, which does
    // not progress UCX, left a peer whose flush came later waiting out the
    // 5 s bound: 1 run in 3 over tcp.) A rank that finishes first and
    // destroys its worker ends its connections: a peer's flush still
    // pending then completes (its status is not needed) instead of waiting.
    for (int i = 0; i < 1000; ++i) ucp_worker_progress(worker_);
    const status s = bs_ ? bs_->barrier() : status::ok;
    close_endpoints();
    held_.clear();
    ucp_worker_destroy(worker_);
    worker_ = nullptr;
    ucp_cleanup(context_);
    context_ = nullptr;
    return s;
}

}  // namespace ch4lite::nm::ucx
