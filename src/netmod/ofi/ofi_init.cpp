// SPDX-License-Identifier: MIT
// Opening the fabric: provider choice, endpoint, address exchange through
// the bootstrap, multi-receive buffers for active messages.
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "device/bootstrap.hpp"
#include "netmod/exchange.hpp"
#include "netmod/ofi/ofi_lib.hpp"
#include "netmod/ofi/ofi_netmod.hpp"
#include "util/env.hpp"
#include "util/log.hpp"

namespace ch4lite::nm::ofi {

namespace {

constexpr uint32_t api_version = FI_VERSION(1, 12);
constexpr std::size_t am_buffer_count = 4;
constexpr std::size_t am_buffer_bytes = 2u << 20;
constexpr std::size_t am_single_buffers = 64;

fi_info* make_hints(bool want_tagged, bool want_rma) {
    fi_info* h = lib::fns.dupinfo(nullptr);  // fi_allocinfo()
    if (!h) return nullptr;
    h->caps = FI_MSG | FI_MULTI_RECV;  // not FI_REMOTE_COMM: the shm provider lacks it
    if (want_tagged) h->caps |= FI_TAGGED;
    if (want_rma) h->caps |= FI_RMA | FI_READ | FI_WRITE | FI_REMOTE_READ | FI_REMOTE_WRITE;
    // We hand every operation an fi_context2; we do NOT accept FI_BUFFERED_RECV.
    h->mode = FI_CONTEXT | FI_CONTEXT2;
    h->ep_attr->type = FI_EP_RDM;
    h->domain_attr->threading = FI_THREAD_DOMAIN;
    h->domain_attr->mr_mode = FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY;
    h->domain_attr->cq_data_size = 8;
    h->tx_attr->msg_order = FI_ORDER_SAS;  // MPI non-overtaking
    h->rx_attr->msg_order = FI_ORDER_SAS;
    h->tx_attr->op_flags = FI_COMPLETION;
    h->rx_attr->op_flags = FI_COMPLETION;
    // Default provider: tcp;ofi_rxm (works everywhere). libfabric itself
    // honours FI_PROVIDER when the user sets it.
    const char* prov = std::getenv("FI_PROVIDER");
    h->fabric_attr->prov_name = strdup(prov && *prov ? prov : "tcp;ofi_rxm");
    return h;
}

const char* fi_err(int rc) { return lib::strerror(rc < 0 ? -rc : rc); }

// The providers libfabric offers for reliable-datagram endpoints, for the
// message about an FI_PROVIDER that names none of them. libfabric fixes its
// FI_PROVIDER filter when it initializes, so this process cannot ask; the
// fi_info tool (libfabric-bin) can, without the variable. Cold path only.
double ms_between(std::chrono::steady_clock::time_point a, std::chrono::steady_clock::time_point b) {
    return std::chrono::duration<double, std::milli>(b - a).count();
}

std::string available_providers() {
    FILE* p = ::popen("env -u FI_PROVIDER fi_info -t FI_EP_RDM 2>/dev/null", "r");
    if (!p) return "(see fi_info -l)";
    std::vector<std::string> names;
    char line[512];
    while (std::fgets(line, sizeof line, p)) {
        const char* at = std::strstr(line, "provider: ");
        if (!at) continue;
        std::string n(at + 10);
        while (!n.empty() && (n.back() == '\n' || n.back() == ' ')) n.pop_back();
        if (std::find(names.begin(), names.end(), n) == names.end()) names.push_back(n);
    }
    ::pclose(p);
    std::string out;
    for (const std::string& n : names) out.append(out.empty() ? "" : ", ").append(n);
    return out.empty() ? "(see fi_info -l)" : out;
}

}  // namespace

netmod::netmod() = default;
netmod::~netmod() { close_all(); }

status netmod::init(dev::bootstrap& bs) {
    rank_ = bs.rank();
    size_ = bs.size();
    if (size_ - 1 > tagbits::max_rank) {
        util::warn("ofi: %d ranks exceed the %d the match bits can name", size_, tagbits::max_rank + 1);
        return status::unsupported;
    }
    using clock = std::chrono::steady_clock;
    const clock::time_point t_start = clock::now();
    if (std::string why; !lib::load(why)) {
        util::warn("ofi: %s", why.c_str());
        return status::unsupported;
    }
    // Network rule: a job on one node talks over loopback only.
    const bool one_node = bs.num_nodes() == 1;
    if (one_node) {
        setenv("FI_TCP_IFACE", "lo", 0);
        setenv("FI_SOCKETS_IFACE", "lo", 0);
    }
    // libfabric 1.17 (Debian 12): with rxm's dynamic receive buffers, a
    // truncated eager receive over tcp disables the connection
    // (ofiwg/libfabric#8274, fixed in later releases). Without them rxm
    // receives eager data into its own buffer and clamps the copy, so
    // MPI_ERR_TRUNCATE leaves the job usable. Costs one copy of eager data.
    setenv("FI_OFI_RXM_ENABLE_DYN_RBUF", "0", 0);
    // rxm over tcp receives eager messages from all peers into one shared
    // receive context, and prepares FI_OFI_RXM_MSG_RX_SIZE buffers of
    // FI_OFI_RXM_BUFFER_SIZE (16 KiB) for it as the endpoint opens: by
    // default 4096, 68 MB that it zeroes, 70 ms of a process's start-up. A
    // window of 64 messages per peer is enough (a sender that runs ahead
    // is held back by TCP until buffers come back, tested down to 64
    // buffers), so: 64 per peer, at least 256, at most rxm's 4096. Only
    // for tcp;ofi_rxm: over other providers (verbs) rxm uses the value per
    // connection.
    if (const char* p = std::getenv("FI_PROVIDER"); !p || !*p || std::strcmp(p, "tcp;ofi_rxm") == 0) {
        const long per_peer = 64L * std::max(size_ - 1, 1);
        const std::string rx = std::to_string(std::clamp(per_peer, 256L, 4096L));
        setenv("FI_OFI_RXM_MSG_RX_SIZE", rx.c_str(), 0);
    }
    // An empty FI_PROVIDER ("FI_PROVIDER=" in a script) is a filter that
    // libfabric matches against no provider at all; read it as unset.
    if (const char* p = std::getenv("FI_PROVIDER"); p && !*p) unsetenv("FI_PROVIDER");
    // Native RMA when the provider has it (CH4LITE_OFI_RMA=0: never ask).
    const bool want_rma = caps.native_rma && util::env_bool("CH4LITE_OFI_RMA", true);
    fi_info* hints = make_hints(caps.native_tagged, want_rma);
    if (!hints) return status::no_mem;
    int rc = lib::getinfo(api_version, nullptr, nullptr, 0, hints, &info_);
    if (rc != 0 && want_rma) {  // a provider without RMA still carries messages
        lib::fns.freeinfo(hints);
        hints = make_hints(caps.native_tagged, false);
        if (!hints) return status::no_mem;
        rc = lib::getinfo(api_version, nullptr, nullptr, 0, hints, &info_);
    }
    // An IP-addressed provider on a one-node job binds to loopback. (Only
    // those: the shm provider reads `node` as its region name.)
    if (rc == 0 && one_node &&
        (info_->addr_format == FI_SOCKADDR_IN || info_->addr_format == FI_SOCKADDR_IN6 ||
         info_->addr_format == FI_SOCKADDR)) {
        fi_info* lo = nullptr;
        if (lib::getinfo(api_version, "127.0.0.1", nullptr, FI_SOURCE, hints, &lo) == 0 && lo) {
            lib::fns.freeinfo(info_);
            info_ = lo;
        }
    }
    lib::fns.freeinfo(hints);
    if (rc != 0 || !info_) {
        util::warn("ofi: no libfabric provider matches (FI_PROVIDER=%s): %s; providers here: %s",
                   util::env_str("FI_PROVIDER", "tcp;ofi_rxm (default)"), fi_err(rc),
                   available_providers().c_str());
        return status::unsupported;
    }
    provider_ = info_->fabric_attr->prov_name;
    if (info_->mode & FI_BUFFERED_RECV) {  // never accepted in hints; refuse if imposed
        util::warn("ofi: provider %s imposes FI_BUFFERED_RECV, which ch4lite does not support",
                   provider_.c_str());
        return status::unsupported;
    }
    // CH4LITE_OFI_INJECT_MAX caps the size sent with fi_inject/fi_tinject.
    inject_ = std::min<std::size_t>(
        {info_->tx_attr->inject_size, max_inject,
         static_cast<std::size_t>(std::max<int64_t>(0, util::env_int("CH4LITE_OFI_INJECT_MAX", max_inject)))});
    // libfabric 1.17's shm provider completes a too-long tagged receive
    // without reporting truncation, and loses injected tagged messages that
    // arrive unexpected under load; its untagged messages (our active
    // messages) are correct. Its new `net` provider (and net;ofi_rxm) hangs
    // on a truncated tagged receive, loses the CQ data of fi_tinjectdata
    // (our RTS, synchronous sends) and so hangs MPI programs; its untagged
    // messages pass the conformance suite. So with either the device
    // matches messages itself (docs/netmod-ofi.md, PROVIDERS).
    const bool broken_tagged = provider_ == "shm" || provider_.rfind("net", 0) == 0;
    tagged_ok_ = caps.native_tagged && util::env_bool("CH4LITE_OFI_TAGGED", !broken_tagged);
    tagged_iov_ = std::min<std::size_t>(caps.tagged_iov_limit, info_->rx_attr->iov_limit);
    // rxm (libfabric 1.17) mishandles truncated SAR messages: pad tagged
    // receives up to the SAR limit (see pad_to_). SAR is off when its limit
    // does not exceed the eager limit; CH4LITE_OFI_PAD=0 turns padding off.
    if (tagged_ok_ && provider_.find("ofi_rxm") != std::string::npos &&
        util::env_bool("CH4LITE_OFI_PAD", true)) {
        const int64_t sar = util::env_int("FI_OFI_RXM_SAR_LIMIT", 128 * 1024);
        const int64_t eager = util::env_int("FI_OFI_RXM_EAGER_LIMIT", 16 * 1024);
        if (sar > eager && sar < int64_t{1} << 30) {
            if (tagged_iov_ < 2) {
                util::warn("ofi: provider %s takes %zu receive segments; truncating a message of "
                           "%lld bytes or fewer may crash it",
                           provider_.c_str(), tagged_iov_, static_cast<long long>(sar));
            } else {
                pad_to_ = static_cast<std::size_t>(sar);
                pad_.reset(new (std::nothrow) std::byte[pad_to_]);
                if (!pad_) return status::no_mem;
            }
        }
    }
    rma_ok_ = want_rma && (info_->caps & FI_RMA) && !(info_->domain_attr->mr_mode & FI_MR_LOCAL);
    rma_max_ = std::min<std::size_t>(info_->ep_attr->max_msg_size, std::size_t{1} << 30);
    util::verbose("ofi: provider %s, fabric %s, domain %s, inject %zu, iov_limit %zu/%zu (tx/rx), "
                  "tagged path %s, receives padded to %zu bytes, RMA %s (mr_mode 0x%x)",
                  provider_.c_str(), info_->fabric_attr->name, info_->domain_attr->name,
                  info_->tx_attr->inject_size, info_->tx_attr->iov_limit, info_->rx_attr->iov_limit,
                  tagged_ok_ ? "used" : caps.native_tagged ? "declined" : "not built", pad_to_,
                  rma_ok_ ? "used" : "not used", static_cast<unsigned>(info_->domain_attr->mr_mode));
    if (info_->tx_attr->iov_limit < caps.iov_limit + 1) {
        util::warn("ofi: provider %s allows %zu iov entries, ch4lite needs %zu", provider_.c_str(),
                   info_->tx_attr->iov_limit, caps.iov_limit + 1);
        return status::unsupported;
    }

    const clock::time_point t_info = clock::now();
    if ((rc = lib::fns.fabric(info_->fabric_attr, &fabric_, nullptr)) ||
        (rc = fi_domain(fabric_, info_, &domain_, nullptr))) {
        util::warn("ofi: cannot open fabric/domain: %s", fi_err(rc));
        return status::io;
    }
    fi_av_attr av_attr{};
    av_attr.type = FI_AV_TABLE;
    av_attr.count = static_cast<size_t>(size_);
    fi_cq_attr cq_attr{};
    cq_attr.format = FI_CQ_FORMAT_TAGGED;
    cq_attr.size = 8192;
    cq_attr.wait_obj = FI_WAIT_NONE;
    if ((rc = fi_av_open(domain_, &av_attr, &av_, nullptr)) ||
        (rc = fi_cq_open(domain_, &cq_attr, &cq_, nullptr)) ||
        (rc = fi_endpoint(domain_, info_, &ep_, nullptr)) ||
        (rc = fi_ep_bind(ep_, &av_->fid, 0)) ||
        (rc = fi_ep_bind(ep_, &cq_->fid, FI_TRANSMIT | FI_RECV))) {
        util::warn("ofi: cannot create endpoint: %s", fi_err(rc));
        return status::io;
    }
    if ((rc = fi_enable(ep_))) {
        util::warn("ofi: cannot enable endpoint: %s", fi_err(rc));
        return status::io;
    }
    const clock::time_point t_ep = clock::now();
    // Active messages land in multi-receive buffers, retired once less than
    // one maximal AM fits. The threshold is set after fi_enable (some
    // providers create their receive context there). Providers that cannot
    // set it get one-message buffers, and so does libfabric 1.17's shm: under
    // a flood its multi-receive runs out of receive entries (fi_recvmsg says
    // ENOMEM while messages pile up unexpected) and stops moving.
    const std::size_t am_max = sizeof(am_wire) + caps.am_header_max + caps.am_payload_max;
    size_t min_multi = am_max;
    multi_recv_ = provider_ != "shm" && (info_->caps & FI_MULTI_RECV) && FI_CHECK_OP(ep_->ops, struct fi_ops_ep, setopt) &&
                  fi_setopt(&ep_->fid, FI_OPT_ENDPOINT, FI_OPT_MIN_MULTI_RECV, &min_multi,
                            sizeof min_multi) == 0;
    const std::size_t nbufs = multi_recv_ ? am_buffer_count : am_single_buffers;
    const std::size_t bytes = multi_recv_ ? am_buffer_bytes : am_max;
    util::verbose("ofi: active messages in %zu %s buffers of %zu bytes", nbufs,
                  multi_recv_ ? "multi-receive" : "single-message", bytes);
    am_bufs_ = std::vector<am_buffer>(nbufs);
    for (std::size_t i = 0; i < am_bufs_.size(); ++i) {
        am_bufs_[i].kind = op_kind::am_buffer;
        am_bufs_[i].size = bytes;
        am_bufs_[i].mem.reset(new (std::nothrow) std::byte[bytes]);
        if (!am_bufs_[i].mem) return status::no_mem;
        const status s = post_am_buffer(i);
        if (s != status::ok) return s;
    }
    probe_.kind = op_kind::probe;
    const clock::time_point t_buf = clock::now();

    // Address exchange (netmod/exchange.hpp: the same key for every netmod,
    // so ranks of different builds stop here): insert in rank order so
    // that fi_addr_t == world rank.
    std::byte addr[256];
    size_t alen = sizeof addr;
    if ((rc = fi_getname(&ep_->fid, addr, &alen))) {
        util::warn("ofi: fi_getname: %s", fi_err(rc));
        return status::io;
    }
    std::vector<std::vector<std::byte>> addrs;
    std::string why;
    status s = exchange_addresses(bs, caps.native_tagged ? "ofi" : "ofi-am", addr, alen, addrs, why);
    if (s != status::ok) {
        util::warn("ofi: %s", why.c_str());
        return s;
    }
    const clock::time_point t_exch = clock::now();
    std::vector<std::byte> all;
    all.reserve(alen * static_cast<std::size_t>(size_));
    for (int r = 0; r < size_; ++r) {
        const auto& one = addrs[static_cast<std::size_t>(r)];
        if (one.size() != alen) {
            util::warn("ofi: rank %d published a %zu-byte address, expected %zu", r, one.size(), alen);
            return status::io;
        }
        all.insert(all.end(), one.begin(), one.end());
    }
    rc = fi_av_insert(av_, all.data(), static_cast<size_t>(size_), nullptr, 0, nullptr);
    if (rc != size_) {
        util::warn("ofi: fi_av_insert inserted %d of %d addresses", rc, size_);
        return status::io;
    }
    const clock::time_point t_end = clock::now();
    util::verbose("ofi: init in %.1f ms (libfabric and provider %.1f, endpoint %.1f, receive buffers %.1f, "
                  "address exchange %.1f, address vector %.1f)",
                  ms_between(t_start, t_end), ms_between(t_start, t_info), ms_between(t_info, t_ep),
                  ms_between(t_ep, t_buf), ms_between(t_buf, t_exch), ms_between(t_exch, t_end));
    return status::ok;
}

// Window memory for native RMA. The provider tells (mr_mode) whether peers
// address it by virtual address or by offset, and whether it picks the key.
status netmod::mr_register(void* buf, std::size_t n, mem_region& mr) {
    if (!rma_ok_ || n == 0) return status::unsupported;
    const int mode = info_->domain_attr->mr_mode;
    const uint64_t want_key = (mode & FI_MR_PROV_KEY) ? 0 : next_key_++;
    fid_mr* m = nullptr;
    int rc = fi_mr_reg(domain_, buf, n, FI_REMOTE_READ | FI_REMOTE_WRITE, 0, want_key, 0, &m, nullptr);
    if (rc == 0 && (mode & FI_MR_ENDPOINT)) {
        rc = fi_mr_bind(m, &ep_->fid, 0);
        if (rc == 0) rc = fi_mr_enable(m);
    }
    if (rc != 0) {
        if (m) fi_close(&m->fid);
        util::verbose("ofi: cannot register %zu bytes for RMA: %s", n, fi_err(rc));
        return status::io;
    }
    mr.key = fi_mr_key(m);
    mr.addr = (mode & FI_MR_VIRT_ADDR) ? reinterpret_cast<uint64_t>(buf) : 0;
    mr.handle = m;
    return status::ok;
}

void netmod::mr_release(mem_region& mr) {
    if (mr.handle) fi_close(&static_cast<fid_mr*>(mr.handle)->fid);
    mr = mem_region{};
}

status netmod::post_am_buffer(std::size_t i) {
    am_buffer& b = am_bufs_[i];
    struct ::iovec v{b.mem.get(), b.size};
    fi_msg msg{};
    msg.msg_iov = &v;
    msg.iov_count = 1;
    msg.addr = FI_ADDR_UNSPEC;
    msg.context = &b.ctx;
    const uint64_t flags = multi_recv_ ? FI_MULTI_RECV | FI_COMPLETION : FI_COMPLETION;
    const ssize_t rc = fi_recvmsg(ep_, &msg, flags);
    if (rc == 0) return status::ok;
    // No resources right now (tcp: EAGAIN; shm: ENOMEM while its receive
    // entries are in use): retry from progress(). The other buffers keep
    // receiving meanwhile.
    if (rc == -FI_EAGAIN || rc == -FI_ENOMEM) {
        repost_.push_back(i);
        return status::ok;
    }
    util::warn("ofi: cannot post an active-message buffer: %s", fi_err(static_cast<int>(rc)));
    return status::io;
}

void netmod::retry_reposts() {
    std::vector<std::size_t> todo;
    todo.swap(repost_);
    for (std::size_t i : todo)
        if (post_am_buffer(i) != status::ok) util::fatal("ofi: cannot repost an AM buffer");
}

status netmod::finalize() {
    close_all();
    return status::ok;
}

void netmod::close_all() {
    // Endpoint first (it references the CQ and AV), then the rest.
    if (ep_) fi_close(&ep_->fid);
    if (cq_) fi_close(&cq_->fid);
    if (av_) fi_close(&av_->fid);
    if (domain_) fi_close(&domain_->fid);
    if (fabric_) fi_close(&fabric_->fid);
    if (info_) lib::fns.freeinfo(info_);
    ep_ = nullptr;
    cq_ = nullptr;
    av_ = nullptr;
    domain_ = nullptr;
    fabric_ = nullptr;
    info_ = nullptr;
    am_bufs_.clear();
}

}  // namespace ch4lite::nm::ofi
