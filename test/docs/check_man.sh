#!/bin/sh
# SPDX-License-Identifier: MIT
# docs.man: the man pages render without warnings, and they cannot drift from
# the tools: every option `mpiexec --help` prints is in mpiexec.1, and every
# option the compiler wrapper handles (tools/mpicc.in) is in mpicc.1 and
# mpicxx.1.
#   sh check_man.sh <source dir> <mpiexec binary>
set -eu
src=${1:?usage: check_man.sh <source dir> <mpiexec>}
mpiexec=${2:?usage: check_man.sh <source dir> <mpiexec>}
man1="$src/docs/man/man1"
command -v man >/dev/null 2>&1 ||
  { echo "docs.man: man (Debian man-db) is not installed; sh scripts/install-deps.sh installs it" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
fail=0
bad() { echo "docs.man: $*" >&2; fail=1; }

# 1. Each page renders, without a troff or man warning. A very long line
# keeps every paragraph on one line (no hyphenation) for the checks below.
for p in mpiexec mpicc mpicxx; do
  f="$man1/$p.1"
  [ -f "$f" ] || { bad "missing $f"; continue; }
  if ! MANWIDTH=1000 LC_ALL=C.UTF-8 man --warnings -E UTF-8 -l "$f" >"$tmp/$p.txt" 2>"$tmp/$p.err"; then
    bad "man -l $f failed: $(head -3 "$tmp/$p.err")"
  elif [ -s "$tmp/$p.err" ]; then
    bad "$f renders with warnings:"; cat "$tmp/$p.err" >&2
  elif ! grep -q "^NAME" "$tmp/$p.txt" || ! grep -q "^SYNOPSIS" "$tmp/$p.txt"; then
    bad "$f has no NAME or SYNOPSIS section"
  fi
done

# has PAGE OPTION: OPTION appears in the rendered page as a word of its own.
has() {
  opt=$(printf '%s' "$2" | sed 's/[.[\*^$]/\\&/g')
  grep -qE -- "(^|[^-A-Za-z0-9_])$opt([^-A-Za-z0-9_]|\$)" "$tmp/$1.txt"
}

# 2. mpiexec: the options of its usage text (lines "  -x, --y ARG  text").
"$mpiexec" --help >"$tmp/usage" || bad "mpiexec --help exited $?"
awk '/^  -/ { sub(/^  /, ""); split($0, c, /   +/); print c[1] }' "$tmp/usage" |
  tr ',' '\n' | awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^-/) print $i }' |
  sed 's/[^-A-Za-z0-9_].*$//' | sort -u >"$tmp/mpiexec.opts"
n=$(wc -l <"$tmp/mpiexec.opts")
[ "$n" -ge 10 ] || bad "found only $n options in mpiexec --help (parser out of date?)"
while read -r o; do
  has mpiexec "$o" || bad "mpiexec --help lists $o; docs/man/man1/mpiexec.1 does not describe it"
done <"$tmp/mpiexec.opts"
# The other way: every option the page describes is one mpiexec accepts (it
# may then complain of a missing value or program, never "unknown option").
awk '/^OPTIONS/ { on = 1; next } /^[A-Z]/ { on = 0 }
     on && /^       -/ { sub(/^       /, ""); split($0, c, /  +/); print c[1] }' "$tmp/mpiexec.txt" |
  tr ',' '\n' | awk '{ if ($1 ~ /^-/) print $1 }' | sort -u >"$tmp/man.opts"
[ "$(wc -l <"$tmp/man.opts")" -ge 10 ] || bad "found only $(wc -l <"$tmp/man.opts") options in the OPTIONS of mpiexec.1"
while read -r o; do
  if "$mpiexec" "$o" </dev/null 2>&1 | grep -q "unknown option"; then
    bad "mpiexec.1 describes $o; mpiexec does not accept it"
  fi
done <"$tmp/man.opts"
# Environment variables the usage text names.
for v in $(grep -oE '\b[A-Z][A-Z0-9]*_[A-Z0-9_]+\b' "$tmp/usage" | sort -u); do
  has mpiexec "$v" || bad "mpiexec --help names $v; mpiexec.1 does not"
done

# 3. The compiler wrappers: the options tools/mpicc.in matches in its case
# patterns ("-show)", "-c|-E|-S|-M|-MM)") and the variables it reads.
grep -oE '^[[:space:]]+-[-A-Za-z|]+\)' "$src/tools/mpicc.in" | tr -d ' )' | tr '|' '\n' |
  sort -u >"$tmp/wrapper.opts"
[ "$(wc -l <"$tmp/wrapper.opts")" -ge 5 ] || bad "found only $(wc -l <"$tmp/wrapper.opts") options in tools/mpicc.in"
for p in mpicc mpicxx; do
  [ -s "$tmp/$p.txt" ] || continue
  while read -r o; do
    has $p "$o" || bad "tools/mpicc.in handles $o; docs/man/man1/$p.1 does not describe it"
  done <"$tmp/wrapper.opts"
done
has mpicc CH4LITE_CC || bad "mpicc.1 does not name CH4LITE_CC"
has mpicxx CH4LITE_CXX || bad "mpicxx.1 does not name CH4LITE_CXX"
grep -oE 'CH4LITE_[A-Z]+' "$src/tools/mpicc.in" | grep -vE '^CH4LITE_(WRAPPED|WRAPPER)' | sort -u |
  while read -r v; do
    grep -q "$v" "$man1/mpicc.1" "$man1/mpicxx.1" || { echo "docs.man: tools/mpicc.in reads $v; no man page names it" >&2; exit 1; }
  done || fail=1

[ $fail = 0 ] || exit 1
echo "docs.man: 3 pages render cleanly; $n mpiexec options and $(wc -l <"$tmp/wrapper.opts") wrapper options documented"
