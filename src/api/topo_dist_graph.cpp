// SPDX-License-Identifier: MIT
// Distributed graph topologies: MPI_Dist_graph_create(_adjacent) and
// MPI_Dist_graph_neighbors(_count).
//
// Weights: MPI_UNWEIGHTED makes the graph unweighted (then every weights
// argument of the call must be MPI_UNWEIGHTED); MPI_WEIGHTS_EMPTY (or
// NULL) stands for an empty weights array of a weighted graph.
#include "api/comm_util.hpp"
#include "api/handles.hpp"
#include "api/info_obj.hpp"
#include "api/topo_common.hpp"
#include "topo/topo_create.hpp"

using namespace ch4lite;

namespace {

// The weights of n edges: nullptr for MPI_UNWEIGHTED, the array otherwise.
int check_weights(const char* fn, MPI_Comm comm, const char* what, const int* w, int64_t n,
                  const int*& out) noexcept {
    out = nullptr;
    if (w == MPI_UNWEIGHTED) return MPI_SUCCESS;
    if (w == MPI_WEIGHTS_EMPTY || !w) {
        if (n > 0)
            CH4_FAIL_IN(fn, comm, MPI_ERR_ARG, "%s is %s but there are %lld edges", what,
                        w ? "MPI_WEIGHTS_EMPTY" : "NULL", static_cast<long long>(n));
        out = MPI_WEIGHTS_EMPTY;  // weighted, no entries
        return MPI_SUCCESS;
    }
    for (int64_t i = 0; i < n; ++i)
        if (w[i] < 0)
            CH4_FAIL_IN(fn, comm, MPI_ERR_ARG, "invalid %s[%lld] = %d: weights must be >= 0", what,
                        static_cast<long long>(i), w[i]);
    out = w;
    return MPI_SUCCESS;
}

int check_ranks(const char* fn, MPI_Comm comm, const char* what, const int* r, int64_t n,
                int size) noexcept {
    for (int64_t i = 0; i < n; ++i)
        if (r[i] < 0 || r[i] >= size)
            CH4_FAIL_IN(fn, comm, MPI_ERR_TOPOLOGY,
                        "invalid %s[%lld] = %d: an edge must join ranks of the communicator "
                        "[0, %d)",
                        what, static_cast<long long>(i), r[i], size);
    return MPI_SUCCESS;
}

int common_checks(const char* fn, MPI_Comm comm, MPI_Info info, MPI_Comm* out) noexcept {
    if (!api::info_is_valid(info))
        CH4_FAIL_IN(fn, comm, MPI_ERR_INFO, CH4_INFO_MSG, static_cast<void*>(info));
    if (!out) CH4_FAIL_IN(fn, comm, MPI_ERR_ARG, "comm_dist_graph (output) is NULL");
    return MPI_SUCCESS;
}

}  // namespace

