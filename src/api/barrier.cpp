// SPDX-License-Identifier: MIT
// MPI_Barrier: dissemination over the communicator's collective context
// (ceil(log2 p) rounds of zero-byte messages).
#include "api/errors.hpp"
#include "api/handles.hpp"
#include "device/comm.hpp"
#include "device/p2p.hpp"
#include "device/progress.hpp"

using namespace ch4lite;

extern "C" int MPI_Barrier(MPI_Comm comm) {
    CH4_REQUIRE_INIT();
    dev::comm* c = api::lookup_comm(comm);
    if (!c) CH4_FAIL(comm, MPI_ERR_COMM, "invalid communicator");
    const int p = c->size, me = c->rank;
    constexpr int barrier_tag = 1;
    for (int dist = 1; dist < p; dist <<= 1) {
        dev::request* rr = nullptr;
        dev::request* sr = nullptr;
        status s = dev::irecv_on(c->ctx_coll(), nullptr, 0, *c, (me - dist + p) % p, barrier_tag, rr);
        if (s == status::ok) s = dev::isend_on(c->ctx_coll(), nullptr, 0, *c, (me + dist) % p, barrier_tag, false, sr);
        if (s != status::ok) {
            if (rr) {
                dev::wait(rr);
                dev::request_release(rr);
            }
            CH4_FAIL(comm, api::class_of(s), "barrier round %d failed: %s", dist, to_string(s));
        }
        dev::progress_until([&] { return rr->cc == 0 && sr->cc == 0; });
        const status rs = rr->result != status::ok ? rr->result : sr->result;
        dev::request_release(rr);
        dev::request_release(sr);
        if (rs != status::ok) CH4_FAIL(comm, api::class_of(rs), "barrier failed: %s", to_string(rs));
    }
    return MPI_SUCCESS;
}
