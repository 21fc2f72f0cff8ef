#!/bin/sh
# SPDX-License-Identifier: MIT
# check_exports.sh <mpi.h> <libmpi.so>...: every function mpi.h declares is
# exported by each library, and each library exports nothing but MPI_*.
set -eu
hdr=$1; shift
# "int MPI_Send(", "MPI_Aint MPI_Aint_add(", "double MPI_Wtime(": the name before "("
declared=$(grep -E '^[A-Za-z_]+ +\**MPI_[A-Za-z0-9_]+\(' "$hdr" |
  sed -E 's/^[A-Za-z_]+ +\**(MPI_[A-Za-z0-9_]+)\(.*/\1/' | sort -u)
status=0
for lib in "$@"; do
  exported=$(nm -D --defined-only "$lib" | awk '$2 == "T" || $2 == "W" {print $3}' | sort -u)
  missing=$(printf '%s\n' "$declared" | while read -r f; do
      printf '%s\n' "$exported" | grep -qx "$f" || echo "$f"; done)
  if [ -n "$missing" ]; then
    echo "FAIL: $lib lacks functions mpi.h declares:"; echo "$missing" | sed 's/^/  /'; status=1
  fi
  extra=$(printf '%s\n' "$exported" | grep -v '^MPI_' | grep -vE '^(_init|_fini)$' || true)
  if [ -n "$extra" ]; then
    echo "FAIL: $lib exports non-MPI symbols:"; echo "$extra" | head -20 | sed 's/^/  /'; status=1
  fi
  echo "$lib: $(printf '%s\n' "$declared" | wc -l) declared, $(printf '%s\n' "$exported" | wc -l) exported"
done
exit $status
