#!/bin/sh
# SPDX-License-Identifier: MIT
# check_pmpi.sh <source-dir>: include/mpi_pmpi*.h are what scripts/gen-pmpi.sh
# makes of the current mpi_proto_*.h chapters, and no other mpi_pmpi*.h is left.
set -eu
src=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
sh "$src/scripts/gen-pmpi.sh" "$tmp"
status=0
for f in "$tmp"/mpi_pmpi*.h; do
  n=$(basename "$f")
  diff -u "$src/include/$n" "$f" || status=1
done
for f in "$src"/include/mpi_pmpi*.h; do
  [ -e "$tmp/$(basename "$f")" ] || { echo "stale: include/$(basename "$f")"; status=1; }
done
[ $status -eq 0 ] || { echo 'regenerate them: sh scripts/gen-pmpi.sh'; exit 1; }
echo 'include/mpi_pmpi*.h are current'
