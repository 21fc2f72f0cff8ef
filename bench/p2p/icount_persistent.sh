#!/bin/sh
# SPDX-License-Identifier: MIT
# Instructions per round trip of an on-node ping-pong in ch4lite by three
# loops (icount_persistent.c): MPI_Send/MPI_Recv, persistent requests
# (MPI_Start/MPI_Wait), MPI_Isend/MPI_Irecv + MPI_Wait. A measure the
# machine's load does not change: both ranks run under callgrind, pinned to
# one core with CH4LITE_YIELD=1, so a wait polls about once and yields (the
# polls are counted, alike in every loop); the count of n = 4000 round trips
# minus that of n = 2000, over 2000. Needs valgrind and taskset.
#   sh bench/p2p/icount_persistent.sh <builddir> [size]
set -eu
build=$(cd "$1" && pwd)
size=${2:-8}
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$build/bin/mpicc" -O2 -g "$here/icount_persistent.c" -o "$tmp/icount"
cat >"$tmp/run.sh" <<'SH'
#!/bin/sh
exec valgrind --tool=callgrind --callgrind-out-file="$OUT.$PMI_RANK" "$@" 2>/dev/null
SH
chmod +x "$tmp/run.sh"
total() { callgrind_annotate "$1" 2>/dev/null | awk '/PROGRAM TOTALS/ {gsub(",", "", $1); print $1}'; }
printf '%-28s %s\n' "loop ($size B, shm on)" "instructions per round trip (rank 0, rank 1)"
for mode in 0 1 2; do
  for n in 2000 4000; do
    taskset -c 0 "$build/bin/mpiexec" -n 2 -genv CH4LITE_SHM 1 -genv CH4LITE_YIELD 1 \
      -genv OUT "$tmp/cg.$mode.$n" "$tmp/run.sh" "$tmp/icount" $mode $n "$size" >/dev/null
  done
  line=""
  for r in 0 1; do
    a=$(total "$tmp/cg.$mode.2000.$r")
    b=$(total "$tmp/cg.$mode.4000.$r")
    line="$line $(( (b - a) / 2000 ))"
  done
  case $mode in
    0) name="MPI_Send/MPI_Recv" ;;
    1) name="persistent (Start/Wait)" ;;
    2) name="MPI_Isend/Irecv + MPI_Wait" ;;
  esac
  printf '%-28s%s\n' "$name" "$line"
done
