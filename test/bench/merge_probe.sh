#!/bin/sh
# SPDX-License-Identifier: MIT
# The benchmark merger's choice of round (bench/tools/merge.awk): a row of a
# table with a PROBE line takes every value from the round where the probe
# was fastest; rows of other tables take the median; cl_us is a probe
# everywhere. Fed a synthetic raw file whose median and probe rounds differ.
#   merge_probe.sh <merge.awk>
set -u
awk_file=$1
t=$(mktemp -d "${TMPDIR:-/tmp}/ch4lite-merge.XXXXXX") || exit 1
trap 'rm -rf "$t"' EXIT
tab=$(printf '\t')
# config, round, program line (tab-separated)
while read -r cfg round rest; do
  printf '%s\t%s\t%s\n' "$cfg" "$round" "$(echo "$rest" | tr ' ' "$tab")"
done >"$t/raw" <<'RAW'
a 1 TABLE fast row a_table
a 1 PROBE fast hand_GBps max
b 1 PROBE fast hand_GBps max
a 1 BENCH fast r1 pack_GBps 12
a 1 BENCH fast r1 hand_GBps 10
a 2 BENCH fast r1 pack_GBps 30
a 2 BENCH fast r1 hand_GBps 5
a 3 BENCH fast r1 pack_GBps 20
a 3 BENCH fast r1 hand_GBps 6
b 1 BENCH fast r1 pack_GBps 7
b 1 BENCH fast r1 hand_GBps 3
b 2* BENCH fast r1 pack_GBps 9
b 2* BENCH fast r1 hand_GBps 50
b 3 BENCH fast r1 pack_GBps 8
b 3 BENCH fast r1 hand_GBps 4
a 1 RATIO fast a/b a.pack_GBps b.pack_GBps
a 1 BENCH slow r1 t_us 3
a 1 BENCH slow r1 ref_us 9
a 2 BENCH slow r1 t_us 1
a 2 BENCH slow r1 ref_us 2
a 3 BENCH slow r1 t_us 2
a 3 BENCH slow r1 ref_us 5
a 1 PROBE slow ref_us min
a 1 BENCH plain r1 x 1
a 2 BENCH plain r1 x 5
a 3 BENCH plain r1 x 4
a 1 BENCH plain r1 cl_us 0.1
a 2 BENCH plain r1 cl_us 0.3
a 3 BENCH plain r1 cl_us 0.2
a 1 BENCH plain r2 x 1
a 2 BENCH plain r2 x 5
a 3 BENCH plain r2 x 4
a 1 PROBE plain hand_GBps sideways
RAW
awk -F '\t' -v summary="$t/summary" -f "$awk_file" "$t/raw" >"$t/out" || { echo "merge.awk failed"; exit 1; }
fail=0
expect() {  # table row config metric value
  got=$(awk -F '\t' -v t="$1" -v r="$2" -v c="$3" -v m="$4" \
    '$1 == "VALUE" && $2 == t && $3 == r && $4 == c && $5 == m { print $6 }' "$t/summary")
  if [ "$got" != "$5" ]; then
    echo "FAIL: $1 $2 $3 $4: expected $5, got '${got}'"
    fail=1
  fi
}
# table "fast": the probe (hand_GBps, larger is faster) picks a's round 1
# (hand 10): pack 12, where the median is 20.
expect fast r1 a pack_GBps 12
expect fast r1 a hand_GBps 10
# b's disturbed round 2 counts only without undisturbed ones: round 3.
expect fast r1 b pack_GBps 8
expect fast r1 b hand_GBps 4
# the ratio uses the picked values: 12 / 8
got=$(awk -F '\t' '$1 == "RATIO" && $2 == "fast" && $3 == "r1" && $4 == "a/b" { print $5 }' "$t/summary")
case $got in 1.5*) ;; *) echo "FAIL: ratio a/b: expected 1.5, got '$got'"; fail=1 ;; esac
# table "slow": the probe ref_us (smaller is faster) picks round 2.
expect slow r1 a t_us 1
# table "plain": cl_us picks round 1 for r1; r2 has no probe: the median;
# a PROBE with an unknown direction is ignored.
expect plain r1 a x 1
expect plain r2 a x 4
[ $fail = 0 ] && echo "merge_probe: all checks passed"
exit $fail
