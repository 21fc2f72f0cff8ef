#!/bin/sh
# SPDX-License-Identifier: MIT
# killed.sh <launcher> <program> <np> [launcher args...]
# Runs killed.c (rank 1 dies by SIGKILL mid-transfer) and checks that no
# shared-memory segment of the job is left in /dev/shm: the segment names
# the ranks report (CH4LITE_VERBOSE) must be gone, and our mpiexec must not
# have had to remove anything itself (its -v log says "removed /dev/shm/...").
# launcher: "mpiexec" (ours, path given by CH4LITE_MPIEXEC) or "hydra".
set -u
launcher=$1 prog=$2 np=$3
shift 3
out=$(mktemp) || exit 1
trap 'rm -f "$out"' EXIT
before=$(ls /dev/shm | grep -c '^ch4lite-' || true)
case $launcher in
  mpiexec) "$CH4LITE_MPIEXEC" -v -n "$np" -maxtime 60 "$@" -genv CH4LITE_SHM 1 "$prog" >"$out" 2>&1 ;;
  hydra) timeout 60 mpiexec.hydra -n "$np" "$@" -genv CH4LITE_SHM 1 -genv CH4LITE_VERBOSE 1 \
           "$prog" >"$out" 2>&1 ;;
esac
rc=$?
fail() { echo "killed.sh: $*"; echo "----- job output:"; grep -v 'cmd=' "$out" | tail -40; exit 1; }
[ "$rc" -ne 0 ] || fail "the job succeeded although rank 1 was killed"
grep -q 'killed: rank 1 dies now' "$out" || fail "rank 1 did not reach the kill"
names=$(sed -n 's/.*shm: segment \([^,]*\),.*/\1/p' "$out" | sort -u)
[ -n "$names" ] || fail "no rank reported a segment (shm not in use?)"
for n in $names; do
  case $n in
    memfd:*) echo "segment $n: a memfd, never named" ;;
    *) [ ! -e "/dev/shm$n" ] || fail "segment $n is still in /dev/shm"
       echo "segment $n: gone" ;;
  esac
done
if grep -q 'removed /dev/shm/' "$out"; then
  fail "mpiexec had to remove segments the library should have unlinked"
fi
after=$(ls /dev/shm | grep -c '^ch4lite-' || true)
echo "ch4lite-* entries in /dev/shm: $before before, $after after (other jobs may run meanwhile)"
echo "killed: OK (exit code $rc)"
