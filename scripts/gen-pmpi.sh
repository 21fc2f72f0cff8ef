#!/bin/sh
# SPDX-License-Identifier: MIT
# Prints include/mpi_pmpi.h, the PMPI_ prototypes of the profiling interface,
# from include/mpi_proto.h: every MPI_ function declared there, renamed.
#   sh scripts/gen-pmpi.sh > include/mpi_pmpi.h
# test abi.pmpi_header fails when the committed file is out of date.
set -eu
proto=${1:-$(dirname "$0")/../include/mpi_proto.h}
cat <<'HEAD'
/* SPDX-License-Identifier: MIT */
/*
 * ch4lite public C API: the profiling interface (PMPI_ names).
 *
 * Generated from mpi_proto.h by scripts/gen-pmpi.sh; do not edit. Every
 * MPI_ function has a PMPI_ twin at the same address; the MPI_ name is weak,
 * so a tool may define it and call the PMPI_ one (MPI-4.1 section 15.2).
 * Included by mpi.h; include <mpi.h> instead.
 */
#if !defined(MPI_H_ABI)
#error "mpi_pmpi.h is included by mpi.h; include <mpi.h> instead"
#elif !defined(MPI_PMPI_H_ABI)
#define MPI_PMPI_H_ABI

#ifdef __cplusplus
extern "C" {
#endif

HEAD
awk '
  /^[A-Za-z_]+ +\**MPI_[A-Za-z0-9_]+\(/ { proto = $0; collecting = 1 }
  collecting && proto != $0 { proto = proto "\n" $0 }
  collecting && /;/ {
    collecting = 0
    # the name before "(", not an MPI_ return type (MPI_Aint MPI_Aint_add)
    match(proto, /[ *]MPI_[A-Za-z0-9_]+\(/)
    proto = substr(proto, 1, RSTART) "P" substr(proto, RSTART + 1)
    print proto
  }
' "$proto"
cat <<'TAIL'

#ifdef __cplusplus
}
#endif

#endif /* MPI_PMPI_H_ABI */
TAIL