extern "C" {

CH4_PMPI(MPI_Dist_graph_create_adjacent)
int MPI_Dist_graph_create_adjacent(MPI_Comm comm_old, int indegree, const int sources[],
                                   const int* sourceweights, int outdegree,
                                   const int destinations[], const int* destweights,
                                   MPI_Info info, int reorder, MPI_Comm* comm_dist_graph) {
    CH4_API_LOCK();
    const char* fn = __func__;
    MPI_Comm comm = comm_old;
    dev::comm* c = nullptr;
    if (const int rc = api::topo_parent(fn, comm, c)) return rc;
    if (const int rc = common_checks(fn, comm, info, comm_dist_graph)) return rc;
    if (indegree < 0 || outdegree < 0)
        CH4_FAIL(comm, MPI_ERR_ARG, "invalid %s %d: must be >= 0",
                 indegree < 0 ? "indegree" : "outdegree", indegree < 0 ? indegree : outdegree);
    if ((indegree > 0 && !sources) || (outdegree > 0 && !destinations))
        CH4_FAIL(comm, MPI_ERR_ARG, "%s is NULL", indegree > 0 && !sources ? "sources" : "destinations");
    if (const int rc = check_ranks(fn, comm, "sources", sources, indegree, c->size)) return rc;
    if (const int rc = check_ranks(fn, comm, "destinations", destinations, outdegree, c->size))
        return rc;
    const int *sw = nullptr, *dw = nullptr;
    if (const int rc = check_weights(fn, comm, "sourceweights", sourceweights, indegree, sw)) return rc;
    if (const int rc = check_weights(fn, comm, "destweights", destweights, outdegree, dw)) return rc;
    if ((sw == nullptr) != (dw == nullptr))
        CH4_FAIL(comm, MPI_ERR_ARG,
                 "sourceweights and destweights: MPI_UNWEIGHTED must be given for both or neither");
    (void)reorder;  // ranks are never reordered (topology.hpp)
    dev::comm* out = nullptr;
    if (const status s = topo::dist_graph_create_adjacent(
            *c, indegree, sources, sw, outdegree, destinations, dw, sw != nullptr, out);
        s != status::ok)
        return api::creation_failed(fn, comm, s);
    api::hand_out(out, comm_dist_graph);
    return MPI_SUCCESS;
}

CH4_PMPI(MPI_Dist_graph_create)
int MPI_Dist_graph_create(MPI_Comm comm_old, int n, const int sources[], const int degrees[],
                          const int destinations[], const int* weights, MPI_Info info,
                          int reorder, MPI_Comm* comm_dist_graph) {
    CH4_API_LOCK();
    const char* fn = __func__;
    MPI_Comm comm = comm_old;
    dev::comm* c = nullptr;
    if (const int rc = api::topo_parent(fn, comm, c)) return rc;
    if (const int rc = common_checks(fn, comm, info, comm_dist_graph)) return rc;
    if (n < 0) CH4_FAIL(comm, MPI_ERR_ARG, "invalid n %d: must be >= 0", n);
    if (n > 0 && (!sources || !degrees))
        CH4_FAIL(comm, MPI_ERR_ARG, "%s is NULL", !sources ? "sources" : "degrees");
    int64_t edges = 0;
    for (int i = 0; i < n; ++i) {
        if (degrees[i] < 0)
            CH4_FAIL(comm, MPI_ERR_ARG, "invalid degrees[%d] = %d: must be >= 0", i, degrees[i]);
        edges += degrees[i];
    }
    if (edges > 0 && !destinations) CH4_FAIL(comm, MPI_ERR_ARG, "destinations is NULL");
    if (const int rc = check_ranks(fn, comm, "sources", sources, n, c->size)) return rc;
    if (const int rc = check_ranks(fn, comm, "destinations", destinations, edges, c->size))
        return rc;
    const int* w = nullptr;
    if (const int rc = check_weights(fn, comm, "weights", weights, edges, w)) return rc;
    (void)reorder;
    dev::comm* out = nullptr;
    if (const status s =
            topo::dist_graph_create(*c, n, sources, degrees, destinations, w, w != nullptr, out);
        s != status::ok)
        return api::creation_failed(fn, comm, s);
    api::hand_out(out, comm_dist_graph);
    return MPI_SUCCESS;
}

CH4_PMPI(MPI_Dist_graph_neighbors_count)
int MPI_Dist_graph_neighbors_count(MPI_Comm comm, int* indegree, int* outdegree, int* weighted) {
    CH4_API_LOCK();
    dev::comm* c = nullptr;
    const topo::topology* t = nullptr;
    if (const int rc = api::topo_of(__func__, comm, topo::kind::dist_graph, c, t)) return rc;
    if (!indegree || !outdegree || !weighted)
        CH4_FAIL(comm, MPI_ERR_ARG, "%s (output) is NULL",
                 !indegree ? "indegree" : !outdegree ? "outdegree" : "weighted");
    *indegree = static_cast<int>(t->in.size());
    *outdegree = static_cast<int>(t->out.size());
    *weighted = t->weighted ? 1 : 0;
    return MPI_SUCCESS;
}

CH4_PMPI(MPI_Dist_graph_neighbors)
int MPI_Dist_graph_neighbors(MPI_Comm comm, int maxindegree, int sources[], int* sourceweights,
                             int maxoutdegree, int destinations[], int* destweights) {
    CH4_API_LOCK();
    dev::comm* c = nullptr;
    const topo::topology* t = nullptr;
    if (const int rc = api::topo_of(__func__, comm, topo::kind::dist_graph, c, t)) return rc;
    if (maxindegree < 0 || maxoutdegree < 0)
        CH4_FAIL(comm, MPI_ERR_ARG, "invalid %s %d: must be >= 0",
                 maxindegree < 0 ? "maxindegree" : "maxoutdegree",
                 maxindegree < 0 ? maxindegree : maxoutdegree);
    const bool want_in = maxindegree > 0 && !t->in.empty();
    const bool want_out = maxoutdegree > 0 && !t->out.empty();
    if ((want_in && !sources) || (want_out && !destinations))
        CH4_FAIL(comm, MPI_ERR_ARG, "%s (output) is NULL", want_in && !sources ? "sources" : "destinations");
    api::copy_out(sources, t->in, maxindegree);
    api::copy_out(destinations, t->out, maxoutdegree);
    // Weights are written only for a weighted graph, and only into arrays
    // (a caller that does not want them may pass MPI_UNWEIGHTED).
    const auto real = [](const int* w) { return w && w != MPI_UNWEIGHTED && w != MPI_WEIGHTS_EMPTY; };
    if (t->weighted && real(sourceweights)) api::copy_out(sourceweights, t->in_w, maxindegree);
    if (t->weighted && real(destweights)) api::copy_out(destweights, t->out_w, maxoutdegree);
    return MPI_SUCCESS;
}

}  // extern "C"
