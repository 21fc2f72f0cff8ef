// SPDX-License-Identifier: MIT
// Graph topologies (MPI_Graph_create and its queries) and MPI_Graph_map.
#include "api/comm_util.hpp"
#include "api/handles.hpp"
#include "api/topo_common.hpp"
#include "topo/topo_create.hpp"

using namespace ch4lite;

namespace {

// MPI_Graph_create's arrays: nnodes in [0, size], index nondecreasing from
// >= 0, every edge a node of the graph.
int check_graph(const char* fn, MPI_Comm comm, int nnodes, const int* index, const int* edges,
                int size) noexcept {
    if (nnodes < 0 || nnodes > size)
        CH4_FAIL_IN(fn, comm, MPI_ERR_ARG,
                    "invalid nnodes %d: must be in [0, %d] (the communicator's size)", nnodes, size);
    if (nnodes > 0 && !index) CH4_FAIL_IN(fn, comm, MPI_ERR_ARG, "index is NULL");
    for (int i = 0; i < nnodes; ++i)
        if (index[i] < (i == 0 ? 0 : index[i - 1]))
            CH4_FAIL_IN(fn, comm, MPI_ERR_ARG,
                        "invalid index[%d] = %d: index must be nondecreasing from >= 0", i,
                        index[i]);
    const int nedges = nnodes > 0 ? index[nnodes - 1] : 0;
    if (nedges > 0 && !edges) CH4_FAIL_IN(fn, comm, MPI_ERR_ARG, "edges is NULL");
    for (int j = 0; j < nedges; ++j)
        if (edges[j] < 0 || edges[j] >= nnodes)
            CH4_FAIL_IN(fn, comm, MPI_ERR_TOPOLOGY,
                        "invalid edges[%d] = %d: not a node of the graph [0, %d)", j, edges[j],
                        nnodes);
    return MPI_SUCCESS;
}

}  // namespace

extern "C" {

CH4_PMPI(MPI_Graph_create)
int MPI_Graph_create(MPI_Comm comm_old, int nnodes, const int index[], const int edges[],
                     int reorder, MPI_Comm* comm_graph) {
    CH4_API_LOCK();
    MPI_Comm comm = comm_old;
    dev::comm* c = nullptr;
    if (const int rc = api::topo_parent(__func__, comm, c)) return rc;
    if (!comm_graph) CH4_FAIL(comm, MPI_ERR_ARG, "comm_graph (output) is NULL");
    if (const int rc = check_graph(__func__, comm, nnodes, index, edges, c->size)) return rc;
    (void)reorder;  // ranks are never reordered (topology.hpp)
    dev::comm* out = nullptr;
    if (const status s = topo::graph_create(*c, nnodes, index, edges, out); s != status::ok)
        return api::creation_failed(__func__, comm, s);
    api::hand_out(out, comm_graph);
    return MPI_SUCCESS;
}

CH4_PMPI(MPI_Graph_map)
int MPI_Graph_map(MPI_Comm comm, int nnodes, const int index[], const int edges[], int* newrank) {
    CH4_API_LOCK();
    dev::comm* c = nullptr;
    if (const int rc = api::topo_parent(__func__, comm, c)) return rc;
    if (!newrank) CH4_FAIL(comm, MPI_ERR_ARG, "newrank (output) is NULL");
    if (const int rc = check_graph(__func__, comm, nnodes, index, edges, c->size)) return rc;
    *newrank = c->rank < nnodes ? c->rank : MPI_UNDEFINED;
    return MPI_SUCCESS;
}

CH4_PMPI(MPI_Graphdims_get)
int MPI_Graphdims_get(MPI_Comm comm, int* nnodes, int* nedges) {
    CH4_API_LOCK();
    dev::comm* c = nullptr;
    const topo::topology* t = nullptr;
    if (const int rc = api::topo_of(__func__, comm, topo::kind::graph, c, t)) return rc;
    if (!nnodes || !nedges)
        CH4_FAIL(comm, MPI_ERR_ARG, "%s (output) is NULL", !nnodes ? "nnodes" : "nedges");
    *nnodes = t->nnodes();
    *nedges = static_cast<int>(t->edges.size());
    return MPI_SUCCESS;
}

CH4_PMPI(MPI_Graph_get)
int MPI_Graph_get(MPI_Comm comm, int maxindex, int maxedges, int index[], int edges[]) {
    CH4_API_LOCK();
    dev::comm* c = nullptr;
    const topo::topology* t = nullptr;
    if (const int rc = api::topo_of(__func__, comm, topo::kind::graph, c, t)) return rc;
    if (maxindex < 0 || maxedges < 0)
        CH4_FAIL(comm, MPI_ERR_ARG, "invalid %s %d: must be >= 0",
                 maxindex < 0 ? "maxindex" : "maxedges", maxindex < 0 ? maxindex : maxedges);
    if ((maxindex > 0 && t->nnodes() > 0 && !index) || (maxedges > 0 && !t->edges.empty() && !edges))
        CH4_FAIL(comm, MPI_ERR_ARG, "%s (output) is NULL", !index ? "index" : "edges");
    // At most maxindex / maxedges entries: the lengths of the caller's arrays.
    api::copy_out(index, t->index, maxindex);
    api::copy_out(edges, t->edges, maxedges);
    return MPI_SUCCESS;
}

CH4_PMPI(MPI_Graph_neighbors_count)
int MPI_Graph_neighbors_count(MPI_Comm comm, int rank, int* nneighbors) {
    CH4_API_LOCK();
    dev::comm* c = nullptr;
    const topo::topology* t = nullptr;
    if (const int rc = api::topo_of(__func__, comm, topo::kind::graph, c, t)) return rc;
    if (rank < 0 || rank >= c->size)
        CH4_FAIL(comm, MPI_ERR_RANK, "invalid rank %d: must be in [0, %d)", rank, c->size);
    if (!nneighbors) CH4_FAIL(comm, MPI_ERR_ARG, "nneighbors (output) is NULL");
    int first = 0;
    topo::graph_neighbors(*t, rank, first, *nneighbors);
    return MPI_SUCCESS;
}

CH4_PMPI(MPI_Graph_neighbors)
int MPI_Graph_neighbors(MPI_Comm comm, int rank, int maxneighbors, int neighbors[]) {
    CH4_API_LOCK();
    dev::comm* c = nullptr;
    const topo::topology* t = nullptr;
    if (const int rc = api::topo_of(__func__, comm, topo::kind::graph, c, t)) return rc;
    if (rank < 0 || rank >= c->size)
        CH4_FAIL(comm, MPI_ERR_RANK, "invalid rank %d: must be in [0, %d)", rank, c->size);
    if (maxneighbors < 0)
        CH4_FAIL(comm, MPI_ERR_ARG, "invalid maxneighbors %d: must be >= 0", maxneighbors);
    int first = 0, count = 0;
    topo::graph_neighbors(*t, rank, first, count);
    if (maxneighbors > 0 && count > 0 && !neighbors)
        CH4_FAIL(comm, MPI_ERR_ARG, "neighbors (output) is NULL");
    for (int i = 0; i < count && i < maxneighbors; ++i)
        neighbors[i] = t->edges[static_cast<std::size_t>(first + i)];
    return MPI_SUCCESS;
}

}  // extern "C"
