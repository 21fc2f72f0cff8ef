// SPDX-License-Identifier: MIT
// The intercommunicator forms of the collectives (MPI-4.1 §6.2.2), called
// by each collective entry point after check_comm/check_form when the
// communicator is an intercommunicator (`if (c->is_inter()) return
// inter_...`). Every form (blocking, nonblocking, persistent) is one
// schedule of coll/build_inter.hpp, built on the intercommunicator's local
// communicator. Roots: MPI_ROOT, MPI_PROC_NULL or a rank of the remote
// group (MPI_ERR_ROOT otherwise); buffers are checked where they are
// significant; MPI_IN_PLACE is refused (MPI_ERR_BUFFER): MPI has no
// in-place form on intercommunicators. Scan and Exscan are not defined on
// them (MPI_ERR_COMM, in their entry point).
#pragma once
#include <mpi.h>

#include <cstdint>

#include "api/coll_sched.hpp"

namespace ch4lite::api::coll {

int inter_barrier(const char* fn, form f, MPI_Comm comm, dev::comm& ic, MPI_Request* request) noexcept;
int inter_bcast(const char* fn, form f, void* buf, int64_t count, MPI_Datatype dt, int root,
                MPI_Comm comm, dev::comm& ic, MPI_Request* request) noexcept;
int inter_gather(const char* fn, form f, const void* sendbuf, int64_t scount, MPI_Datatype sdt,
                 void* recvbuf, int64_t rcount, MPI_Datatype rdt, int root, MPI_Comm comm,
                 dev::comm& ic, MPI_Request* request) noexcept;
template <class C, class D>
int inter_gatherv(const char* fn, form f, const void* sendbuf, int64_t scount, MPI_Datatype sdt,
                  void* recvbuf, const C* rcounts, const D* displs, MPI_Datatype rdt, int root,
                  MPI_Comm comm, dev::comm& ic, MPI_Request* request) noexcept;
int inter_scatter(const char* fn, form f, const void* sendbuf, int64_t scount, MPI_Datatype sdt,
                  void* recvbuf, int64_t rcount, MPI_Datatype rdt, int root, MPI_Comm comm,
                  dev::comm& ic, MPI_Request* request) noexcept;
template <class C, class D>
int inter_scatterv(const char* fn, form f, const void* sendbuf, const C* scounts, const D* displs,
                   MPI_Datatype sdt, void* recvbuf, int64_t rcount, MPI_Datatype rdt, int root,
                   MPI_Comm comm, dev::comm& ic, MPI_Request* request) noexcept;
int inter_allgather(const char* fn, form f, const void* sendbuf, int64_t scount, MPI_Datatype sdt,
                    void* recvbuf, int64_t rcount, MPI_Datatype rdt, MPI_Comm comm, dev::comm& ic,
                    MPI_Request* request) noexcept;
template <class C, class D>
int inter_allgatherv(const char* fn, form f, const void* sendbuf, int64_t scount, MPI_Datatype sdt,
                     void* recvbuf, const C* rcounts, const D* displs, MPI_Datatype rdt,
                     MPI_Comm comm, dev::comm& ic, MPI_Request* request) noexcept;
int inter_alltoall(const char* fn, form f, const void* sendbuf, int64_t scount, MPI_Datatype sdt,
                   void* recvbuf, int64_t rcount, MPI_Datatype rdt, MPI_Comm comm, dev::comm& ic,
                   MPI_Request* request) noexcept;
template <class C, class D>
int inter_alltoallv(const char* fn, form f, const void* sendbuf, const C* scounts, const D* sdispls,
                    MPI_Datatype sdt, void* recvbuf, const C* rcounts, const D* rdispls,
                    MPI_Datatype rdt, MPI_Comm comm, dev::comm& ic, MPI_Request* request) noexcept;
template <class C, class D>
int inter_alltoallw(const char* fn, form f, const void* sendbuf, const C* scounts, const D* sdispls,
                    const MPI_Datatype* stypes, void* recvbuf, const C* rcounts, const D* rdispls,
                    const MPI_Datatype* rtypes, MPI_Comm comm, dev::comm& ic,
                    MPI_Request* request) noexcept;
// Reduce (root as for the rooted collectives) and Allreduce (all_reduce true).
int inter_reduce(const char* fn, form f, bool all_reduce, const void* sendbuf, void* recvbuf,
                 int64_t count, MPI_Datatype dt, MPI_Op op, int root, MPI_Comm comm, dev::comm& ic,
                 MPI_Request* request) noexcept;
// Reduce_scatter (counts: one per local rank) and Reduce_scatter_block (block >= 0: every count).
template <class C>
int inter_reduce_scatter(const char* fn, form f, const void* sendbuf, void* recvbuf, const C* counts,
                         int64_t block, MPI_Datatype dt, MPI_Op op, MPI_Comm comm, dev::comm& ic,
                         MPI_Request* request) noexcept;

}  // namespace ch4lite::api::coll
