/* SPDX-License-Identifier: MIT */
/*
 * ch4lite public C API: the function prototypes, one header per chapter.
 *
 * Included by mpi.h at its end (after the types, constants and handles they
 * use); not meant to be included directly: include <mpi.h>. The chapters
 * are listed here in the order docs/supported-functions.md follows
 * (scripts/proto-files.sh reads this list; every tool that reads the
 * prototypes goes through it).
 */
#if !defined(MPI_H_ABI)
#error "mpi_proto.h is included by mpi.h; include <mpi.h> instead"
#elif !defined(MPI_PROTO_H_ABI)
#define MPI_PROTO_H_ABI

#include "mpi_proto_env.h"
#include "mpi_proto_p2p.h"
#include "mpi_proto_comm.h"
#include "mpi_proto_coll.h"
#include "mpi_proto_rma.h"
#include "mpi_proto_type.h"

#endif /* MPI_PROTO_H_ABI */
