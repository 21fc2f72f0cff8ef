#!/bin/sh
# SPDX-License-Identifier: MIT
# pin.sh PROG ARGS...: runs PROG bound to CPU (rank mod CPUs). The test
# hosts share this machine's cores, which separate hosts would not: left to
# the scheduler, two spinning ranks of different "hosts" may share one core
# and then take turns by scheduler ticks (ms per message). Every
# implementation runs under it alike.
r=${PMI_RANK:-${OMPI_COMM_WORLD_RANK:-${PMIX_RANK:-0}}}
n=$(nproc)
exec taskset -c $((r % n)) "$@"
