#!/bin/sh
# SPDX-License-Identifier: MIT
# other_build.sh <libdir> <program> [args...]: rank 1 of the job runs the
# program against the libmpi in <libdir> (LD_LIBRARY_PATH), the others
# against the default one: a job whose ranks were built differently.
libdir=$1
shift
if [ "${PMI_RANK:-}" = 1 ]; then
  LD_LIBRARY_PATH=$libdir
  export LD_LIBRARY_PATH
fi
exec "$@"
