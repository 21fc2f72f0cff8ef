#!/bin/sh
# SPDX-License-Identifier: MIT
# gen_calls.sh <mpi_proto_*.h>... > calls.h: one table entry per declared MPI
# function, calling it with every argument 0 (null pointers, null-ish
# handles, zero counts), for test/abi/zero_args.c.
#   CALL(MPI_Send, (0, 0, 0, 0, 0, 0))
set -eu
[ $# -ge 1 ] || { echo "usage: gen_calls.sh <mpi_proto_*.h>..." >&2; exit 2; }
awk '
  # a prototype may span lines: collect from "<type> MPI_x(" to ";"
  /^[A-Za-z_]+ +\**MPI_[A-Za-z0-9_]+\(/ { proto = $0; collecting = 1 }
  collecting && proto != $0 { proto = proto " " $0 }
  collecting && /;/ {
    collecting = 0
    name = proto; sub(/^[A-Za-z_]+ +\**/, "", name); sub(/\(.*/, "", name)
    args = proto; sub(/^[^(]*\(/, "", args); sub(/\) *;.*$/, "", args)
    n = 0
    if (args !~ /^ *void *$/) { n = 1; tmp = args; n += gsub(/,/, "", tmp) }
    list = ""
    for (i = 0; i < n; ++i) list = list (i ? ", " : "") "0"
    printf "CALL(%s, (%s))\n", name, list
    count++
  }
  END { if (count == 0) { print "gen_calls.sh: no prototypes found" > "/dev/stderr"; exit 1 } }
' "$@"
