#!/bin/sh
# SPDX-License-Identifier: MIT
# Prints the paths of the prototype chapters (include/mpi_proto_*.h) in the
# order include/mpi_proto.h includes them, for the tools that read the
# prototypes (gen-pmpi.sh, supported-functions.sh, test/abi).
#   sh scripts/proto-files.sh [include-dir]
set -eu
inc=${1:-$(dirname "$0")/../include}
files=$(sed -n 's/^#include "\(mpi_proto_[a-z0-9_]*\.h\)"$/\1/p' "$inc/mpi_proto.h")
[ -n "$files" ] || { echo "proto-files.sh: no chapters listed in $inc/mpi_proto.h" >&2; exit 1; }
for f in $files; do echo "$inc/$f"; done
