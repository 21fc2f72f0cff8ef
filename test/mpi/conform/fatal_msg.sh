#!/bin/sh
# SPDX-License-Identifier: MIT
# fatal_msg.sh <exit code> <regex>... -- <command...>
# Runs the command in a session of its own and checks its exit status and
# that every regex matches exactly ONE line of its output (stdout and
# stderr): what happened is said, and said once. A regex starting with '!'
# must match no line. Processes left in the session fail the test.
set -u
want=$1; shift
pats=""
while [ $# -gt 0 ] && [ "$1" != "--" ]; do pats="$pats
$1"; shift; done
[ $# -gt 0 ] && shift
out=$(mktemp)
trap 'rm -f "$out"' EXIT
setsid "$@" >"$out" 2>&1 &
pid=$!
wait $pid
rc=$?
sleep 0.2
status=0
left=$(ps -eo pid=,sid= | awk -v s="$pid" '$2 == s {print $1}')
if [ -n "$left" ]; then
  echo "FAIL: processes survived the job: $left"; kill -9 $left 2>/dev/null; status=1
fi
[ "$rc" = "$want" ] || { echo "FAIL: exit status $rc, expected $want"; status=1; }
printf '%s\n' "$pats" | while IFS= read -r p; do
  [ -n "$p" ] || continue
  case $p in
    !*) n=$(grep -Ec -- "${p#!}" "$out"); [ "$n" = 0 ] || { echo "FAIL: /${p#!}/ matches $n line(s)"; exit 1; } ;;
    *) n=$(grep -Ec -- "$p" "$out"); [ "$n" = 1 ] || { echo "FAIL: /$p/ matches $n line(s), expected 1"; exit 1; } ;;
  esac
done || status=1
if [ $status = 0 ]; then echo "fatal_msg: OK"; else echo "---- output ----"; cat "$out"; fi
exit $status
