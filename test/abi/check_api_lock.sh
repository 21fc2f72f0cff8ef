#!/bin/sh
# SPDX-License-Identifier: MIT
# check_api_lock.sh <source-dir> <generated-include-dir> <c++ compiler>:
# every MPI function libmpi defines (each CH4_PMPI alias) starts with
# CH4_API_LOCK(), the MPI_THREAD_MULTIPLE lock (src/util/api_lock.hpp),
# but MPI_Wtime and MPI_Wtick, which touch no state. Checked on the
# preprocessed sources, so functions written by macros are checked as the
# compiler sees them.
set -eu
src=$1
gen=$2
cxx=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0
total=0
for f in "$src"/src/api/*.cpp; do
  "$cxx" -E -P -std=c++20 -DCH4LITE_BUILDING_LIBMPI -I"$src/include" -I"$gen" -I"$src/src" \
    -include "$src/src/api/export.hpp" "$f" > "$tmp/pp.ii" 2> "$tmp/err" || { echo "cannot preprocess $f:"; cat "$tmp/err"; exit 1; }
  out=$(perl -0777 -ne '
    my $text = $_; my ($n, $bad) = (0, 0);
    while ($text =~ /\bP(MPI_\w+)\s+__attribute__\(\(alias\(/g) {
      my $name = $1; my $at = pos($text);
      next if $name eq "MPI_Wtime" || $name eq "MPI_Wtick";
      $n++;
      pos($text) = $at;
      # the definition: the name, its parameter list, then its body
      if ($text =~ /\G.*?\b\Q$name\E\s*\((?:[^()]|\((?:[^()]|\([^()]*\))*\))*\)\s*\{\s*(\S[^;]*;)/sg) {
        my $first = $1;
        if ($first !~ /^const\s+::ch4lite::util::api_guard\s+ch4_api_guard_\s*;$/) {
          print "$name: first statement is not CH4_API_LOCK(): $first\n"; $bad++;
        }
      } else { print "$name: no definition found\n"; $bad++; }
      pos($text) = $at;
    }
    print "COUNT $n $bad\n";' "$tmp/pp.ii")
  echo "$out" | grep -v '^COUNT' | sed "s|^|$(basename "$f"): |" | grep . && status=1 || true
  n=$(echo "$out" | sed -n 's/^COUNT \([0-9]*\) .*/\1/p')
  total=$((total + n))
done
[ "$total" -gt 400 ] || { echo "only $total MPI functions found: is the check still reading the sources?"; exit 1; }
[ $status -eq 0 ] || exit 1
echo "$total MPI functions start with CH4_API_LOCK()"
