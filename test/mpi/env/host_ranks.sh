#!/bin/sh
# SPDX-License-Identifier: MIT
# host_ranks.sh <program>
# Our mpiexec with -ppn maps "nodes" onto this one host. The library must
# count every rank of the host against its cores (CH4LITE_HOST_RANKS), not
# only its node's. Otherwise idle waits spin and a barrier takes a
# scheduler time slice. One rank more than the usable cores, one per node:
# every rank must report the host's count and yield. As many ranks as
# cores (when there are 2 or more): no rank yields.
set -u
prog=$1
out=$(mktemp) || exit 1
trap 'rm -f "$out"' EXIT
fail() { echo "host_ranks.sh: $*"; echo "----- job output:"; tail -20 "$out"; exit 1; }
cores=$(nproc)
n=$((cores + 1))
"$CH4LITE_MPIEXEC" -v -n "$n" -ppn 1 -maxtime 60 -genv CH4LITE_VERBOSE 1 "$prog" >"$out" 2>&1 ||
  fail "the job with $n ranks failed"
got=$(grep -c "1 rank(s) on this node, $n on this host, .*oversubscribed: idle waits yield" "$out")
[ "$got" -eq "$n" ] || fail "$got of $n ranks counted $n on this host and yield"
if [ "$cores" -ge 2 ]; then
  "$CH4LITE_MPIEXEC" -v -n "$cores" -ppn 1 -maxtime 60 -genv CH4LITE_VERBOSE 1 "$prog" >"$out" 2>&1 ||
    fail "the job with $cores ranks failed"
  got=$(grep -c "1 rank(s) on this node, $cores on this host" "$out")
  [ "$got" -eq "$cores" ] || fail "$got of $cores ranks counted $cores on this host"
  ! grep -q "oversubscribed" "$out" || fail "$cores ranks on $cores cores yield"
fi
echo "host_ranks: OK ($n and $cores ranks, one per node, $cores cores)"
