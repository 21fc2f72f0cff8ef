#!/bin/sh
# SPDX-License-Identifier: MIT
# startup.sh <build dir> <hello.c>: wall time of a whole job of
# examples/hello (MPI_Init, one line of output, MPI_Finalize) under each
# implementation's launcher, as a user starting a program sees it: library
# loading, MPI_Init, MPI_Finalize and the launcher itself. Rows are rank
# counts; metrics <config>_s, the fastest of the runs (noise only adds
# time). The configurations are the harness's (docs/benchmarks.md), with
# the same launcher settings: ch4lite (shm on), ch4lite-net (shm off: the
# netmod, hence libfabric, is opened), mpich (Hydra, ch4:ucx), ompi (ob1,
# vader). MPICH's and Open MPI's programs are compiled here from the same
# source with their compiler wrappers, when installed. The harness tags the
# lines "startup": ratios read startup.<config>_s.
set -u
B=${1:?usage: startup.sh <build dir> <hello.c>}
src=${2:?usage: startup.sh <build dir> <hello.c>}
quick=0
case "${BENCH_QUICK:-0}" in ''|0) ;; *) quick=1 ;; esac
if [ $quick = 1 ]; then runs=2; else runs=${BENCH_INNER_REPS:-7}; fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/startup.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
PROV='tcp;ofi_rxm'

ch4=$B/examples/hello
[ -x "$ch4" ] && [ -x "$B/bin/mpiexec" ] || { echo "startup: $ch4 or $B/bin/mpiexec not built" >&2; exit 77; }
mpich=
if command -v mpicc.mpich >/dev/null 2>&1 && command -v mpiexec.hydra >/dev/null 2>&1 &&
   mpicc.mpich -O2 "$src" -o "$tmp/hello_mpich" 2>"$tmp/err"; then mpich=$tmp/hello_mpich; fi
ompi=
if command -v mpicc.openmpi >/dev/null 2>&1 && command -v mpirun.openmpi >/dev/null 2>&1 &&
   mpicc.openmpi -O2 "$src" -o "$tmp/hello_ompi" 2>"$tmp/err"; then ompi=$tmp/hello_ompi; fi

# job CONFIG NP: one job, output discarded; exit status of the launcher.
job() {
  case $1 in
    ch4lite) "$B/bin/mpiexec" -n "$2" -genv CH4LITE_SHM 1 "$ch4" ;;
    ch4lite-net)
      "$B/bin/mpiexec" -n "$2" -genv CH4LITE_SHM 0 -genv FI_PROVIDER "$PROV" \
        -genv FI_TCP_IFACE lo -genv FI_SOCKETS_IFACE lo "$ch4" ;;
    mpich) mpiexec.hydra -iface lo -n "$2" -bind-to none -genv UCX_NET_DEVICES lo "$mpich" ;;
    ompi)
      mpirun.openmpi --allow-run-as-root --oversubscribe -np "$2" --bind-to none --mca pml ob1 \
        --mca btl self,vader --mca btl_tcp_if_include lo --mca oob_tcp_if_include lo "$ompi" ;;
  esac >/dev/null 2>"$tmp/err"
}

now_ns() { date +%s%N; }

configs="ch4lite ch4lite-net"
[ -n "$mpich" ] && configs="$configs mpich"
[ -n "$ompi" ] && configs="$configs ompi"
printf 'TABLE\tstartup\tranks\twhole job of examples/hello (MPI_Init + MPI_Finalize + launcher), seconds (lower is better)\n'
for np in 1 2 4; do
  for c in $configs; do
    job "$c" "$np" || { echo "startup: $c -n $np failed: $(head -1 "$tmp/err")" >&2; continue; }  # warm-up
    best=
    i=0
    while [ $i -lt "$runs" ]; do
      t0=$(now_ns)
      job "$c" "$np" || { best=; break; }
      t1=$(now_ns)
      t=$((t1 - t0))
      if [ -z "$best" ] || [ "$t" -lt "$best" ]; then best=$t; fi
      i=$((i + 1))
    done
    [ -n "$best" ] && printf 'BENCH\tstartup\t%d\t%s_s\t%s\n' "$np" "$c" "$(echo "$best" | awk '{printf "%.4f", $1 / 1e9}')"
  done
done
# > 1: ch4lite's job starts and ends faster than the peer's.
printf 'RATIO\tstartup\tmpich/ch4lite\tstartup.mpich_s\tstartup.ch4lite_s\n'
printf 'RATIO\tstartup\tompi/ch4lite\tstartup.ompi_s\tstartup.ch4lite_s\n'
printf 'RATIO\tstartup\tnet/shm\tstartup.ch4lite-net_s\tstartup.ch4lite_s\n'
