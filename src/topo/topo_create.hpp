// SPDX-License-Identifier: MIT
// Communicators with a process topology. Each call is collective over the
// parent (an intracommunicator; arguments already checked by src/api) and
// builds the new communicator with device/comm_create.hpp, the topology
// attached; its ranks are the parent's (no reordering). out = nullptr for a
// process the topology leaves out. A member that cannot build its topology
// (out of memory) still takes part in the context-id agreement and offers
// no id, so the creation fails on every member (comm_create.hpp).
#pragma once
#include "device/comm.hpp"
#include "util/status.hpp"

namespace ch4lite::topo {

// MPI_Cart_create: the first prod(dims) ranks (rank 0 alone when ndims == 0).
status cart_create(dev::comm& parent, int ndims, const int* dims, const int* periods,
                   dev::comm*& out) noexcept;
// MPI_Cart_sub of a Cartesian communicator: the grids along the kept dimensions.
status cart_sub(dev::comm& parent, const int* remain_dims, dev::comm*& out) noexcept;
// MPI_Graph_create: the first nnodes ranks.
status graph_create(dev::comm& parent, int nnodes, const int* index, const int* edges,
                    dev::comm*& out) noexcept;
// MPI_Dist_graph_create_adjacent: every rank, with the neighbours as given
// (the weights are read only when weighted).
status dist_graph_create_adjacent(dev::comm& parent, int indegree, const int* sources,
                                  const int* sourceweights, int outdegree,
                                  const int* destinations, const int* destweights, bool weighted,
                                  dev::comm*& out) noexcept;
// MPI_Dist_graph_create: edges given anywhere are delivered to both ends
// (the weights are read only when weighted). A process's sources and destinations
// are ordered by the rank that named the edge, then by its order there, so
// parallel edges pair up in the neighbourhood collectives.
status dist_graph_create(dev::comm& parent, int n, const int* sources, const int* degrees,
                         const int* destinations, const int* weights, bool weighted,
                         dev::comm*& out) noexcept;

}  // namespace ch4lite::topo
