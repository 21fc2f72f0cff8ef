#!/bin/sh
# SPDX-License-Identifier: MIT
# check_exports.sh <header.h>... <libmpi.so>...: every function the headers
# (mpi.h and mpi_proto.h, which holds the prototypes) declare is exported by
# each library, and each library exports nothing but MPI_*.
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
  extra=$(printf '%s\n' "$exported" | grep -v '^MPI_' | grep -vE '^(_init|_fini)$' || true)
  if [ -n "$extra" ]; then
    echo "FAIL: $lib exports non-MPI symbols:"; echo "$extra" | head -20 | sed 's/^/  /'; status=1
  fi
  echo "$lib: $(printf '%s\n' "$declared" | wc -l) declared, $(printf '%s\n' "$exported" | wc -l) exported"
done
exit $status
