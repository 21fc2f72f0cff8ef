#!/bin/sh
# SPDX-License-Identifier: MIT
# fast_load.sh MPIEXEC NETMOD_OPEN: the ofi netmod loads libfabric the fast
# way on a host without RDMA hardware (docs/netmod-ofi.md, "Loading
# libfabric"): stand-ins for the PSM libraries, /proc/kallsyms hidden from
# the first fi_getinfo; CH4LITE_OFI_FAST_LOAD=0 and FI_PROVIDER=psm2 load the
# real libraries. Skipped (77) on a host with RDMA devices.
set -u
mpiexec=$1 prog=$2
if [ -n "$(ls -A /sys/class/infiniband 2>/dev/null)" ]; then
  echo "fast_load: this host has RDMA devices ($(ls /sys/class/infiniband | tr '\n' ' ')): the fast load does not apply"
  exit 77
fi
out=$(mktemp "${TMPDIR:-/tmp}/ch4lite-fastload.XXXXXX") || exit 1
trap 'rm -f "$out"' EXIT
fail=0
run() {  # run NAME [VAR=VALUE...] : one job of two ranks over the netmod
  name=$1
  shift
  env "$@" CH4LITE_VERBOSE=1 "$mpiexec" -n 2 -maxtime 60 -genv CH4LITE_SHM 0 "$prog" >"$out" 2>&1
}
expect() {  # expect NAME REGEX COUNT: REGEX matches COUNT lines of the last run
  n=$(grep -cE "$2" "$out")
  if [ "$n" != "$3" ]; then
    echo "FAIL [$1]: expected $3 line(s) matching '$2', got $n:"
    sed 's/^/  | /' "$out"
    fail=1
  fi
}
run fast
expect fast 'psm/psm2 libraries: stand-ins\)' 2
expect fast 'first fi_getinfo in .*/proc/kallsyms hidden, [1-9][0-9]* open\(s\) refused' 2
expect fast 'netmod_open: OK \(opened\)' 1
run off CH4LITE_OFI_FAST_LOAD=0
expect off 'psm/psm2 libraries: real\)' 2
expect off '/proc/kallsyms visible, 0 open\(s\) refused' 2
expect off 'netmod_open: OK \(opened\)' 1
# Asking for psm2 loads the real libraries (and finds no device here).
run psm2 FI_PROVIDER=psm2
expect psm2 'psm/psm2 libraries: real\)' 2
[ $fail = 0 ] && echo "PASS [fast_load]"
exit $fail
