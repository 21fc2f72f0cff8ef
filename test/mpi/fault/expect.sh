#!/bin/sh
# SPDX-License-Identifier: MIT
# expect.sh <exit code> <output regex> <command...>
# Runs the command in a session of its own, then checks its exit status, that
# its output matches the regex, and that no process of the session survived
# (a leftover is killed and the test fails). Used by the fault tests.
set -u
want=$1; regex=$2; shift 2
out=$(mktemp)
trap 'rm -f "$out"' EXIT
# EXPECT_NO_FI_SHM=1: no region of libfabric's shm provider (<pid>:<n>:<n>)
# of a dead process may be left in /dev/shm by the job (mpiexec removes its
# ranks' regions).
fishm() { ls /dev/shm 2>/dev/null | grep -E '^[0-9]+:[0-9]+:[0-9]+$' | sort; }
before=$(fishm)
setsid "$@" >"$out" 2>&1 &
pid=$!
wait $pid
rc=$?
sleep 0.3
left=$(ps -eo pid=,sid=,comm= | awk -v s="$pid" '$2 == s {print $1 ":" $3}')
status=0
if [ -n "$left" ]; then
  echo "FAIL: processes survived the job: $left"
  for p in $(echo "$left" | sed 's/:.*//'); do kill -9 "$p" 2>/dev/null; done
  status=1
fi
if [ "${EXPECT_NO_FI_SHM:-0}" = 1 ]; then
  for f in $(fishm); do
    case " $(echo $before) " in
      *" $f "*) ;;
      *) # a live owner is another test's (ctest -j); a dead one's is a leftover
         kill -0 "${f%%:*}" 2>/dev/null && continue
         echo "FAIL: /dev/shm/$f left behind"; rm -f "/dev/shm/$f"; status=1 ;;
    esac
  done
fi
if [ "$rc" != "$want" ]; then
  echo "FAIL: exit status $rc, expected $want"
  status=1
fi
if ! grep -Eq "$regex" "$out"; then
  echo "FAIL: output does not match /$regex/"
  status=1
fi
[ $status = 0 ] || { echo "---- output ----"; cat "$out"; }
[ $status = 0 ] && echo "OK: exit $rc, output matches, no process left"
exit $status
