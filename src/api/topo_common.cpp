// SPDX-License-Identifier: MIT
// MPI_Topo_test and the helpers of the topology entry points.
#include "api/topo_common.hpp"

#include <algorithm>

#include "api/handles.hpp"

using namespace ch4lite;

namespace ch4lite::api {

int topo_of(const char* fn, MPI_Comm comm, topo::kind k, dev::comm*& c,
            const topo::topology*& t) noexcept {
    CH4_REQUIRE_INIT_IN(fn);
    c = lookup_comm(comm);
    if (!c) CH4_FAIL_IN(fn, comm, MPI_ERR_COMM, "invalid communicator");
    t = c->topo.get();
    static constexpr const char* names[] = {"a Cartesian", "a graph", "a distributed graph"};
    if (!t || t->k != k)
        CH4_FAIL_IN(fn, comm, MPI_ERR_TOPOLOGY, "the communicator has no %s topology",
                    names[static_cast<int>(k)]);
    return MPI_SUCCESS;
}

int topo_parent(const char* fn, MPI_Comm comm, dev::comm*& c) noexcept {
    CH4_REQUIRE_INIT_IN(fn);
    c = lookup_comm(comm);
    if (!c) CH4_FAIL_IN(fn, comm, MPI_ERR_COMM, "invalid communicator");
    if (c->is_inter())
        CH4_FAIL_IN(fn, comm, MPI_ERR_COMM,
                    "an intercommunicator cannot have a topology: an intracommunicator is needed");
    return MPI_SUCCESS;
}

void copy_out(int* dst, const std::vector<int>& src, int max) noexcept {
    const std::size_t n = std::min(src.size(), static_cast<std::size_t>(max));
    std::copy_n(src.data(), n, dst);
}

}  // namespace ch4lite::api

extern "C" {

CH4_PMPI(MPI_Topo_test)
int MPI_Topo_test(MPI_Comm comm, int* status) {
    CH4_API_LOCK();
    CH4_REQUIRE_INIT();
    const dev::comm* c = api::lookup_comm(comm);
    if (!c) CH4_FAIL(comm, MPI_ERR_COMM, "invalid communicator");
    if (!status) CH4_FAIL(comm, MPI_ERR_ARG, "status (output) is NULL");
    if (!c->topo) {
        *status = MPI_UNDEFINED;
        return MPI_SUCCESS;
    }
    switch (c->topo->k) {
        case topo::kind::cart: *status = MPI_CART; break;
        case topo::kind::graph: *status = MPI_GRAPH; break;
        case topo::kind::dist_graph: *status = MPI_DIST_GRAPH; break;
    }
    return MPI_SUCCESS;
}

}  // extern "C"
