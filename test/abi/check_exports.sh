#!/bin/sh
# SPDX-License-Identifier: MIT
# check_exports.sh <header.h>... <libmpi.so>...: every function the headers
# (mpi.h and the mpi_proto_*.h chapters, which hold the prototypes) declare is exported by
# each library, as a weak MPI_ symbol with a strong PMPI_ twin at the same
# address (the profiling interface); each library exports nothing but
# MPI_*/PMPI_*, and never calls an MPI_ function through its own exported
# name (a tool's wrapper would see that call as the application's).
set -eu
hdrs=
while [ $# -gt 0 ]; do
  case $1 in *.h) hdrs="$hdrs $1"; shift ;; *) break ;; esac
done
[ -n "$hdrs" ] || { echo "usage: check_exports.sh <header.h>... <libmpi.so>..."; exit 2; }
# "int MPI_Send(", "MPI_Aint MPI_Aint_add(", "double MPI_Wtime(": the name before "("
# shellcheck disable=SC2086 # $hdrs is a list of paths without spaces
declared=$(cat $hdrs | grep -E '^[A-Za-z_]+ +\**MPI_[A-Za-z0-9_]+\(' |
  sed -E 's/^[A-Za-z_]+ +\**(MPI_[A-Za-z0-9_]+)\(.*/\1/' | sort -u)
# an empty list would pass vacuously (e.g. a header that lost its prototypes)
[ -n "$declared" ] || { echo "FAIL: no MPI_* prototypes found in$hdrs"; exit 1; }
status=0
for lib in "$@"; do
  exported=$(nm -D --defined-only "$lib" | awk '$2 == "T" || $2 == "W" {print $3}' | sort -u)
  missing=$(printf '%s\n' "$declared" | while read -r f; do
      printf '%s\n' "$exported" | grep -qx "$f" || echo "$f"; done)
  if [ -n "$missing" ]; then
    echo "FAIL: $lib lacks functions the headers declare:"; echo "$missing" | sed 's/^/  /'; status=1
  fi
  # MPI_x weak (W) and PMPI_x strong (T), at the same address
  syms=$(nm -D --defined-only "$lib")
  bad=$(printf '%s\n' "$declared" | while read -r f; do
      a=$(printf '%s\n' "$syms" | awk -v n="$f" '$3 == n && $2 == "W" {print $1}')
      b=$(printf '%s\n' "$syms" | awk -v n="P$f" '$3 == n && $2 == "T" {print $1}')
      [ -n "$a" ] && [ "$a" = "$b" ] || echo "$f (MPI_ weak: ${a:-no}, PMPI_ strong: ${b:-no})"; done)
  if [ -n "$bad" ]; then
    echo "FAIL: $lib: functions without a weak MPI_ name and a PMPI_ twin at its address:"
    echo "$bad" | head -20 | sed 's/^/  /'; status=1
  fi
  # calls from libmpi to its own MPI_ names go through the PLT (relocations)
  internal=$(readelf -rW "$lib" | awk '{print $5}' | grep -E '^MPI_' | sort -u || true)
  if [ -n "$internal" ]; then
    echo "FAIL: $lib calls MPI_ functions through their exported names (use the PMPI_ name):"
    echo "$internal" | head -20 | sed 's/^/  /'; status=1
  fi
  extra=$(printf '%s\n' "$exported" | grep -vE '^P?MPI_' | grep -vE '^(_init|_fini)$' || true)
  if [ -n "$extra" ]; then
    echo "FAIL: $lib exports symbols other than MPI_*/PMPI_*:"; echo "$extra" | head -20 | sed 's/^/  /'; status=1
  fi
  echo "$lib: $(printf '%s\n' "$declared" | wc -l) declared, $(printf '%s\n' "$exported" | wc -l) exported (MPI_ and PMPI_)"
done
exit $status
