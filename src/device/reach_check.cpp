// SPDX-License-Identifier: MIT
#include "device/reach_check.hpp"

#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "device/comm.hpp"
#include "device/device.hpp"
#include "device/p2p.hpp"
#include "device/progress.hpp"
#include "util/env.hpp"
#include "util/log.hpp"

namespace ch4lite::dev {

namespace {

// Not a collective tag (coll_p2p.hpp): no collective runs during MPI_Init.
constexpr int reach_tag = 1000;

double now() noexcept {
    timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

std::string host_of(int rank) {
    std::vector<std::byte> v;
    if (g_dev.boot.get(rank, "host", v) != status::ok || v.empty()) return "?";
    return std::string(reinterpret_cast<const char*>(v.data()), v.size());
}

std::string describe(int rank) { return "rank " + std::to_string(rank) + " on host " + host_of(rank); }

std::string netmod_words() {
    std::string s("the ");
    s.append(active_netmod::name).append(" netmod");
    if (g_dev.nm.provider()[0]) s.append(" (provider ").append(g_dev.nm.provider()).append(")");
    return s;
}

}  // namespace

void publish_host_name() {
    if (g_dev.boot.num_nodes() < 2) return;
    char host[256] = {};
    if (::gethostname(host, sizeof host - 1) != 0) std::strcpy(host, "unknown");
    (void)g_dev.boot.put("host", host, std::strlen(host));
}

status check_reach(std::string& error) {
    bootstrap& b = g_dev.boot;
    const int nn = b.num_nodes(), me = b.rank();
    const double limit = static_cast<double>(util::env_int("CH4LITE_REACH_TIMEOUT", 30));
    if (nn < 2 || !g_dev.nm_open || limit <= 0) return status::ok;
    std::vector<std::vector<int>> on(static_cast<std::size_t>(nn));
    for (int r = 0; r < b.size(); ++r) on[static_cast<std::size_t>(b.node_of()[static_cast<std::size_t>(r)])].push_back(r);
    const int node = b.node_of()[static_cast<std::size_t>(me)];
    const auto& mine = on[static_cast<std::size_t>(node)];
    const std::size_t idx = static_cast<std::size_t>(std::find(mine.begin(), mine.end(), me) - mine.begin());
    const auto& next = on[static_cast<std::size_t>((node + 1) % nn)];
    const auto& prev = on[static_cast<std::size_t>((node + nn - 1) % nn)];
    const int target = next[idx % next.size()];
    std::vector<int> senders;
    for (std::size_t j = 0; j < prev.size(); ++j)
        if (j % mine.size() == idx) senders.push_back(prev[j]);

    comm& w = comm_world();
    const int32_t out = me;
    std::vector<int32_t> in(senders.size(), -1);
    std::vector<request*> rr(senders.size(), nullptr);
    for (std::size_t i = 0; i < senders.size(); ++i)
        if (status s = irecv_on(w.ctx_coll(), &in[i], sizeof(int32_t), w, senders[i], reach_tag, rr[i]);
            s != status::ok) {
            error = "cannot post the reachability check's receive: " + std::string(to_string(s));
            return s;
        }
    request* sr = nullptr;
    if (status s = isend_on(w.ctx_coll(), &out, sizeof out, w, target, reach_tag, false, sr);
        s != status::ok) {
        error = describe(me) + " cannot reach " + describe(target) + " with " + netmod_words() + ": " +
                to_string(s) + "; check the interface the provider uses (FI_TCP_IFACE) and the network between the hosts";
        return status::proc_failed;
    }
    const double deadline = now() + limit;
    auto done = [&] {
        if (sr->cc != 0) return false;
        for (request* r : rr)
            if (r->cc != 0) return false;
        return true;
    };
    bool timed_out = false;
    progress_until([&] {
        if (done()) return true;
        timed_out = now() > deadline;
        return timed_out || (sr->cc == 0 && sr->result != status::ok);
    });
    if (sr->cc == 0 && sr->result != status::ok) {
        error = describe(me) + " cannot reach " + describe(target) + " with " + netmod_words() + ": " +
                to_string(sr->result) + "; check the interface the provider uses (FI_TCP_IFACE) and the network between the hosts";
        return status::proc_failed;
    }
    if (timed_out) {
        error = describe(me) + ":";
        if (sr->cc != 0) error += " its message to " + describe(target) + " did not leave";
        for (std::size_t i = 0; i < rr.size(); ++i)
            if (rr[i]->cc != 0)
                error += (error.back() == ':' ? " " : "; ") + std::string("no message from ") + describe(senders[i]);
        error += " within " + std::to_string(static_cast<int>(limit)) + " s (CH4LITE_REACH_TIMEOUT) over " +
                 netmod_words() + "; check the interfaces the provider uses (FI_TCP_IFACE) and the network between the hosts";
        return status::proc_failed;
    }
    request_release(sr);
    for (std::size_t i = 0; i < rr.size(); ++i) {
        const bool ok = rr[i]->result == status::ok && in[i] == senders[i];
        request_release(rr[i]);
        if (!ok) {
            error = "the reachability check got a wrong message from " + describe(senders[i]);
            return status::intern;
        }
    }
    util::verbose("reach: %d node(s); this rank reached rank %d on host %s", nn, target, host_of(target).c_str());
    return status::ok;
}

}  // namespace ch4lite::dev
