#!/bin/sh
# SPDX-License-Identifier: MIT
# hosts_startup.sh <build dir> <source dir>: wall time of a whole job of
# examples/hello across 1, 2 and 3 test hosts (test/multihost/hosts.sh) with
# 1 to 4 ranks per host, under each implementation's launcher on the same
# hosts (configurations: bench/multihost/common.sh). Rows "<hosts>x<ranks
# per host>"; metrics <config>_s, the fastest of the runs. A second table
# gives the PMI round trips per rank that ch4lite's MPI_Init made
# (CH4LITE_VERBOSE), which do not depend on the job's size under PMIx.
set -u
B=${1:?usage: hosts_startup.sh <build dir> <source dir>}
S=${2:?usage: hosts_startup.sh <build dir> <source dir>}
. "$S/bench/multihost/common.sh"
quick=0
case "${BENCH_QUICK:-0}" in ''|0) ;; *) quick=1 ;; esac
if [ $quick = 1 ]; then runs=1; else runs=${BENCH_INNER_REPS:-3}; fi
ch4=$B/examples/hello
[ -x "$ch4" ] || { echo "hosts_startup: $ch4 not built" >&2; exit 77; }
mh_setup "$S" 3
[ -n "$HYDRA" ] || { echo "hosts_startup: needs mpiexec.hydra" >&2; exit 77; }
mpich= ompi=
if command -v mpicc.mpich >/dev/null 2>&1 && mpicc.mpich -O2 "$S/examples/hello.c" -o "$tmp/hello_mpich" 2>/dev/null; then
  mpich=$tmp/hello_mpich
fi
if [ -n "$OMPIRUN" ] && command -v mpicc.openmpi >/dev/null 2>&1 &&
   mpicc.openmpi -O2 "$S/examples/hello.c" -o "$tmp/hello_ompi" 2>/dev/null; then
  ompi=$tmp/hello_ompi
fi
configs=ch4lite
[ -n "$OMPIRUN" ] && configs="$configs ch4lite-pmix"
[ -n "$mpich" ] && configs="$configs mpich"
[ -n "$ompi" ] && configs="$configs ompi"
prog() { case $1 in mpich) echo "$mpich" ;; ompi) echo "$ompi" ;; *) echo "$ch4" ;; esac; }
now_ns() { date +%s%N; }

printf 'TABLE\thosts_startup\thosts x ranks\twhole job of examples/hello across test hosts (launcher + MPI_Init + MPI_Finalize), seconds (lower is better)\n'
printf 'TABLE\thosts_trips\thosts x ranks\tch4lite MPI_Init: PMI round trips per rank to the launcher (max over ranks)\n'
if [ $quick = 1 ]; then layouts="1x2 2x2 3x2"; else layouts="1x1 1x2 1x3 1x4 2x1 2x2 2x3 2x4 3x1 3x2 3x3 3x4"; fi
for l in $layouts; do
  nh=${l%x*} ppn=${l#*x}
  spec=$(seq "$nh" | awk -v p="$ppn" '{ printf "%s%s:%s", (NR > 1 ? "," : ""), $1, p }')
  for c in $configs; do
    p=$(prog "$c")
    mh_job "$c" "$spec" "$p" || { echo "hosts_startup: $c $l failed: $(grep -v '^$' "$tmp/err" | head -1)" >&2; continue; }
    best=
    i=0
    while [ $i -lt "$runs" ]; do
      t0=$(now_ns)
      mh_job "$c" "$spec" "$p" || { best=; break; }
      t=$(($(now_ns) - t0))
      if [ -z "$best" ] || [ "$t" -lt "$best" ]; then best=$t; fi
      i=$((i + 1))
    done
    [ -n "$best" ] && printf 'BENCH\thosts_startup\t%s\t%s_s\t%s\n' "$l" "$c" "$(echo "$best" | awk '{printf "%.4f", $1 / 1e9}')"
  done
  # Round trips: one verbose job per PMI flavour.
  for c in ch4lite ch4lite-pmix; do
    case " $configs " in *" $c "*) ;; *) continue ;; esac
    if [ "$c" = ch4lite ]; then mh_job ch4lite "$spec" -genv CH4LITE_VERBOSE 1 "$ch4"
    else mh_job ch4lite-pmix "$spec" -x CH4LITE_VERBOSE=1 "$ch4"; fi
    trips=$(sed -n 's/.* \([0-9]*\) round trip(s) to the launcher in MPI_Init/\1/p' "$tmp/err" | sort -n | tail -1)
    [ -n "$trips" ] && printf 'BENCH\thosts_trips\t%s\t%s\t%s\n' "$l" "$c" "$trips"
  done
done
# > 1: ch4lite's job starts and ends faster than the peer's.
printf 'RATIO\thosts_startup\tmpich/ch4lite\thosts_startup.mpich_s\thosts_startup.ch4lite_s\n'
printf 'RATIO\thosts_startup\tompi/ch4lite\thosts_startup.ompi_s\thosts_startup.ch4lite_s\n'
printf 'RATIO\thosts_startup\tbest-peer/ch4lite\tmin(hosts_startup.mpich_s,hosts_startup.ompi_s)\thosts_startup.ch4lite_s\n'
printf 'GOAL\thosts_startup\tbest-peer/ch4lite\t>=\t1\n'
printf 'RATIO\thosts_startup\tompi/ch4lite-pmix\thosts_startup.ompi_s\thosts_startup.ch4lite-pmix_s\n'
