// SPDX-License-Identifier: MIT
// What the topology entry points (topo_cart.cpp, topo_graph.cpp,
// topo_dist_graph.cpp) share: finding a communicator's topology of the
// kind a function needs, and checking the input communicator of a
// constructor.
#pragma once
#include <mpi.h>

#include "api/errors.hpp"
#include "device/comm.hpp"
#include "topo/topology.hpp"

namespace ch4lite::api {

// MPI_Init done, comm valid (MPI_ERR_COMM) with a topology of kind k
// (MPI_ERR_TOPOLOGY otherwise); *c and *t set.
int topo_of(const char* fn, MPI_Comm comm, topo::kind k, dev::comm*& c,
            const topo::topology*& t) noexcept;
// MPI_Init done, comm a valid intracommunicator (MPI_ERR_COMM).
int topo_parent(const char* fn, MPI_Comm comm, dev::comm*& c) noexcept;
// Copies min(n, max) ints (max < 0 was rejected by the caller).
void copy_out(int* dst, const std::vector<int>& src, int max) noexcept;

}  // namespace ch4lite::api
