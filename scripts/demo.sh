#!/bin/sh
# SPDX-License-Identifier: MIT
# make demo: run the example programs under ch4lite's mpiexec with 4 ranks.
set -eu
build=${1:-build}
run() {
  echo
  echo "\$ mpiexec -n 4 $*"
  "$build/bin/mpiexec" -n 4 -maxtime 60 "$@"
}
run -l "$build/examples/hello"
run "$build/examples/ring"
run "$build/examples/pi"
echo
echo "The same binaries run under MPICH's launcher too, e.g.:"
echo "  mpiexec.hydra -n 4 $build/examples/ring"
echo "Compile your own: $build/bin/mpicc prog.c -o prog && $build/bin/mpiexec -n 4 ./prog"
