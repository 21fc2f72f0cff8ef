// SPDX-License-Identifier: MIT
// Process topologies (MPI-4.1 chapter 8): what a Cartesian, graph or
// distributed-graph communicator knows about its neighbours. A topology is
// immutable once built and shared (shared_ptr) by the communicator and its
// dups; split/create/merge drop it.
//
// Everything here is a pure function of its arguments (no processes, no
// global state) so the unit tests can check it for simulated ranks;
// topo_create.hpp makes the communicators.
//
// Ranks are never reordered: `reorder` is accepted and ignored (MPI allows
// it), so rank r of the new communicator is rank r of the old one, and
// MPI_Cart_map / MPI_Graph_map return the caller's own rank (or
// MPI_UNDEFINED when it lies outside the topology).
#pragma once
#include <cstdint>
#include <vector>

namespace ch4lite::topo {

enum class kind : uint8_t { cart, graph, dist_graph };

struct topology {
    kind k = kind::cart;
    // Cartesian: extent and periodicity of each dimension, my coordinates
    // (row-major: the last dimension varies fastest). ndims may be 0.
    std::vector<int> dims, periods, coords;
    // Graph (MPI_Graph_create): index and edges as the user gave them.
    std::vector<int> index, edges;
    // Distributed graph: whether weights were given, and the weights of
    // `in` and `out` (empty when unweighted).
    bool weighted = false;
    std::vector<int> in_w, out_w;
    // The neighbourhood of the calling process, in the order of the
    // neighbourhood collectives' buffers: ranks, or MPI_PROC_NULL for a
    // Cartesian neighbour beyond a non-periodic edge.
    //   cart:       in = out = {dim 0: -1, +1; dim 1: -1, +1; ...}
    //   graph:      in = out = my adjacency list (edges[index[r-1]..index[r]))
    //   dist graph: sources and destinations
    std::vector<int> in, out;

    int ndims() const noexcept { return static_cast<int>(dims.size()); }
    int nnodes() const noexcept { return static_cast<int>(index.size()); }
};

// ---- Cartesian -----------------------------------------------------------

// Number of processes of a grid (1 for ndims == 0); -1 past INT32_MAX.
int64_t cart_size(const int* dims, int ndims) noexcept;
// Coordinates of `rank` (0 <= rank < cart_size).
void cart_coords(const std::vector<int>& dims, int rank, int* coords) noexcept;
// Rank at `coords`; periodic dimensions wrap, others must be in range:
// -1 when a coordinate of a non-periodic dimension is out of range.
int cart_rank(const std::vector<int>& dims, const std::vector<int>& periods,
              const int* coords) noexcept;
// MPI_Cart_shift from `coords`: the ranks `disp` steps down (source) and up
// (dest) along `dir`, or MPI_PROC_NULL (passed in as proc_null) beyond a
// non-periodic edge.
void cart_shift(const std::vector<int>& dims, const std::vector<int>& periods,
                const std::vector<int>& coords, int dir, int disp, int proc_null, int& source,
                int& dest) noexcept;
// The Cartesian topology of `rank` (dims all > 0, rank < their product).
// Throws std::bad_alloc.
topology make_cart(int ndims, const int* dims, const int* periods, int rank, int proc_null);

// MPI_Dims_create's search: fills dims[i] == 0 with the most balanced
// factorization of nnodes / (product of the nonzero dims[i]) — smallest
// spread (largest - smallest), then the largest smallest entry, then the
// largest next smallest, ... (MPICH's choice) — in nonincreasing order. Inputs already checked (nnodes >= 1, dims[i] >= 0,
// the fixed product divides nnodes).
void dims_fill(int nnodes, int ndims, int* dims);

// ---- Graph ---------------------------------------------------------------

// The graph topology of `rank` from MPI_Graph_create's arrays (checked).
// Throws std::bad_alloc.
topology make_graph(int nnodes, const int* index, const int* edges, int rank);
// Neighbours of `rank` in a graph topology: [first, first + count) of edges.
inline void graph_neighbors(const topology& t, int rank, int& first, int& count) noexcept {
    first = rank == 0 ? 0 : t.index[static_cast<std::size_t>(rank) - 1];
    count = t.index[static_cast<std::size_t>(rank)] - first;
}

}  // namespace ch4lite::topo
