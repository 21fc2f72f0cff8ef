// SPDX-License-Identifier: MIT
// The template netmod (STYLE.md #3). It satisfies the contract and compiles in
// every build, but every operation answers "unsupported". To write a netmod:
// copy this directory, rename the namespace, fill in am_send/progress first
// (that alone runs every MPI program through the device's AM fallback), then
// declare and implement optional capabilities one by one, running
// test/netmod/ after each (docs/netmod-guide.md).
#pragma once
#include "netmod/netmod.hpp"

namespace ch4lite::nm::stub {

class netmod {
  public:
    // Per-request state the device embeds in every request. A real netmod
    // keeps e.g. its fabric context here; keep it small (it is in every request).
    struct request_state {
        void* unused = nullptr;
    };

    static constexpr const char* name = "stub";
    static constexpr capabilities caps{
        .native_tagged = false,
        .native_rma = false,
        .am_payload_iov = false,
        .am_ordered = true,
        .iov_limit = 1,
        .inject_size = 0,
        .am_header_max = 64,
        .am_payload_max = 0,
        .tagged_iov_limit = 0,  // no irecvv (it needs native_tagged first)
    };

    status init(dev::bootstrap& bs);
    status finalize();
    int progress() { return 0; }
    status am_send(int peer, uint8_t handler, const void* hdr, std::size_t hlen,
                   const iov* payload, int niov, request_state* st);
    // "" until init() succeeded (the device reports the netmod as not opened).
    const char* provider() const { return ""; }
};

}  // namespace ch4lite::nm::stub
