// SPDX-License-Identifier: MIT
// Cartesian topologies: MPI_Cart_create / sub / map / get / rank / coords /
// shift, MPI_Cartdim_get and MPI_Dims_create. The grid logic is
// src/topo/topology.cpp; here: argument checks and handles.
#include "api/comm_util.hpp"
#include "api/handles.hpp"
#include "api/topo_common.hpp"
#include "topo/topo_create.hpp"

using namespace ch4lite;

namespace {

// ndims >= 0 and dims[0..ndims) > 0 describing at most `size` processes.
int check_grid(const char* fn, MPI_Comm comm, int ndims, const int* dims, const int* periods,
               int size) noexcept {
    if (ndims < 0) CH4_FAIL_IN(fn, comm, MPI_ERR_DIMS, "invalid ndims %d: must be >= 0", ndims);
    if (ndims > 0 && !dims) CH4_FAIL_IN(fn, comm, MPI_ERR_ARG, "dims is NULL");
    if (ndims > 0 && !periods) CH4_FAIL_IN(fn, comm, MPI_ERR_ARG, "periods is NULL");
    for (int i = 0; i < ndims; ++i)
        if (dims[i] <= 0)
            CH4_FAIL_IN(fn, comm, MPI_ERR_DIMS, "invalid dims[%d] = %d: must be > 0", i, dims[i]);
    const int64_t n = topo::cart_size(dims, ndims);
    if (n < 0 || n > size)
        CH4_FAIL_IN(fn, comm, MPI_ERR_ARG,
                    "the grid has more processes than the communicator (%d): the product of "
                    "dims is %lld",
                    size, n < 0 ? -1LL : static_cast<long long>(n));
    return MPI_SUCCESS;
}

}  // namespace

