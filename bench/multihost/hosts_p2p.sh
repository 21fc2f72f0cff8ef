#!/bin/sh
# SPDX-License-Identifier: MIT
# hosts_p2p.sh <build dir> <source dir>: ping-pong latency and streaming
# bandwidth between two test hosts (one rank on each), over their veth
# (bench/p2p/latency.c and bandwidth.c as the harness builds them for each
# implementation; configurations: bench/multihost/common.sh), each rank
# bound to its own core (pin.sh). Metrics <config>_us and <config>_MB_s per
# message size.
set -u
B=${1:?usage: hosts_p2p.sh <build dir> <source dir>}
S=${2:?usage: hosts_p2p.sh <build dir> <source dir>}
. "$S/bench/multihost/common.sh"
bin=$B/bench-bin
[ -x "$bin/ch4lite/latency" ] || { echo "hosts_p2p: $bin/ch4lite/latency not built" >&2; exit 77; }
mh_setup "$S" 2
[ -n "$HYDRA" ] || { echo "hosts_p2p: needs mpiexec.hydra" >&2; exit 77; }
configs="ch4lite"
# The ucx netmod's libmpi (same programs: the MPI ABI is the library's),
# against MPICH over the same UCX transport.
MH_UCX_LIB=$B/ucx/lib
[ -e "$MH_UCX_LIB/libmpi.so.1" ] && configs="$configs ch4lite-ucx"
[ -x "$bin/mpich/latency" ] && configs="$configs mpich"
[ -x "$bin/ompi/latency" ] && [ -n "$OMPIRUN" ] && configs="$configs ompi"
impl() { echo "${1%%-*}"; }

printf 'TABLE\thosts_latency\tbytes\tping-pong half round trip between two test hosts (veth), us (lower is better)\n'
printf 'TABLE\thosts_bandwidth\tbytes\tstreaming bandwidth between two test hosts (veth), window 64, MB/s (higher is better)\n'
for c in $configs; do
  for b in latency bandwidth; do
    p=$bin/$(impl "$c")/$b
    [ -x "$p" ] && [ ! -e "$p.notbuilt" ] || continue
    if ! mh_job "$c" "1:1,2:1" "$S/bench/multihost/pin.sh" "$p"; then
      echo "hosts_p2p: $b under $c failed: $(grep -v '^$' "$tmp/err" | head -1)" >&2
      continue
    fi
    # The program's rows, renamed: table hosts_<b>, metric <config>_<unit>.
    awk -F '\t' -v c="$c" -v t="hosts_$b" '$1 == "BENCH" && ($4 == "lat_us" || $4 == "MB_s") {
      u = ($4 == "lat_us") ? "us" : "MB_s"; printf "BENCH\t%s\t%s\t%s_%s\t%s\n", t, $3, c, u, $5 }' "$tmp/out"
  done
done
printf 'RATIO\thosts_latency\tch4lite/best-peer\thosts_p2p.ch4lite_us\tmin(hosts_p2p.mpich_us,hosts_p2p.ompi_us)\n'
printf 'GOAL\thosts_latency\tch4lite/best-peer\t<=\t1\t8\n'
printf 'RATIO\thosts_latency\tch4lite/mpich\thosts_p2p.ch4lite_us\thosts_p2p.mpich_us\n'
printf 'RATIO\thosts_latency\tch4lite-ucx/mpich\thosts_p2p.ch4lite-ucx_us\thosts_p2p.mpich_us\n'
printf 'RATIO\thosts_latency\tch4lite/ompi\thosts_p2p.ch4lite_us\thosts_p2p.ompi_us\n'
printf 'RATIO\thosts_bandwidth\tch4lite/best-peer\thosts_p2p.ch4lite_MB_s\tmax(hosts_p2p.mpich_MB_s,hosts_p2p.ompi_MB_s)\n'
printf 'GOAL\thosts_bandwidth\tch4lite/best-peer\t>=\t1\t65536..4194304\n'
printf 'RATIO\thosts_bandwidth\tch4lite/mpich\thosts_p2p.ch4lite_MB_s\thosts_p2p.mpich_MB_s\n'
printf 'RATIO\thosts_bandwidth\tch4lite-ucx/mpich\thosts_p2p.ch4lite-ucx_MB_s\thosts_p2p.mpich_MB_s\n'
printf 'RATIO\thosts_bandwidth\tch4lite/ompi\thosts_p2p.ch4lite_MB_s\thosts_p2p.ompi_MB_s\n'
