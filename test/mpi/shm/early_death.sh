#!/bin/sh
# SPDX-License-Identifier: MIT
# early_death.sh <launcher command...>: runs early_death.c (rank 1 killed
# while the others are in MPI_Init, the node's segment created) and checks
# that no ch4lite-<uid>-* name the job created is left in /dev/shm. Names of
# other jobs running meanwhile are told apart by time: a name of a live job
# is unlinked within milliseconds of its creation; a leftover stays.
# EXPECT_LEAK=1 (the named backend under Hydra): the test passes if a name
# WAS left -- the failure this backend cannot avoid -- and removes it.
set -u
prefix="ch4lite-$(id -u)-"
list() { ls /dev/shm 2>/dev/null | grep "^$prefix" | sort; }
before=$(mktemp) after=$(mktemp) out=$(mktemp)
trap 'rm -f "$before" "$after" "$out"' EXIT
list >"$before"
timeout 60 "$@" >"$out" 2>&1
rc=$?
sleep 1
list >"$after"
new=$(comm -13 "$before" "$after")
cat "$out" | tail -5
[ "$rc" -ne 0 ] || { echo "early_death.sh: the job succeeded although rank 1 was killed"; exit 1; }
grep -q "early_death: rank 1 dies now" "$out" || { echo "early_death.sh: rank 1 did not die"; exit 1; }
if [ "${EXPECT_LEAK:-0}" = 1 ]; then
  [ -n "$new" ] || { echo "early_death.sh: expected the named backend to leave its segment"; exit 1; }
  for n in $new; do rm -f "/dev/shm/$n"; echo "left (as expected for named segments), removed: $n"; done
  echo "early_death: OK (named segment left, as expected)"
  exit 0
fi
if [ -n "$new" ]; then
  for n in $new; do echo "early_death.sh: left in /dev/shm: $n"; rm -f "/dev/shm/$n"; done
  exit 1
fi
echo "early_death: OK (nothing left in /dev/shm)"
