#!/bin/sh
# SPDX-License-Identifier: MIT
# check_doc_names.sh <supported-functions.md> <header.h>...: every name the
# page lists is a function the headers declare, and every declared function
# is listed (the page is generated, so this checks the generator).
set -eu
doc=$1
shift
listed=$(grep '^- `MPI_' "$doc" | grep -o '`MPI_[A-Za-z0-9_]*`' | tr -d '`' | sort -u)
declared=$(cat "$@" | grep -E '^[A-Za-z_]+ +\**MPI_[A-Za-z0-9_]+\(' |
  sed -E 's/^[A-Za-z_]+ +\**(MPI_[A-Za-z0-9_]+)\(.*/\1/' | sort -u)
[ -n "$declared" ] || { echo "FAIL: no prototypes found in $*"; exit 1; }
extra=$(printf '%s\n' "$listed" | grep -vxF "$declared" || true)
missing=$(printf '%s\n' "$declared" | grep -vxF "$listed" || true)
[ -z "$extra" ] || { echo "FAIL: $doc lists names that are not declared functions:"; echo "$extra"; }
[ -z "$missing" ] || { echo "FAIL: $doc does not list:"; echo "$missing"; }
[ -z "$extra$missing" ] || exit 1
echo "$doc lists the $(printf '%s\n' "$declared" | wc -l) declared functions and nothing else"
