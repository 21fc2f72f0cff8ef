#!/bin/sh
# SPDX-License-Identifier: MIT
# check_parameters.sh <source root>: docs/parameters.md and the code agree.
#  - every CH4LITE_* / MPIEXEC_* name the code (src/, tools/) contains is
#    documented in docs/parameters.md, literally or by a documented pattern
#    (a name with `*` or `<NAME>` in it, e.g. CH4LITE_COLL_*_LONG,
#    CH4LITE_<NAME>_POOL_MIN);
#  - every CH4LITE_* / MPIEXEC_* name docs/parameters.md lists is in the code
#    (a pattern: some name of the code matches it; a pool variable: its pool's
#    name is registered, "CH4LITE_%s_POOL_%s" with that name).
# Names the code only sets for the ranks, never reads, count too: the page
# says what they are.
set -eu
root=$1
doc=$root/docs/parameters.md
[ -f "$doc" ] || { echo "FAIL: no $doc"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# names in the code: string literals and #define'd names
grep -rhoE '"(CH4LITE|MPIEXEC)_[A-Z0-9_]+' "$root/src" "$root/tools" | tr -d '"' | sort -u > "$tmp/code"
# pool names registered ({"REQUEST", 256, ...} or pool_config{"RMA_OP", ...})
grep -rhoE '\{"[A-Z0-9_]+", *[0-9]' "$root/src" | sed -E 's/\{"([A-Z0-9_]+)".*/\1/' | sort -u > "$tmp/pools"
# names in the page: backquoted or bare, with patterns kept
grep -oE '(CH4LITE|MPIEXEC)_[A-Za-z0-9_<>*]+' "$doc" | sort -u > "$tmp/doc"
grep -E '[*<]' "$tmp/doc" | sed -E 's/<[A-Z]+>/[A-Z0-9_]+/g; s/\*/[A-Z0-9_]*/g; s/^/^/; s/$/$/' > "$tmp/doc_patterns"
status=0
while read -r n; do
  grep -qx "$n" "$tmp/doc" && continue
  [ -s "$tmp/doc_patterns" ] && printf '%s\n' "$n" | grep -qEf "$tmp/doc_patterns" && continue
  # a literal pool variable (CH4LITE_UNEXPECTED_POOL_MAX) is covered by the pool pattern
  case $n in *_POOL_MIN|*_POOL_CHUNK|*_POOL_MAX|*_POOL_GC)
    p=$(printf '%s\n' "$n" | sed -E 's/^CH4LITE_//; s/_POOL_(MIN|CHUNK|MAX|GC)$//')
    grep -qx "$p" "$tmp/pools" && continue ;;
  esac
  echo "FAIL: $n is in the code but not in docs/parameters.md"; status=1
done < "$tmp/code"
while read -r n; do
  case $n in *'*'*|*'<'*)
    pat=$(printf '%s\n' "$n" | sed -E 's/<[A-Z]+>/[A-Z0-9_]+/g; s/\*/[A-Z0-9_]*/g')
    grep -qE "^$pat\$" "$tmp/code" && continue
    case $n in *'<NAME>'*) continue ;; esac   # the generic pool pattern
    case $n in *_POOL_'*')                      # one pool's variables
      p=$(printf '%s\n' "$n" | sed -E 's/^CH4LITE_//; s/_POOL_\*$//')
      grep -qx "$p" "$tmp/pools" && continue ;;
    esac
    echo "FAIL: docs/parameters.md lists $n, which matches nothing in the code"; status=1; continue ;;
  esac
  grep -qx "$n" "$tmp/code" && continue
  case $n in *_POOL_MIN|*_POOL_CHUNK|*_POOL_MAX|*_POOL_GC|*_POOL_)
    p=$(printf '%s\n' "$n" | sed -E 's/^CH4LITE_//; s/_POOL_(MIN|CHUNK|MAX|GC)?$//')
    grep -qx "$p" "$tmp/pools" && continue ;;
  esac
  echo "FAIL: docs/parameters.md lists $n, which the code never reads or sets"; status=1
done < "$tmp/doc"
[ $status = 0 ] && echo "parameters: $(wc -l < "$tmp/code") names in the code, all documented; every documented name is used"
exit $status
