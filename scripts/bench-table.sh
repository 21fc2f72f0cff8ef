#!/bin/sh
# SPDX-License-Identifier: MIT
# The headline table of docs/benchmarks.md, from a bench-summary.tsv that
# `make bench` wrote (bench/tools/merge.awk: VALUE, RATIO, GOAL lines).
#   sh scripts/bench-table.sh <bench-summary.tsv>          print the table
#   sh scripts/bench-table.sh --update <doc.md> <tsv>      replace the table
#                            between the bench-table markers of <doc.md>
# One row per declared ratio of each benchmark table: how many rows it was
# computed for, its geometric mean, smallest and largest value, and each goal
# on it with the rows that meet it. Output depends only on the .tsv, so the
# test docs.bench_table can regenerate it and compare.
set -eu
usage() {
  echo "usage: sh scripts/bench-table.sh <bench-summary.tsv>" >&2
  echo "       sh scripts/bench-table.sh --update <doc.md> <bench-summary.tsv>" >&2
  exit 2
}
begin='<!-- bench-table:begin -->'
end='<!-- bench-table:end -->'

table() {
  [ -r "$1" ] || { echo "bench-table: cannot read $1" >&2; exit 2; }
  awk -F '\t' '
    function num(x) { return sprintf("%.3g", x) }
    function key(t, r) { return t SUBSEP r }
    $1 == "VALUE" && NF >= 9 {
      nvalues++
      if ($10 == "disturbed") ndist++
      if ($7 + 0 > maxruns) maxruns = $7 + 0
      if (!($2 in seen_tab)) { seen_tab[$2] = 1; ntab++ }
      if (!($4 in seen_cfg)) { seen_cfg[$4] = 1; cfgs = cfgs (cfgs == "" ? "" : ", ") $4 }
      next
    }
    $1 == "RATIO" && NF >= 6 {
      k = key($2, $4)
      if (!(k in nrows)) { order[++n] = k; tname[k] = $2; rname[k] = $4; nrows[k] = 0 }
      if ($3 == "geomean") { geo[k] = $5; next }
      nrows[k]++
      if (!(k in lo) || $5 + 0 < lo[k] + 0) lo[k] = $5
      if (!(k in hi) || $5 + 0 > hi[k] + 0) hi[k] = $5
      next
    }
    $1 == "GOAL" && NF >= 9 {
      k = key($2, $3)
      if (!(k in nrows)) { order[++n] = k; tname[k] = $2; rname[k] = $3; nrows[k] = 0 }
      rows = ($6 == "*") ? "all rows" : "rows " $6
      met = ($8 == 0) ? "no data" : $7 "/" $8 ($7 == $8 ? " ✓" : " ✗")
      if ($7 < $8 && $9 > 0)
        met = met " (" ($9 == $8 - $7 ? "every miss" : $9 " of " $8 - $7 " misses") " within the spread)"
      g = "`" $4 " " $5 "` (" rows ")"
      had = (k in goal)
      goal[k] = had ? goal[k] "; " g : g
      gmet[k] = had ? gmet[k] "; " met : met
      next
    }
    END {
      if (n == 0) { print "bench-table: no RATIO or GOAL lines" > "/dev/stderr"; exit 1 }
      printf "%d benchmark table(s), %d values from configurations %s, median of up to %d run(s) each; %d of them measured only in runs that other processes disturbed.\n\n", ntab, nvalues, (cfgs == "" ? "none" : cfgs), maxruns, ndist
      print "| table | ratio | rows | geomean | min | max | goal | rows meeting it |"
      print "|---|---|---:|---:|---:|---:|---|---|"
      for (i = 1; i <= n; i++) {
        k = order[i]
        printf "| `%s` | `%s` | %d | %s | %s | %s | %s | %s |\n", tname[k], rname[k], nrows[k],
          (k in geo) ? num(geo[k]) : "-", (k in lo) ? num(lo[k]) : "-", (k in hi) ? num(hi[k]) : "-",
          (k in goal) ? goal[k] : "-", (k in gmet) ? gmet[k] : "-"
      }
    }' "$1"
}

case ${1:-} in
  --update)
    [ $# = 3 ] || usage
    doc=$2 tsv=$3
    grep -qxF "$begin" "$doc" && grep -qxF "$end" "$doc" ||
      { echo "bench-table: $doc has no $begin ... $end markers" >&2; exit 2; }
    new=$(table "$tsv") || exit 1
    tmp="$doc.tmp.$$"
    awk -v b="$begin" -v e="$end" -v new="$new" '
      $0 == b { print; print new; skip = 1; next }
      $0 == e { skip = 0 }
      !skip { print }' "$doc" >"$tmp" && mv "$tmp" "$doc"
    echo "bench-table: updated $doc from $tsv" >&2 ;;
  ''|-*) usage ;;
  *) [ $# = 1 ] || usage; table "$1" ;;
esac
