// SPDX-License-Identifier: MIT
// Must NOT compile: a netmod that declares a capability without its
// members. The ctest netmod.contract.<case> compiles this file with
// -DBAD_CASE=<case> and expects the compiler to name the missing member
// (netmod::check_contract). BAD_CASE=none is the control: it compiles.
#include "netmod/netmod.hpp"

namespace bad {

using namespace ch4lite;
using namespace ch4lite::nm;

#ifndef BAD_CASE_TAGGED
#define BAD_CASE_TAGGED 0
#endif
#ifndef BAD_CASE_RMA
#define BAD_CASE_RMA 0
#endif
#ifndef BAD_CASE_IOV
#define BAD_CASE_IOV 0
#endif
#ifndef BAD_CASE_AM
#define BAD_CASE_AM 0
#endif

struct netmod {
    struct request_state {
        int x = 0;
    };
    static constexpr const char* name = "bad";
    static constexpr capabilities caps{
        .native_tagged = BAD_CASE_TAGGED || BAD_CASE_IOV,
        .native_rma = BAD_CASE_RMA != 0,
        .am_payload_iov = false,
        .am_ordered = true,
        .iov_limit = 1,
        .inject_size = 0,
        .am_header_max = 64,
        .am_payload_max = 1024,
        .tagged_iov_limit = BAD_CASE_IOV ? 4u : 0u,
    };
    status init(dev::bootstrap&) { return status::unsupported; }
    status finalize() { return status::ok; }
    int progress() { return 0; }
#if !BAD_CASE_AM
    status am_send(int, uint8_t, const void*, std::size_t, const iov*, int, request_state*) {
        return status::unsupported;
    }
#endif
    const char* provider() const { return "none"; }
#if BAD_CASE_TAGGED || BAD_CASE_IOV
    // Everything but iprobe (BAD_CASE_TAGGED) / all of it (BAD_CASE_IOV:
    // then irecvv is what is missing).
    status isend(int, match, const void*, std::size_t, unsigned, request_state*) {
        return status::unsupported;
    }
    status irecv(int, match, void*, std::size_t, request_state*) { return status::unsupported; }
#if BAD_CASE_IOV
    bool iprobe(int, match, recv_info&) { return false; }
#endif
    status isend_rts(int, match, uint64_t, request_state*) { return status::unsupported; }
    bool cancel_recv(request_state*) { return false; }
    bool tagged_usable() const { return false; }
#endif
#if BAD_CASE_RMA
    // put is missing.
    bool rma_usable() const { return false; }
    std::size_t rma_max() const { return 0; }
    status mr_register(void*, std::size_t, mem_region&) { return status::unsupported; }
    void mr_release(mem_region&) {}
    status get(int, void*, std::size_t, uint64_t, uint64_t, request_state*) {
        return status::unsupported;
    }
#endif
};

static_assert(check_contract<netmod>(), "the netmod does not satisfy the contract");

}  // namespace bad
