#!/bin/sh
# SPDX-License-Identifier: MIT
# check_links.sh <source root>: every relative markdown link in README.md and
# docs/ (pages and docs/results/) names a file or directory that exists.
# Links are [text](target); targets with a scheme (http:, https:, mailto:)
# and pure anchors (#...) are skipped; an anchor after a path is dropped.
# Links inside code spans or fenced code blocks are skipped.
set -eu
root=$1
status=0
for f in "$root/README.md" "$root"/docs/*.md "$root"/docs/*/*.md; do
  [ -f "$f" ] || continue
  dir=$(dirname "$f")
  # drop fenced blocks and inline code spans, then list the link targets
  awk '/^```/ { fence = !fence; next } !fence { gsub(/`[^`]*`/, ""); print }' "$f" |
    grep -oE '\]\([^) ]+\)' | sed -E 's/^\]\(//; s/\)$//' | sort -u > "${TMPDIR:-/tmp}/ch4lite_links.$$" || true
  while read -r t; do
    case $t in
      http:*|https:*|mailto:*|'#'*) continue ;;
    esac
    p=${t%%#*}
    [ -n "$p" ] || continue
    if [ ! -e "$dir/$p" ]; then
      echo "FAIL: ${f#"$root"/}: link to $t: no such file"
      status=1
    fi
  done < "${TMPDIR:-/tmp}/ch4lite_links.$$"
  rm -f "${TMPDIR:-/tmp}/ch4lite_links.$$"
done
[ $status -eq 0 ] && echo "OK: every relative link in README.md and docs/ resolves"
exit $status
