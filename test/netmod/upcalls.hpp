// SPDX-License-Identifier: MIT
// Recording replacements for the device upcalls (netmod/netmod.hpp), so the
// conformance suite drives a netmod without the device.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <vector>

#include "netmod/netmod.hpp"

namespace conformance {

struct am_event {
    int src;
    uint8_t handler;
    std::vector<std::byte> hdr, payload;
};

struct landed_event {
    int src;
    uint8_t handler;
    std::size_t len;
    ch4lite::status result;
};

struct recorder {
    std::vector<std::byte> landing;  // "device" memory for handler 70 (conformance.cpp)
    std::vector<landed_event> landed;
    std::vector<am_event> ams;
    std::vector<const void*> sends_done;   // request_state pointers
    std::vector<const void*> recvs_done;
    std::vector<ch4lite::nm::recv_info> recv_infos;
    std::vector<ch4lite::status> recv_results;
    int send_failures = 0;
    // Called from inside nm_recv_done after recording (a device posts its
    // next receives from there): tests set it for a case.
    std::function<void(const void*)> after_recv;
    std::function<void(const void*)> after_send;  // the same from nm_send_done
    void clear() {
        std::vector<std::byte> keep;
        keep.swap(landing);
        *this = recorder{};
        landing.swap(keep);
    }
};

recorder& rec();

template <class S>
bool send_done(const S* st) {
    for (const void* p : rec().sends_done)
        if (p == st) return true;
    return false;
}
template <class S>
int recv_done_index(const S* st) {
    for (std::size_t i = 0; i < rec().recvs_done.size(); ++i)
        if (rec().recvs_done[i] == st) return static_cast<int>(i);
    return -1;
}

}  // namespace conformance

namespace ch4lite::dev {
template <class State>
void nm_send_done(State* st, status result) noexcept {
    conformance::rec().sends_done.push_back(st);
    if (result != status::ok) ++conformance::rec().send_failures;
    if (conformance::rec().after_send) conformance::rec().after_send(st);
}
template <class State>
void nm_recv_done(State* st, const nm::recv_info& info, status result) noexcept {
    conformance::rec().recvs_done.push_back(st);
    conformance::rec().recv_infos.push_back(info);
    conformance::rec().recv_results.push_back(result);
    if (conformance::rec().after_recv) conformance::rec().after_recv(st);
}
}  // namespace ch4lite::dev