extern "C" {

CH4_PMPI(MPI_Dims_create)
int MPI_Dims_create(int nnodes, int ndims, int dims[]) {
    CH4_API_LOCK();
    CH4_REQUIRE_INIT();
    if (nnodes <= 0) CH4_FAIL_SELF(MPI_ERR_ARG, "invalid nnodes %d: must be > 0", nnodes);
    if (ndims < 0) CH4_FAIL_SELF(MPI_ERR_DIMS, "invalid ndims %d: must be >= 0", ndims);
    if (ndims > 0 && !dims) CH4_FAIL_SELF(MPI_ERR_ARG, "dims is NULL");
    int64_t fixed = 1;
    int free_dims = 0;
    for (int i = 0; i < ndims; ++i) {
        if (dims[i] < 0)
            CH4_FAIL_SELF(MPI_ERR_DIMS, "invalid dims[%d] = %d: must be >= 0", i, dims[i]);
        if (dims[i] == 0) {
            ++free_dims;
            continue;
        }
        fixed *= dims[i];
        if (fixed > nnodes) break;  // cannot divide: reported below
    }
    if (fixed > nnodes || nnodes % fixed != 0)
        CH4_FAIL_SELF(MPI_ERR_DIMS,
                      "nnodes %d is not a multiple of the product of the nonzero dims[i]", nnodes);
    if (free_dims == 0 && fixed != nnodes)
        CH4_FAIL_SELF(MPI_ERR_DIMS,
                      "the dims (product %lld) leave no entry to fill and do not make nnodes %d",
                      static_cast<long long>(fixed), nnodes);
    try {
        topo::dims_fill(nnodes, ndims, dims);
    } catch (const std::bad_alloc&) {
        CH4_FAIL_SELF(MPI_ERR_NO_MEM, "out of memory");
    }
    return MPI_SUCCESS;
}

CH4_PMPI(MPI_Cart_create)
int MPI_Cart_create(MPI_Comm comm_old, int ndims, const int dims[], const int periods[],
                    int reorder, MPI_Comm* comm_cart) {
    CH4_API_LOCK();
    MPI_Comm comm = comm_old;
    dev::comm* c = nullptr;
    if (const int rc = api::topo_parent(__func__, comm, c)) return rc;
    if (!comm_cart) CH4_FAIL(comm, MPI_ERR_ARG, "comm_cart (output) is NULL");
    if (const int rc = check_grid(__func__, comm, ndims, dims, periods, c->size)) return rc;
    (void)reorder;  // ranks are never reordered (topology.hpp)
    dev::comm* out = nullptr;
    if (const status s = topo::cart_create(*c, ndims, dims, periods, out); s != status::ok)
        return api::creation_failed(__func__, comm, s);
    api::hand_out(out, comm_cart);
    return MPI_SUCCESS;
}

CH4_PMPI(MPI_Cart_map)
int MPI_Cart_map(MPI_Comm comm, int ndims, const int dims[], const int periods[], int* newrank) {
    CH4_API_LOCK();
    dev::comm* c = nullptr;
    if (const int rc = api::topo_parent(__func__, comm, c)) return rc;
    if (!newrank) CH4_FAIL(comm, MPI_ERR_ARG, "newrank (output) is NULL");
    if (const int rc = check_grid(__func__, comm, ndims, dims, periods, c->size)) return rc;
    *newrank = c->rank < topo::cart_size(dims, ndims) ? c->rank : MPI_UNDEFINED;
    return MPI_SUCCESS;
}

CH4_PMPI(MPI_Cartdim_get)
int MPI_Cartdim_get(MPI_Comm comm, int* ndims) {
    CH4_API_LOCK();
    dev::comm* c = nullptr;
    const topo::topology* t = nullptr;
    if (const int rc = api::topo_of(__func__, comm, topo::kind::cart, c, t)) return rc;
    if (!ndims) CH4_FAIL(comm, MPI_ERR_ARG, "ndims (output) is NULL");
    *ndims = t->ndims();
    return MPI_SUCCESS;
}

CH4_PMPI(MPI_Cart_get)
int MPI_Cart_get(MPI_Comm comm, int maxdims, int dims[], int periods[], int coords[]) {
    CH4_API_LOCK();
    dev::comm* c = nullptr;
    const topo::topology* t = nullptr;
    if (const int rc = api::topo_of(__func__, comm, topo::kind::cart, c, t)) return rc;
    if (maxdims < t->ndims())
        CH4_FAIL(comm, MPI_ERR_ARG, "invalid maxdims %d: the topology has %d dimensions",
                 maxdims, t->ndims());
    if (t->ndims() > 0 && (!dims || !periods || !coords))
        CH4_FAIL(comm, MPI_ERR_ARG, "%s (output) is NULL",
                 !dims ? "dims" : !periods ? "periods" : "coords");
    api::copy_out(dims, t->dims, maxdims);
    api::copy_out(periods, t->periods, maxdims);
    api::copy_out(coords, t->coords, maxdims);
    return MPI_SUCCESS;
}

CH4_PMPI(MPI_Cart_rank)
int MPI_Cart_rank(MPI_Comm comm, const int coords[], int* rank) {
    CH4_API_LOCK();
    dev::comm* c = nullptr;
    const topo::topology* t = nullptr;
    if (const int rc = api::topo_of(__func__, comm, topo::kind::cart, c, t)) return rc;
    if (!rank) CH4_FAIL(comm, MPI_ERR_ARG, "rank (output) is NULL");
    if (t->ndims() > 0 && !coords) CH4_FAIL(comm, MPI_ERR_ARG, "coords is NULL");
    const int r = topo::cart_rank(t->dims, t->periods, coords);
    if (r < 0) {
        for (int i = 0; i < t->ndims(); ++i)
            if (!t->periods[static_cast<std::size_t>(i)] &&
                (coords[i] < 0 || coords[i] >= t->dims[static_cast<std::size_t>(i)]))
                CH4_FAIL(comm, MPI_ERR_ARG,
                         "invalid coords[%d] = %d: dimension %d is not periodic and has %d "
                         "processes",
                         i, coords[i], i, t->dims[static_cast<std::size_t>(i)]);
    }
    *rank = r;
    return MPI_SUCCESS;
}

CH4_PMPI(MPI_Cart_coords)
int MPI_Cart_coords(MPI_Comm comm, int rank, int maxdims, int coords[]) {
    CH4_API_LOCK();
    dev::comm* c = nullptr;
    const topo::topology* t = nullptr;
    if (const int rc = api::topo_of(__func__, comm, topo::kind::cart, c, t)) return rc;
    if (rank < 0 || rank >= c->size)
        CH4_FAIL(comm, MPI_ERR_RANK, "invalid rank %d: must be in [0, %d)", rank, c->size);
    if (maxdims < t->ndims())
        CH4_FAIL(comm, MPI_ERR_ARG, "invalid maxdims %d: the topology has %d dimensions",
                 maxdims, t->ndims());
    if (t->ndims() > 0 && !coords) CH4_FAIL(comm, MPI_ERR_ARG, "coords (output) is NULL");
    topo::cart_coords(t->dims, rank, coords);
    return MPI_SUCCESS;
}

CH4_PMPI(MPI_Cart_shift)
int MPI_Cart_shift(MPI_Comm comm, int direction, int disp, int* rank_source, int* rank_dest) {
    CH4_API_LOCK();
    dev::comm* c = nullptr;
    const topo::topology* t = nullptr;
    if (const int rc = api::topo_of(__func__, comm, topo::kind::cart, c, t)) return rc;
    if (direction < 0 || direction >= t->ndims())
        CH4_FAIL(comm, MPI_ERR_ARG, "invalid direction %d: must be in [0, %d) (the dimensions)",
                 direction, t->ndims());
    if (!rank_source || !rank_dest)
        CH4_FAIL(comm, MPI_ERR_ARG, "%s (output) is NULL", !rank_source ? "rank_source" : "rank_dest");
    topo::cart_shift(t->dims, t->periods, t->coords, direction, disp, MPI_PROC_NULL, *rank_source,
                     *rank_dest);
    return MPI_SUCCESS;
}

CH4_PMPI(MPI_Cart_sub)
int MPI_Cart_sub(MPI_Comm comm, const int remain_dims[], MPI_Comm* newcomm) {
    CH4_API_LOCK();
    dev::comm* c = nullptr;
    const topo::topology* t = nullptr;
    if (const int rc = api::topo_of(__func__, comm, topo::kind::cart, c, t)) return rc;
    if (t->ndims() > 0 && !remain_dims) CH4_FAIL(comm, MPI_ERR_ARG, "remain_dims is NULL");
    if (!newcomm) CH4_FAIL(comm, MPI_ERR_ARG, "newcomm (output) is NULL");
    dev::comm* out = nullptr;
    if (const status s = topo::cart_sub(*c, remain_dims, out); s != status::ok)
        return api::creation_failed(__func__, comm, s);
    api::hand_out(out, newcomm);
    return MPI_SUCCESS;
}

}  // extern "C"
