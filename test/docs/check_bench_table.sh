#!/bin/sh
# SPDX-License-Identifier: MIT
# docs.bench_table: the headline table of docs/benchmarks.md is exactly what
# scripts/bench-table.sh prints from the committed docs/results/bench-summary.tsv
# (regenerate: make bench-doc after make bench).
#   sh check_bench_table.sh <source dir>
set -eu
src=${1:?usage: check_bench_table.sh <source dir>}
doc="$src/docs/benchmarks.md"
tsv="$src/docs/results/bench-summary.tsv"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
sh "$src/scripts/bench-table.sh" "$tsv" >"$tmp/want"
awk '$0 == "<!-- bench-table:end -->" { on = 0 }
     on { print }
     $0 == "<!-- bench-table:begin -->" { on = 1; n++ }
     END { if (n != 1) exit 1 }' "$doc" >"$tmp/have" ||
  { echo "docs.bench_table: $doc needs exactly one bench-table:begin/end marker pair" >&2; exit 1; }
if ! diff -u "$tmp/have" "$tmp/want" >"$tmp/diff"; then
  echo "docs.bench_table: the table in docs/benchmarks.md differs from scripts/bench-table.sh docs/results/bench-summary.tsv:" >&2
  cat "$tmp/diff" >&2
  echo "regenerate: sh scripts/bench-table.sh --update docs/benchmarks.md docs/results/bench-summary.tsv" >&2
  exit 1
fi
echo "docs.bench_table: $(grep -c '^| `' "$tmp/want") rows match"
